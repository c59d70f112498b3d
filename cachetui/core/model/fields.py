"""The fields of a spec, each declared once: every list of fields elsewhere is a view of this registry.

A field says what it is in each place it shows: a facet (read from documents, several values a
spec, or worked out over the whole load), a `query` option, a JSON/CSV field, a table column (its
bounds and its turn when space is short), how the differs cell spells it, how the table sorts by
it. Views keep the order a user reads each place in; every place has its own, so each field carries
its position in it (`at`). A view is read at each use (`RegistryView`, `RegistryLookup`), so a field registered
later (a test's, an extension's) shows everywhere at once.

Adding a field: one `Field` here. A facet read from documents also names the `SpecColumns` list it
is read from (`read`); one worked out over the load names what works it out (`Derivation`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from cachetui.core.model.freshness import PUSHED_VALUES, SEEN, SINCE_VALUES, pushed_column, since_column
from cachetui.core.model.freshness import UNKNOWN as UNKNOWN_PUSHED
from cachetui.core.model.installable import UNKNOWN as UNKNOWN_INSTALLABLE
from cachetui.core.model.installable import VALUES as INSTALLABLE_VALUES
from cachetui.core.model.installable import YES, installable_column
from cachetui.core.model.records import SpecColumns

if TYPE_CHECKING:  # only named: the registry loads no corpus (nor numpy: the settings read it before a first frame)
    import numpy as np

    from cachetui.core.model.corpus import Corpus

T = TypeVar("T")

SINGLE = "single"  # one value a spec, read from its document
MULTI = "multi"  # several values a spec (CSR columns)
DERIVED = "derived"  # one value a spec, worked out over the whole load once it is built

# How the table sorts by a column (cachetui.core.query.sorting reads these).
BY_VALUES = "values"  # the facet's values in reading order (versions the Spack way)
BY_PACKAGE, BY_HASH, BY_SIZE = "package", "hash", "size"
BY_VARIANTS = "variants"  # alike configurations side by side
BY_COUNT = "count"  # how many values a spec has
BY_PUSHED = "pushed"  # when it was pushed: oldest or newest first, unknown last either way


@dataclass(frozen=True)
class Derivation:
    """A facet worked out over the whole load: its values (ids in this order), and the function giving
    each spec's value id (`CorpusBuilder.finish` calls it once the rest of the corpus is built)."""

    values: tuple[str, ...]
    column: Callable[[Corpus], np.ndarray]


@dataclass(frozen=True)
class Facet:
    kind: str  # SINGLE, MULTI or DERIVED
    title: str  # the facet panel's heading
    at: int  # its place among the facets (the panel, the counts)
    read: str = ""  # SINGLE: the SpecColumns list documents give it in ("" for the two the builder makes)
    derive: Derivation | None = None  # DERIVED: what works it out
    # Its values are releases with an order of their own, read newest first (versions the Spack way, tags in
    # site order): the panel lists them so rather than by count, and the table sorts by that order.
    dated: bool = False
    # DERIVED from the moment of the load or what the user has seen, not from documents alone: worked out again at
    # every load, warm or cold (cachetui.core.model.moment.at_load), never taken from the warm cache as it was.
    each_load: bool = False
    # The value that, when every spec has it, says nothing about any (`unknown` where no source records it): the
    # facet panel leaves the facet out then.
    quiet: str = ""


@dataclass(frozen=True)
class Option:
    """`cachetui query --NAME` (the field's name; repeated: OR)."""

    help: str
    at: int  # its place in `--help`
    const: str | None = None  # the value the option means when given alone (`--installable`)
    choices: tuple[str, ...] | None = None  # the only values it takes (else any, resolved in the corpus)


@dataclass(frozen=True)
class Output:
    """A field of `query --format json` records and of CSV rows (and the text table)."""

    name: str
    at: int


@dataclass(frozen=True)
class Column:
    """A column of the spec table, in the registry's order; what `cachetui.present.spec_table.table_layout` lays out."""

    key: str
    title: str
    priority: int  # lower stays longer when the pane is narrow
    min_width: int
    max_width: int
    flexible: bool = False  # cut short (down to min_width, cells marked …) rather than dropped when space is short
    middle: bool = False  # cut in the middle, not at the end: names of one family differ at their end
    opaque: bool = False  # tells every row apart and says nothing about any (a hash): never what tells rows apart
    hidden: bool = False  # hidden until the user shows it (`v`, the `hidden_columns` setting)


