"""Plan an environment from the cache: which binary can serve each abstract root, and what excludes the rest.

`plan(corpus, environment, arch)` is the one rule; `cachetui plan` and a browser view show what it returns. A binary
can serve a root when it satisfies the root's own constraints (read as `query --spec` reads them, by the same
matcher), every requirement of the environment that applies to its package (cachetui.core.query.plan_rules), and
runs on the platform planned for (its platform and OS the platform's, its target the platform's or an ancestor).
Each root gets a status:

- `cached`: a binary Spack can reuse for this root, its whole link/run closure in the sources (externals aside),
  each dependency meeting its own package's requirements;
- `partly`: a binary can serve it, but its closure misses records or holds one failing its package's requirements
  (which: `Holes`), or its source records no dependencies (site documents: the closure is unknown);
- `external`: the environment makes the package external only (`buildable: false` with `externals`);
- `build`: no binary can serve it: the nearest ones, each with every reason that excluded it.

Among the binaries that can serve a root the one chosen has, in this order: a complete closure (then an unknown
one), the most `prefer:` rules met, the newest version, then the first hash; the same binary in several tags is
one candidate, shown in the first tag that holds it.

A plan is not a concretization (NOT_MODELLED). Each root costs numpy masks over its package's binaries; the rules
and the closures are worked out once per plan over the corpus.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.environment import Environment, Root, Rule
from cachetui.core.query.common import Common
from cachetui.core.query.masks import facet_mask
from cachetui.core.query.plan_closure import Closures
from cachetui.core.query.plan_rules import HOLDING, Requirements
from cachetui.core.query.resolve import QueryProblem, Scope
from cachetui.core.query.specmatch import NoDependencyData, dependency_parts, hash_matches, node_parts, runs_on_mask
from cachetui.core.spack.abstract import Incompatible, combined, may_be
from cachetui.core.spack.arch import Arch
from cachetui.core.spack.specquery import ARCH_KEYS, NodeQuery, SpecQuery, SpecSyntaxError, parse_spec_query
from cachetui.core.spack.targets import runs_on
from cachetui.core.spack.variants import parse_variants
from cachetui.core.spack.versions import version_key
from cachetui.core.spack.words import counted, echo

CACHED, PARTLY, EXTERNAL, BUILD = "cached", "partly", "external", "build"
STATUSES = (CACHED, PARTLY, EXTERNAL, BUILD)
COMPLETE, INCOMPLETE, UNKNOWN = "complete", "incomplete", "unknown"  # a chosen binary's closure
CONSTRAINT, REQUIREMENT, PLATFORM = "constraint", "requirement", "platform"  # what excluded a binary
NEAREST = 3  # binaries said for a root to build
FAILING_SHOWN = 10  # failing dependencies said one by one for a root (the rest counted)
CACHED_MEANS = "`cached`: a binary Spack can reuse for this root, with its whole link/run closure in the sources"
NOT_MODELLED = ("a plan is not a concretization: a package.py's conflicts and variant defaults, which provider the "
                "solver picks for a virtual, and compilers chosen as build dependencies are not modelled")


@dataclass(frozen=True, slots=True)
class Binary:
    index: int  # its position in the corpus (in the first tag that holds it)
    hash: str
    spec: str  # the spec that selects it, as the browser's `common:` line writes it
    tag: str


@dataclass(frozen=True, slots=True)
class Exclusion:
    """One reason one binary cannot serve a root."""

    hash: str
    spec: str
    category: str  # CONSTRAINT, REQUIREMENT or PLATFORM
    excluded_by: str


@dataclass(frozen=True, slots=True)
class Failing:
    """A dependency in a chosen binary's closure that fails its own package's requirements."""

    hash: str
    spec: str
    excluded_by: str


@dataclass(frozen=True, slots=True)
class RootPlan:
    spec: str  # as written (a matrix row's parts joined by one space)
    package: str | None
    status: str  # one of STATUSES
    binary: Binary | None  # the chosen one, for cached and partly
    candidates: int  # distinct binaries that can serve it
    closure: str = ""  # COMPLETE, INCOMPLETE or UNKNOWN for a chosen binary; "" otherwise
    missing: tuple[str, ...] = ()  # hashes of the closure's records no source holds
    failing: tuple[Failing, ...] = ()  # the first FAILING_SHOWN, in corpus order (by package)
    failing_count: int = 0  # every one
    why: tuple[Exclusion, ...] = ()  # for build: the nearest binaries' every reason
    note: str = ""
    candidate_indices: tuple[int, ...] = field(default=(), repr=False)  # every candidate, each tag's, corpus order


@dataclass(frozen=True)
class Plan:
    environment: Environment = field(compare=False, repr=False)
    arch: Arch
    roots: tuple[RootPlan, ...]
    notes: tuple[str, ...]  # what was not evaluated (each once)

    @cached_property
    def counts(self) -> dict[str, int]:
        found = Counter(root.status for root in self.roots)
        return {status: found[status] for status in STATUSES}

    @property
    def complete(self) -> bool:
        """Every root cached or external."""
        return all(root.status in (CACHED, EXTERNAL) for root in self.roots)

    def summary(self) -> str:
        """`12 roots: 7 cached, 2 partly, 1 external, 2 to build`."""
        c = self.counts
        return (f"{counted(len(self.roots), 'root')}: {c[CACHED]} cached, {c[PARTLY]} partly, "
                f"{c[EXTERNAL]} external, {c[BUILD]} to build")

    def platform(self) -> str:
        """`linux-debian12-icelake (this host)`."""
        said = str(self.arch) + (" (this host)" if self.arch.host else "")
        return said + ("; its OS is not known, so not checked" if self.arch.os is None else "")


def plan(corpus: Corpus, environment: Environment, arch: Arch) -> Plan:
    """Every root of the environment planned against the corpus, for `arch` (see the module)."""
    return _Planner(corpus, environment, arch).run()


Part = tuple[str, str, np.ndarray]  # (category, what it says, where it holds over the package's binaries)


@dataclass(frozen=True)
class _Serving:
    """A root some binaries can serve, before the closures are walked: its candidates, and each distinct binary
    (by hash) in the first tag that holds it."""

    root: Root
    package: str
    candidates: np.ndarray
    first: dict[str, int]


class _Planner:
    def __init__(self, corpus: Corpus, environment: Environment, arch: Arch) -> None:
        self.corpus, self.environment, self.arch = corpus, environment, arch
        self.notes: dict[str, None] = dict.fromkeys(environment.notes)
        self.requirements = Requirements(corpus, environment, self.note)
        self.tag_rank = {corpus.vocab["tag"].ids[t]: r for r, t in enumerate(corpus.tags)}
        self._packages: dict[str, tuple[list[Part], np.ndarray]] = {}

    def note(self, text: str) -> None:
        self.notes.setdefault(text)

    def run(self) -> Plan:
        """Each root's candidates, then every candidate's closure in one walk, then each root's choice; last, the
        holes of the chosen binaries whose closures are incomplete, walked together."""
        if self.arch.os is None:
            self.note(f"the OS of {self.arch.platform}-?-{self.arch.target} is not known, so a binary of any OS is "
                      "taken to run there: name one with --arch PLATFORM-OS-TARGET")
        self.requirements.read_all()
        decided = [self._root(root) for root in self.environment.roots]
        serving = [d for d in decided if isinstance(d, _Serving)]
        if not serving:
            return Plan(self.environment, self.arch, tuple(d for d in decided if isinstance(d, RootPlan)),
                        tuple(self.notes))
        closures = Closures(self.corpus, self.requirements)
        everyone = np.asarray(sorted({i for d in serving for i in d.first.values()}), dtype=np.int64)
        complete = dict(zip(everyone.tolist(), closures.complete(everyone).tolist()))
        roots = [self._chosen(d, complete, closures) if isinstance(d, _Serving) else d for d in decided]
        incomplete = [(k, root.binary.index) for k, root in enumerate(roots)
                      if root.closure == INCOMPLETE and root.binary is not None]
        for (k, _), holes in zip(incomplete, closures.holes([index for _, index in incomplete])):
            failing = tuple(self._failing(spec, holes.virtual.get(spec, ())) for spec in holes.failing[:FAILING_SHOWN])
            roots[k] = replace(roots[k], missing=holes.missing, failing=failing, failing_count=len(holes.failing))
        return Plan(self.environment, self.arch, tuple(roots), tuple(self.notes))

    def _failing(self, spec: int, virtual: tuple[Rule, ...]) -> Failing:
        rules = tuple(dict.fromkeys((*self.requirements.failed(spec), *virtual)))
        return Failing(self.corpus.hashes[spec], _selecting(self.corpus, spec), "; ".join(map(_rule_said, rules)))

    # -- one root -------------------------------------------------------------------------------------------

    def _root(self, root: Root) -> RootPlan | _Serving:
        try:
            query = combined([parse_spec_query(part) for part in root.parts])
        except SpecSyntaxError as exc:
            return self._unread(root, exc.message)
        except Incompatible as exc:
            return self._unread(root, str(exc))
        name = query.root.name
        if name is None and query.root.hash_prefix:  # `/abc1234`: the spec of the binary with that hash
            name = self._package_of_hash(query.root.hash_prefix)
            if name is None:
                return RootPlan(root.spec, None, BUILD, None, 0, note="no binary of the sources has a hash starting "
                                f"{echo(query.root.hash_prefix)}, or binaries of several packages do")
        if name is None:
            return self._unread(root, "it names no package")
        settings = self.environment.settings(name)
        if settings is not None and settings.external_only:
            if any(_may_serve(external, query.root) for external in settings.externals):
                return RootPlan(root.spec, name, EXTERNAL, None, 0, note="external: buildable: false, with "
                                f"{counted(len(settings.externals), 'external')}")
            return RootPlan(root.spec, name, BUILD, None, 0, note=f"{name} is not buildable (buildable: false) and "
                            f"none of its externals ({', '.join(settings.externals)}) is the root: Spack cannot "
                            "concretize it")
        if name not in self.corpus.package_index:
            return RootPlan(root.spec, name, BUILD, None, 0, note=f"no binary of {name} in the sources")
        parts = [*self._constraint_parts(query, name, root), *self._package_parts(name)]
        scope = self.corpus.package_slice(name)
        serves = np.ones(scope.stop - scope.start, dtype=bool)
        for _, _, holds in parts:
            serves &= holds
        candidates = np.flatnonzero(serves) + scope.start
        if len(candidates):
            first: dict[str, int] = {}  # hash -> its binary in the first tag that holds it
            tags = self.corpus.single["tag"]
            for i in sorted(candidates.tolist(), key=lambda i: self.tag_rank[int(tags[i])]):
                first.setdefault(self.corpus.hashes[i], i)
            return _Serving(root, name, candidates, first)
        note = ""
        if settings is not None and not settings.buildable:
            note = f"{name} is not buildable (buildable: false) and has no external: Spack cannot build it"
        return RootPlan(root.spec, name, BUILD, None, 0, why=self._nearest(parts, scope), note=note)

    def _package_of_hash(self, prefix: str | None) -> str | None:
        """The package of the binaries a bare `/hash` root names (Spack reads `/abc1234` as that spec); None when
        none or several packages have such a hash."""
        if not prefix:
            return None
        corpus = self.corpus
        names = {corpus.packages[int(corpus.package_of[i])] for i in hash_matches(corpus, prefix)}
        return names.pop() if len(names) == 1 else None

    def _unread(self, root: Root, why: str) -> RootPlan:
        said = f"root {echo(root.spec, quoted=True)} is not read as Spack 1.x reads it ({why}): planned as to build"
        self.note(said)
        return RootPlan(root.spec, None, BUILD, None, 0, note=f"not read: {why}")

    def _constraint_parts(self, query: SpecQuery, name: str, root: Root) -> list[Part]:
        """The root's own constraints, one at a time, each where it holds over the package's binaries: a value no
        binary of the package has holds for none."""
        corpus, scope = self.corpus, self.corpus.package_slice(name)
        size = scope.stop - scope.start
        node = query.root
        singles = ([NodeQuery(versions=node.versions)] if node.versions is not None else []) + \
            [NodeQuery(variants=(v,)) for v in node.variants] + [NodeQuery(arch=(a,)) for a in node.arch] + \
            ([NodeQuery(hash_prefix=node.hash_prefix)] if node.hash_prefix else []) + \
            [NodeQuery(compilers=(c,)) for c in node.compilers]
        parts: list[Part] = []
        for single in singles:
            try:
                parts += [(CONSTRAINT, f"the root's {label}", holds)
                          for label, holds in node_parts(corpus, scope, single, Scope(corpus, name))]
            except QueryProblem:
                parts.append((CONSTRAINT, f"the root's {single} (no binary of {name} has it)",
                              np.zeros(size, dtype=bool)))
        for dependency in query.dependencies:
            try:
                parts += [(CONSTRAINT, f"the root's {label}", holds)
                          for label, holds in dependency_parts(corpus, scope, SpecQuery(dependencies=(dependency,)))]
            except NoDependencyData:
                self.note(f"root {echo(root.spec, quoted=True)}: {echo(str(dependency))} is not evaluated: these "
                          "sources record no dependencies")
            except QueryProblem:
                parts.append((CONSTRAINT, f"the root's {dependency} (no recorded dependency is one)",
                              np.zeros(size, dtype=bool)))
        return parts

    def _package_parts(self, name: str) -> list[Part]:
        """The package's rules and the platform, each where it holds over the package's binaries (once per
        package: many roots share one)."""
        found = self._packages.get(name)
        if found is None:
            scope = self.corpus.package_slice(name)
            parts: list[Part] = [(REQUIREMENT, _rule_said(rule), holds)
                                 for section in HOLDING for rule, holds in self.requirements.verdicts(name, section)]
            parts.append((PLATFORM, str(self.arch), self._runs_here(scope)))
            found = self._packages[name] = (parts, self.requirements.preferred(name))
        return found[0]

    def _runs_here(self, scope: slice) -> np.ndarray:
        arch = self.arch
        mask = runs_on_mask(self.corpus, scope, arch.target, arch.platform)
        if arch.os is not None:
            mask &= facet_mask(self.corpus, scope, "os", frozenset({arch.os}))
        return mask

    # -- choosing -------------------------------------------------------------------------------------------

    def _chosen(self, serving: _Serving, complete: dict[int, bool], closures: Closures) -> RootPlan:
        corpus, root, name, first = self.corpus, serving.root, serving.package, serving.first
        preferred = self._packages[name][1]
        start = corpus.package_slice(name).start
        version_of = {i: corpus.value("version", corpus.single["version"][i]) for i in first.values()}
        newest = _newest_first(list(version_of.values()))

        def rank(item: tuple[str, int]) -> tuple[int, int, int, str]:
            hash_, i = item
            closure = 0 if complete[i] else 1 if not closures.recorded(i) else 2
            return closure, -int(preferred[i - start]), newest[version_of[i]], hash_

        hash_, chosen = min(first.items(), key=rank)
        binary = Binary(chosen, hash_, _selecting(corpus, chosen), corpus.value("tag", corpus.single["tag"][chosen]))
        indices = tuple(serving.candidates.tolist())
        if complete[chosen]:
            return RootPlan(root.spec, name, CACHED, binary, len(first), COMPLETE, candidate_indices=indices)
        if not closures.recorded(chosen):
            return RootPlan(root.spec, name, PARTLY, binary, len(first), UNKNOWN, candidate_indices=indices,
                            note="its closure is unknown: its source records no dependencies")
        return RootPlan(root.spec, name, PARTLY, binary, len(first), INCOMPLETE,  # its holes: said in `run`
                        candidate_indices=indices)

    def _nearest(self, parts: list[Part], scope: slice) -> tuple[Exclusion, ...]:
        """The binaries failing the fewest parts (up to NEAREST, newest version first), each with every reason."""
        corpus = self.corpus
        fails = np.zeros(scope.stop - scope.start, dtype=np.int64)
        for _, _, holds in parts:
            fails += ~holds
        nearest = np.flatnonzero(fails == fails.min()) + scope.start
        version_of = {i: corpus.value("version", corpus.single["version"][i]) for i in nearest.tolist()}
        newest = _newest_first(list(version_of.values()))
        first: dict[str, int] = {}
        for i in sorted(version_of, key=lambda i: (newest[version_of[i]], corpus.hashes[i])):
            first.setdefault(corpus.hashes[i], i)
        why = []
        for hash_, i in list(first.items())[:NEAREST]:
            spec = _selecting(corpus, i)
            for category, said, holds in parts:
                if not holds[i - scope.start]:
                    text = self._platform_said(i) if category == PLATFORM else said
                    why.append(Exclusion(hash_, spec, category, text))
        return tuple(why)

    def _platform_said(self, i: int) -> str:
        """What of binary i does not run on the platform: `os ubuntu24.04 (not debian12)`, `target zen4 does not
        run on icelake`."""
        corpus, arch = self.corpus, self.arch
        platform, os_, target = (corpus.value(facet, corpus.single[facet][i]) for facet in ARCH_KEYS)
        said = []
        if platform != arch.platform:
            said.append(f"platform {platform} (not {arch.platform})")
        if arch.os is not None and os_ != arch.os:
            said.append(f"os {os_} (not {arch.os})")
        if not runs_on(target, arch.target):
            said.append(f"target {target} does not run on {arch.target}")
        return "; ".join(said)


def _newest_first(versions: list[str]) -> dict[str, int]:
    """Each version's rank, the newest 0."""
    return {v: rank for rank, v in enumerate(sorted(set(versions), key=version_key, reverse=True))}


def _selecting(corpus: Corpus, i: int) -> str:
    """The spec that selects binary i, as the browser's `common:` line writes it (what `common_to` finds of one
    binary, read off it directly)."""
    spec = corpus.spec(i)
    variants = tuple(str(variant) for text in spec.raw_variants for variant in parse_variants(text))
    return Common(1, spec.package, dict(spec.values), frozenset(), variants).spec_syntax()


def _rule_said(rule: Rule) -> str:
    """`require 'target=x86_64' (packages:all in spack.yaml)`, and its message when it has one."""
    said = f"{rule.section} {echo(rule.text(), quoted=True)} ({rule.where()})"
    return said + (f": {echo(rule.message)}" if rule.message else "")


def _may_serve(external: str, root: NodeQuery) -> bool:
    """Whether an external (its spec as written) could be the root: nothing both state disagrees. One that
    cannot be read is taken to: Spack would say why, not cachetui."""
    try:
        return may_be(parse_spec_query(external).root, root)
    except SpecSyntaxError:
        return True
