"""Which binaries meet an environment's requirements: each rule a mask over the binaries, built by the matcher
`query` uses (cachetui.core.query.specmatch), so a requirement and a spec query read a binary alike.

As Spack's solver reads `packages:` (solver/requirements.py):
- a package's own `require:` (or `prefer:`, `conflict:`) replaces the one under `all:`, section by section;
- a rule is `one_of` (exactly one of its specs holds) or `any_of` (at least one); a string is `one_of` itself;
  `when:` limits it to the binaries it holds for; a `conflict:` holds where its spec does not; `prefer:` only
  ranks the binaries that meet everything else;
- a spec under `all:` does not apply to a package it cannot describe: one naming a variant the package's
  binaries do not record, or (a compiler, a dependency) asked of a package whose binaries record no compiler,
  as Spack rejects such specs for its compiler and runtime packages;
- a rule under a virtual's name (`mpi: require: openmpi`) holds of the binary a dependency edge provides it with.

Each rule is worked out once: a rule under `all:` over the whole corpus, a package's own over its binaries. A spec
or a condition that cannot be read as Spack 1.x reads it, or a `^` asked of sources that record no dependencies,
is not applied, and said once through `note`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.environment import ALL, ANY_OF, CONFLICT, PREFER, REQUIRE, Environment, Rule
from cachetui.core.query.resolve import QueryProblem, Scope
from cachetui.core.query.specmatch import NoDependencyData, dependency_parts, node_parts
from cachetui.core.spack.specquery import SpecQuery, SpecSyntaxError, parse_spec_query
from cachetui.core.spack.words import echo

HOLDING = (REQUIRE, CONFLICT)  # what a binary must meet; PREFER only ranks
LANGUAGES = frozenset({"c", "cxx", "fortran"})  # the virtuals a compiler provides
_NO_COMPILER = ("none", "")


class Requirements:
    """The rules of one environment over one corpus, each worked out once (see the module)."""

    def __init__(self, corpus: Corpus, environment: Environment, note: Callable[[str], None]) -> None:
        self.corpus, self.environment, self.note = corpus, environment, note
        self._corpus_wide: dict[Rule, np.ndarray | None] = {}
        self._own: dict[tuple[Rule, str], np.ndarray | None] = {}
        self._records_variant: dict[str, np.ndarray] = {}
        self._records_compiler: np.ndarray | None = None
        self._parsed: dict[str, SpecQuery | None] = {}
        self._meets: np.ndarray | None = None
        virtuals = corpus.vocab["dep_virtuals"].values if "dep_virtuals" in corpus.vocab else []
        self.virtual_names = frozenset(v for value in virtuals for v in value.split(",") if v)

    def read_all(self) -> None:
        """Read every rule's specs once, so that one a plan cannot read is said whether or not a package planned
        needs it."""
        for settings in self.environment.packages.values():
            for section in (REQUIRE, PREFER, CONFLICT):
                for rule in settings.rules(section):
                    for text in rule.constraints:
                        self._query(text, rule)
                    if rule.when:
                        self._query(rule.when, rule, condition=True)

    # -- which rules apply ----------------------------------------------------------------------------------

    def rules(self, package: str, section: str) -> tuple[Rule, ...]:
        """The package's own rules of `section`, else those under `all:`."""
        own = self.environment.settings(package)
        if own is not None and own.rules(section):
            return own.rules(section)
        general = self.environment.settings(ALL)
        return general.rules(section) if general is not None else ()

    def verdicts(self, package: str, section: str) -> list[tuple[Rule, np.ndarray]]:
        """Each rule of `section` that applies to the package, with where it holds over the package's binaries
        (for `prefer`, where it is met); a rule that cannot be evaluated is left out (and said)."""
        scope = self.corpus.package_slice(package)
        found = []
        for rule in self.rules(package, section):
            if rule.package == ALL:
                mask = self._corpus_wide_mask(rule)
                holds = None if mask is None else mask[scope]
            else:
                holds = self._own_mask(rule, package)
            if holds is not None:
                found.append((rule, holds))
        return found

    def holds(self, package: str) -> np.ndarray:
        """Over the package's binaries: every `require:` and `conflict:` rule that applies holds."""
        scope = self.corpus.package_slice(package)
        mask = np.ones(scope.stop - scope.start, dtype=bool)
        for section in HOLDING:
            for _, holds in self.verdicts(package, section):
                mask &= holds
        return mask

    def preferred(self, package: str) -> np.ndarray:
        """Over the package's binaries: how many of the `prefer:` rules that apply each meets."""
        scope = self.corpus.package_slice(package)
        count = np.zeros(scope.stop - scope.start, dtype=np.int64)
        for _, met in self.verdicts(package, PREFER):
            count += met
        return count

    def failed(self, spec: int) -> list[Rule]:
        """The `require:`/`conflict:` rules binary `spec` fails, in the order they are written."""
        package = self.corpus.packages[int(self.corpus.package_of[spec])]
        at = spec - self.corpus.package_slice(package).start
        return [rule for section in HOLDING for rule, holds in self.verdicts(package, section) if not holds[at]]

    def meets(self) -> np.ndarray:
        """Per binary of the corpus: it meets every rule that applies to its package (worked out once)."""
        if self._meets is not None:
            return self._meets
        corpus = self.corpus
        ok = np.ones(corpus.n_specs, dtype=bool)
        general = self.environment.settings(ALL)
        for section in HOLDING:
            own = [name for name, settings in self.environment.packages.items()
                   if name != ALL and name in corpus.package_index and settings.rules(section)]
            if general is not None and general.rules(section):
                mask = np.ones(corpus.n_specs, dtype=bool)
                for rule in general.rules(section):
                    holds = self._corpus_wide_mask(rule)
                    if holds is not None:
                        mask &= holds
                for name in own:  # their own rules replace these
                    mask[corpus.package_slice(name)] = True
                ok &= mask
            for name in own:
                scope = corpus.package_slice(name)
                for _, holds in self.verdicts(name, section):
                    ok[scope] &= holds
        self._meets = ok
        return ok

    def virtual_rules(self) -> list[tuple[Rule, np.ndarray, np.ndarray]]:
        """Each `require:`/`conflict:` rule written under a virtual's name (`mpi: require: openmpi`): the ids of the
        edge virtuals that name it, and where it holds over the corpus (of the binary an edge provides it with)."""
        corpus, found = self.corpus, []
        virtual_values = corpus.vocab["dep_virtuals"].values
        for name, settings in self.environment.packages.items():
            if name == ALL or name in corpus.package_index or name not in self.virtual_names:
                continue
            if name in LANGUAGES and any(settings.rules(section) for section in HOLDING):
                # A compiler is a build dependency (Spack 1.x), and a plan walks only link/run edges.
                self.note(f"packages:{echo(name)}: its rules are not evaluated: a compiler is a build dependency, "
                          "and a plan does not walk build dependencies")
                continue
            ids = np.asarray([i for i, value in enumerate(virtual_values) if name in value.split(",")], dtype=np.int32)
            for section in HOLDING:
                for rule in settings.rules(section):
                    holds = self._corpus_wide_mask(rule)
                    if holds is not None:
                        found.append((rule, ids, holds))
        return found

    # -- one rule -----------------------------------------------------------------------------------------

    def _corpus_wide_mask(self, rule: Rule) -> np.ndarray | None:
        if rule not in self._corpus_wide:
            self._corpus_wide[rule] = self._evaluate(rule, slice(0, self.corpus.n_specs), None)
        return self._corpus_wide[rule]

    def _own_mask(self, rule: Rule, package: str) -> np.ndarray | None:
        key = (rule, package)
        if key not in self._own:
            self._own[key] = self._evaluate(rule, self.corpus.package_slice(package), package)
        return self._own[key]

    def _evaluate(self, rule: Rule, scope: slice, package: str | None) -> np.ndarray | None:
        """Where the rule holds over the scope (for `prefer`, where it is met); None when it is not evaluated.
        `package` None: a rule under `all:` or a virtual's, read over the whole corpus."""
        queries = [self._query(text, rule) for text in rule.constraints]
        if any(query is None for query in queries):
            return None
        n = scope.stop - scope.start
        met, applying = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        for query in queries:
            assert query is not None
            satisfied = self._satisfies(query, scope, package, rule)
            if satisfied is None:
                return None
            applies = self._applies(query, scope) if rule.package == ALL and rule.section == REQUIRE else True
            met += satisfied & applies
            applying += applies
        if rule.section == CONFLICT:
            holds = met == 0
        elif rule.section == PREFER:
            holds = met > 0
        elif rule.policy == ANY_OF:
            holds = (met >= 1) | (applying == 0)
        else:
            holds = (met == 1) | (applying == 0)
        if rule.when:
            condition = self._query(rule.when, rule, condition=True)
            if condition is None:
                return None
            when = self._satisfies(condition, scope, package, rule)
            if when is None:
                return None
            holds = holds | ~when
        return holds

    def _query(self, text: str, rule: Rule, condition: bool = False) -> SpecQuery | None:
        said = f"packages:{echo(rule.package)}:{rule.section} {echo(text, quoted=True)} ({rule.file})"
        if text not in self._parsed:
            try:
                self._parsed[text] = parse_spec_query(text)
            except SpecSyntaxError as exc:
                self.note(f"{said}: not evaluated: {exc.message}")
                self._parsed[text] = None
        query = self._parsed[text]
        if condition and query is not None and query.dependencies:
            self.note(f"packages:{echo(rule.package)}:{rule.section} {echo(rule.text(), quoted=True)} ({rule.file}): "
                      f"its condition names a dependency, which a plan does not evaluate; the rule is not applied")
            return None
        return query

    def _satisfies(self, query: SpecQuery, scope: slice, package: str | None, rule: Rule) -> np.ndarray | None:
        """Where the spec holds over the scope, value by value as `query --spec` reads it; a value no binary has
        holds nowhere. None when it asks `^` of sources that record no dependencies."""
        corpus, n = self.corpus, scope.stop - scope.start
        root = query.root
        mask = np.ones(n, dtype=bool)
        resolution = package
        if root.name is not None:
            if root.name not in corpus.package_index:
                return np.zeros(n, dtype=bool)
            start, stop = corpus.package_ranges[corpus.package_index[root.name]]
            positions = np.arange(scope.start, scope.stop)
            mask &= (positions >= start) & (positions < stop)
            resolution = root.name
        try:
            for _, part in node_parts(corpus, scope, replace(root, name=None), Scope(corpus, resolution)):
                mask &= part
        except QueryProblem:  # a value no binary has (in the package, or anywhere): it holds for none
            return np.zeros(n, dtype=bool)
        for dependency in query.dependencies:
            try:
                for _, part in dependency_parts(corpus, scope, SpecQuery(dependencies=(dependency,))):
                    mask &= part
            except NoDependencyData:
                self.note(f"packages:{echo(rule.package)}:{rule.section} {echo(rule.text(), quoted=True)} "
                          f"({rule.file}): '^' needs dependency data, which these sources do not record; "
                          "the rule is not applied")
                return None
            except QueryProblem:
                return np.zeros(n, dtype=bool)
        return mask

    # -- what a spec under `all:` applies to --------------------------------------------------------------

    def _applies(self, query: SpecQuery, scope: slice) -> np.ndarray:
        """Over the scope: the binary's package can be described by the spec (see the module)."""
        packages = self.corpus.package_of[scope]
        applies = np.ones(scope.stop - scope.start, dtype=bool)
        for variant in query.root.variants:
            applies &= self._variant_recorded(variant.name)[packages]
        if query.root.compilers or query.dependencies:
            applies &= self._compiler_recorded()[packages]
        return applies

    def _variant_recorded(self, name: str) -> np.ndarray:
        """Per package: some binary of it records variant `name`."""
        found = self._records_variant.get(name)
        if found is None:
            corpus = self.corpus
            found = np.zeros(len(corpus.packages), dtype=bool)
            variant = corpus.variant_name_ids.get(name)
            if variant is not None:
                column = corpus.multi["variant"]
                owners = column.owner[corpus.variant_names[column.flat] == variant]
                found[corpus.package_of[owners]] = True
            self._records_variant[name] = found
        return found

    def _compiler_recorded(self) -> np.ndarray:
        """Per package: some binary of it records a compiler."""
        if self._records_compiler is None:
            corpus = self.corpus
            ids = corpus.vocab["compiler"].ids
            none = np.asarray([ids[v] for v in _NO_COMPILER if v in ids], dtype=np.int32)
            has = ~np.isin(corpus.single["compiler"], none)
            self._records_compiler = np.zeros(len(corpus.packages), dtype=bool)
            self._records_compiler[corpus.package_of[has]] = True
        return self._records_compiler