@dataclass(frozen=True)
class Spelling:
    """The field said inside the differs cell, in spec syntax, when its own column has no room."""

    text: str  # a format: "@{}"
    at: int


@dataclass(frozen=True)
class Field:
    name: str  # the corpus's name for it (its vocabulary and column), a facet's and an option's name
    facet: Facet | None = None
    option: Option | None = None
    output: Output | None = None
    column: Column | None = None
    spelling: Spelling | None = None
    sort: str = ""  # BY_…: how the table sorts by its column; "" when it does not
    architecture: bool = False  # a part of Spack's platform-os-target
    configuration: bool = False  # what tells two builds of a package apart in a diff: version, compiler, arch
    compiler: bool = False  # its values are compilers: typed under either of a compiler's names, said as %name

    @property
    def key(self) -> str:
        """Its column's key, else its name (what the table, its sort and its spelling call it)."""
        return self.column.key if self.column is not None else self.name


BUILTIN = (
    Field("change", column=Column("change", "change", 0, 9, 9)),
    Field("package", output=Output("package", 0), sort=BY_PACKAGE,
          column=Column("package", "package", 0, 8, 28, flexible=True, middle=True)),  # the package list shows it whole
    Field("hash", output=Output("hash", 2), column=Column("hash", "hash", 0, 7, 7, opaque=True), sort=BY_HASH),
    Field("version", Facet(SINGLE, "Version", 1, read="versions", dated=True),
          Option("a version as Spack reads @: 1.14 (1.14 to 1.14.x), 1.12:1.14, =1.14.3", 1),
          Output("version", 3), Column("version", "version", 1, 7, 12), Spelling("@{}", 0), BY_VALUES,
          configuration=True),
    Field("compiler", Facet(SINGLE, "Compiler", 2, read="compilers"),
          Option("gcc (every gcc), gcc@13 (13 to 13.x), gcc@=13.2.0; old and new names are one compiler", 2),
          Output("compiler", 4), Column("compiler", "compiler", 2, 8, 18), Spelling("%{}", 1), BY_VALUES,
          configuration=True, compiler=True),
    Field("compiler_name", Facet(SINGLE, "Compiler name", 3), compiler=True),  # the builder takes it from the compiler
    Field("differs", column=Column("differs", "differs", 1, 6, 24, flexible=True),  # as wide as its variants need
          sort=BY_VARIANTS),
    Field("platform", Facet(SINGLE, "Platform", 4, read="platforms"), Option("linux, darwin, …", 3),
          Output("platform", 5), Column("platform", "platform", 8, 6, 8), Spelling("platform={}", 2), BY_VALUES,
          architecture=True, configuration=True),
    Field("os", Facet(SINGLE, "OS", 5, read="oss"), Option("ubuntu22.04, rhel8, …", 4),
          Output("os", 6), Column("os", "os", 5, 6, 12), Spelling("os={}", 3), BY_VALUES,
          architecture=True, configuration=True),
    Field("target", Facet(SINGLE, "Target", 6, read="targets"),
          Option("a microarchitecture (zen3) or a range (x86_64_v3: is it and every descendant)", 5),
          Output("target", 7), Column("target", "target", 4, 6, 12), Spelling("target={}", 4), BY_VALUES,
          architecture=True, configuration=True),
    Field("stack", Facet(MULTI, "Stack", 7),
          Option("a stack of an index of indexes, e.g. e4s (root is the whole tag, not a stack)", 6),
          Output("stacks", 9), Column("stacks", "stacks", 9, 8, 28), Spelling("stacks={}", 6), BY_COUNT),
    Field("variant", Facet(MULTI, "Variant", 11),
          Option("+mpi, ~cuda, cuda_arch=80 (has 80), cuda_arch=80,90 (has both)", 7),
          Output("variants", 8),  # "differs" and the common line above say them without repeats
          Column("variants", "variants", 10, 10, 60, flexible=True, hidden=True), sort=BY_VARIANTS),
    Field("size", output=Output("size", 10), column=Column("size", "size", 7, 8, 9), sort=BY_SIZE),
    # When its storage says it was pushed: a moment in outputs, the column and the details; the facet says how long
    # before the load (last day, week, month, older), so it is worked out at each load. Hidden at first: most
    # sources do not say.
    Field("pushed", Facet(DERIVED, "Pushed", 9, derive=Derivation(PUSHED_VALUES, pushed_column), dated=True,
                          each_load=True, quiet=UNKNOWN_PUSHED),
          output=Output("pushed", 12), column=Column("pushed", "pushed", 7, 16, 16, hidden=True), sort=BY_PUSHED),
    # New since the user last looked (`Corpus.new`, kept by each load): nothing to say when nothing is new.
    Field("since", Facet(DERIVED, "Since your last look", 10, derive=Derivation(SINCE_VALUES, since_column),
                         dated=True, each_load=True, quiet=SEEN)),
    Field("installable", Facet(DERIVED, "Installable from the cache", 8,
                               derive=Derivation(INSTALLABLE_VALUES, installable_column),
                               quiet=UNKNOWN_INSTALLABLE),  # site documents record no dependencies
          Option("yes (the default): its link/run dependencies, at any depth, are all held by the loaded "
                 "sources, so `spack install --use-buildcache only` can fetch it; no; unknown (site documents)", 8,
                 const=YES, choices=INSTALLABLE_VALUES),
          Output("installable", 11), Column("installable", "cache-only", 3, 10, 10)),
    Field("tag", Facet(SINGLE, "Tag", 0, dated=True),  # the builder takes it from the document
          Option("a tag (snapshot) of the sources, e.g. develop", 0), Output("tag", 1),
          Column("tag", "tag", 6, 7, 18, flexible=True, middle=True),  # develop-2025-04-20: kept apart at the end
          Spelling("tag={}", 5), BY_VALUES),
    Field("dependencies", spelling=Spelling("{}", 7)),  # ^zlib@1.3.1/abc1234 (see present/spec_table/table_plan.py)
)


class Registry:
    """The fields, in the table's column order, and the views every other module reads."""

    def __init__(self, declared: Sequence[Field]) -> None:
        self._fields = tuple(declared)
        self._views: dict[str, Any] = {}

    @property
    def fields(self) -> tuple[Field, ...]:
        return self._fields

    def register(self, field: Field) -> None:
        """Add a field (after the others in the table); every view shows it from now on."""
        if field.name in self.named:
            raise ValueError(f"a field named {field.name!r} is already registered")
        _check(field)
        if field.facet is not None and field.facet.kind == SINGLE and not field.facet.read:
            raise ValueError(f"field {field.name!r}: a facet read from documents names the SpecColumns list")
        self._fields += (field,)
        self._views.clear()

    def unregister(self, name: str) -> None:
        self._fields = tuple(f for f in self._fields if f.name != name)
        self._views.clear()

    @property
    def named(self) -> dict[str, Field]:
        return self._view("named", lambda: {f.name: f for f in self._fields})

    @property
    def keyed(self) -> dict[str, Field]:
        """Fields by the key the table, its sort and its spelling know them by (`stacks` for the stack facet)."""
        return self._view("keyed", lambda: {f.key: f for f in self._fields})

    def _view(self, name: str, make: Callable[[], Any]) -> Any:
        if name not in self._views:
            self._views[name] = make()
        return self._views[name]

    def _facet_names(self, *kinds: str) -> tuple[str, ...]:
        return tuple(f.name for f in self.facet_fields() if f.facet is not None and f.facet.kind in kinds)

    def facet_fields(self) -> tuple[Field, ...]:
        """The facets in the order a user reads them."""
        return self._view("facet_fields", lambda: tuple(sorted(
            (f for f in self._fields if f.facet is not None), key=lambda f: f.facet.at if f.facet else 0)))

    def facets(self) -> tuple[str, ...]:
        return self._view("facets", lambda: tuple(f.name for f in self.facet_fields()))

    def facet_titles(self) -> dict[str, str]:
        """Facet -> the facet panel's heading for it."""
        return self._view("facet_titles", lambda: {f.name: f.facet.title for f in self.facet_fields() if f.facet})

    def single(self) -> tuple[str, ...]:
        """Facets with one value a spec read from documents."""
        return self._view("single", lambda: self._facet_names(SINGLE))

    def multi(self) -> tuple[str, ...]:
        return self._view("multi", lambda: self._facet_names(MULTI))

    def derived(self) -> tuple[tuple[str, Derivation], ...]:
        """Facets worked out over the whole load, each with what works it out."""
        return self._view("derived", lambda: tuple((f.name, f.facet.derive) for f in self.facet_fields()
                                                    if f.facet is not None and f.facet.derive is not None))

    def read(self) -> tuple[tuple[str, str], ...]:
        """(facet, the SpecColumns list it is read from) of every single facet documents give."""
        return self._view("read", lambda: tuple((f.name, f.facet.read) for f in self._fields
                                                if f.facet is not None and f.facet.read))

    def options(self) -> tuple[Field, ...]:
        """Fields `query` filters by, in `--help` order."""
        return self._view("options", lambda: tuple(sorted((f for f in self._fields if f.option is not None),
                                                          key=lambda f: f.option.at if f.option else 0)))

    def outputs(self) -> dict[str, str]:
        """The fields of JSON records and CSV rows, in their order: output name -> the field's name."""
        def make() -> dict[str, str]:
            placed = sorted((f.output.at, f.output.name, f.name) for f in self._fields if f.output is not None)
            return {output: name for _, output, name in placed}

        return self._view("outputs", make)

    def columns(self) -> tuple[Column, ...]:
        return self._view("columns", lambda: tuple(f.column for f in self._fields if f.column is not None))

    def column_keys(self) -> dict[str, Column]:
        return self._view("column_keys", lambda: {column.key: column for column in self.columns()})

    def spellings(self) -> dict[str, str]:
        """Key -> how the differs cell spells it, in the order the cell says them."""
        def make() -> dict[str, str]:
            spelled = [(f.spelling.at, f.key, f.spelling.text) for f in self._fields if f.spelling is not None]
            return {key: text for _, key, text in sorted(spelled)}

        return self._view("spellings", make)

    def sorts(self) -> tuple[tuple[str, str], ...]:
        """(column key, BY_…) of every column the table sorts by."""
        return self._view("sorts", lambda: tuple((f.key, f.sort) for f in self._fields if f.sort))

    def shown(self, *kinds: str) -> tuple[str, ...]:
        """Facets of these kinds that are also table columns (keyed by the facet's name), in the table's order."""
        return self._view(f"shown {kinds}", lambda: tuple(
            f.name for f in self._fields if f.column is not None and f.facet is not None and f.facet.kind in kinds))

    def marked(self, flag: str) -> tuple[str, ...]:
        """Names of the fields with a flag set (`architecture`, `configuration`, `compiler`), in registry order."""
        return self._view(flag, lambda: tuple(f.name for f in self._fields if getattr(f, flag)))

    def facets_marked(self, flag: str) -> tuple[str, ...]:
        """Names of the facets whose `Facet` has a flag set (`dated`), in the order a user reads them."""
        return self._view(f"facet {flag}", lambda: tuple(f.name for f in self.facet_fields()
                                                         if f.facet is not None and getattr(f.facet, flag)))

    def columns_marked(self, flag: str) -> tuple[str, ...]:
        """Keys of the columns whose `Column` has a flag set (`middle`, `opaque`), in the table's order."""
        return self._view(f"column {flag}", lambda: tuple(c.key for c in self.columns() if getattr(c, flag)))


_LISTS = frozenset(f.name for f in fields(SpecColumns))


def _check(field: Field) -> None:
    """A field's declaration holds together: its facet reads a list documents have, or says how it is worked out."""
    facet = field.facet
    if facet is None:
        return
    if facet.read and facet.read not in _LISTS:
        raise ValueError(f"field {field.name!r} reads {facet.read!r}, which SpecColumns does not have")
    if (facet.kind == DERIVED) != (facet.derive is not None):
        raise ValueError(f"field {field.name!r}: a derived facet, and only it, says how it is worked out")
    if facet.each_load and facet.kind != DERIVED:
        raise ValueError(f"field {field.name!r}: only a derived facet is worked out again at each load")


for _declared in BUILTIN:
    _check(_declared)

REGISTRY = Registry(BUILTIN)


class RegistryView(Sequence[T], Generic[T]):
    """A view of the registry read afresh at each use: a module-level name others import stays current."""

    def __init__(self, make: Callable[[], Sequence[T]]) -> None:
        self._make = make

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...
    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        return self._make()[index]

    def __len__(self) -> int:
        return len(self._make())

    def __iter__(self) -> Iterator[T]:
        return iter(self._make())

    def __repr__(self) -> str:
        return repr(tuple(self._make()))


class RegistryLookup(Mapping[str, T], Generic[T]):
    """A mapping built from the registry at each use (see RegistryView)."""

    def __init__(self, make: Callable[[], Mapping[str, T]]) -> None:
        self._make = make

    def __getitem__(self, key: str) -> T:
        return self._make()[key]

    def __len__(self) -> int:
        return len(self._make())

    def __iter__(self) -> Iterator[str]:
        return iter(self._make())
