"""A spack.yaml's `specs:` and `definitions:` expanded into roots, as Spack's SpecList expands them.

- a string is one root; `$name` stands for the items of the definition `name` (`$^name`, `$%name` put `^` or `%`
  before each); a definition may use the ones before it, and a later entry of the same name appends;
- a definition's `when:` is decided where it names only the platform (cachetui.core.spack.conditions): false
  leaves the definition out; one that names anything else is said as not evaluated, and its specs are kept;
- `matrix:` is the product of its rows (a row may hold references and nested matrices, each of whose rows becomes
  one string); a product that states everything some `exclude:` spec states is left out; each root keeps its
  parts, its spec is them joined by one space.

The expansion is bounded (MAX_ROOTS): a few lines of YAML can name a product of billions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import product
from math import prod
from typing import Any

from cachetui.core.model.environment import Root
from cachetui.core.spack.abstract import Incompatible, combined, implies
from cachetui.core.spack.conditions import holds
from cachetui.core.spack.specquery import SpecQuery, SpecSyntaxError, parse_spec_query
from cachetui.core.spack.words import echo

MAX_ROOTS = 100_000  # roots, and items of the definitions, after expansion


class TooLarge(ValueError):
    """The lists expand to more than MAX_ROOTS specs."""


@dataclass(frozen=True)
class Matrix:
    rows: tuple[tuple[Item, ...], ...]
    exclude: tuple[str, ...] = ()
    sigil: str = ""


Item = str | Matrix


class SpecLists:
    """Definitions read in order, then the specs; `note` hears what is not evaluated (each said by its caller)."""

    def __init__(self, names: Mapping[str, str], note: Callable[[str], None]) -> None:
        self.names, self.note = names, note
        self.definitions: dict[str, list[Item]] = {}
        self.unmet: set[str] = set()  # names written only under a `when:` that is false here
        self.budget = MAX_ROOTS

    def define(self, raw: Any) -> None:
        if raw is None:
            return
        if not isinstance(raw, list):
            self.note("definitions: not a list; not read")
            return
        for entry in raw:
            if not isinstance(entry, dict):
                self.note("definitions: an entry is not a mapping of a name to specs; left out")
                continue
            if not self._holds(entry):
                self.unmet.update(str(key) for key in entry if key != "when")
                continue
            for key, value in entry.items():
                name = str(key)
                if name == "when":
                    continue
                self.definitions[name] = self.definitions.get(name, []) + self._items(value, f"definition {name}")

    def _holds(self, entry: dict[Any, Any]) -> bool:
        names = ", ".join(echo(str(k)) for k in entry if k != "when")
        return holds(entry.get("when"), self.names,
                     lambda why: self.note(f"definition {names}: {why}; its specs are planned as if it held"))

    def roots(self, raw: Any) -> list[Root]:
        if raw is None:
            return []
        found = []
        for item in self._items(raw, "specs"):
            if isinstance(item, str):
                found.append(Root(item, (item,)))
            else:
                found.extend(Root(" ".join(parts), parts) for parts in self._combos(item))
            if len(found) > MAX_ROOTS:
                raise TooLarge(f"the specs expand to more than {MAX_ROOTS:,} roots")
        return found

    # -- items ------------------------------------------------------------------------------------------

    def _items(self, raw: Any, where: str) -> list[Item]:
        """A list of specs with its references expanded (nested matrices kept as they are)."""
        if raw is None:
            return []
        if not isinstance(raw, list):
            self.note(f"{where}: not a list of specs; left out")
            return []
        items: list[Item] = []
        for value in raw:
            if value is None:
                continue
            if isinstance(value, str) and value.strip().startswith("$"):
                items.extend(self._referenced(value.strip(), where))
            elif isinstance(value, str):
                items.append(value.strip())
            elif isinstance(value, dict) and "matrix" in value:
                matrix = self._matrix(value, where)
                if matrix is not None:
                    items.append(matrix)
            else:
                self.note(f"{where}: an entry that is neither a spec nor a matrix ({type(value).__name__}); left out")
            self._spend(1)
        return items

    def _referenced(self, reference: str, where: str) -> list[Item]:
        name = reference[1:]
        sigil = name[0] if name[:1] in ("^", "%") else ""
        name = name[len(sigil):]
        if name not in self.definitions:
            self.note(f"{where}: {echo(reference, quoted=True)} " + (
                "names only definitions whose when: is false for this platform (Spack refuses such a reference as "
                "undefined); left out" if name in self.unmet else "names no definition before it; left out"))
            return []
        found = self.definitions[name]
        self._spend(len(found))
        return [sigil + item if isinstance(item, str) else (replace(item, sigil=sigil) if sigil else item)
                for item in found]

    def _matrix(self, value: dict[Any, Any], where: str) -> Matrix | None:
        rows = value.get("matrix")
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows) or not rows:
            self.note(f"{where}: a matrix that is not a list of rows; left out")
            return None
        exclude = value.get("exclude") or []
        if not isinstance(exclude, list) or not all(isinstance(e, str) for e in exclude):
            self.note(f"{where}: a matrix's exclude is not a list of specs; nothing is excluded")
            exclude = []
        return Matrix(tuple(tuple(self._items(row, where)) for row in rows), tuple(exclude))

    def _spend(self, n: int) -> None:
        self.budget -= n
        if self.budget < 0:
            raise TooLarge(f"the definitions and specs expand to more than {MAX_ROOTS:,} specs")

    # -- matrices ---------------------------------------------------------------------------------------

    def _combos(self, matrix: Matrix) -> Iterator[tuple[str, ...]]:
        """Each product of the rows that no exclude states, its first part given the matrix's sigil."""
        rows = [[entry for item in row for entry in self._entries(item)] for row in matrix.rows]
        size = prod(len(row) for row in rows)
        self._spend(size)
        excludes = [query for query in map(self._exclude, matrix.exclude) if query is not None]
        for parts in product(*rows):
            if excludes and self._excluded(parts, excludes):
                continue
            yield ((matrix.sigil + parts[0], *parts[1:]) if matrix.sigil else parts)

    def _entries(self, item: Item) -> list[str]:
        """A row's item: a string, or a nested matrix as one string per product."""
        return [item] if isinstance(item, str) else [" ".join(parts) for parts in self._combos(item)]

    def _exclude(self, text: str) -> SpecQuery | None:
        try:
            return _parsed(text)
        except SpecSyntaxError as exc:
            self.note(f"a matrix's exclude {echo(text, quoted=True)} is not read ({exc.message}); it excludes nothing")
            return None

    @staticmethod
    def _excluded(parts: tuple[str, ...], excludes: list[SpecQuery]) -> bool:
        try:
            whole = combined([_parsed(part) for part in parts])
        except (SpecSyntaxError, Incompatible):
            return False  # kept: the plan says why it cannot read it
        return any(implies(whole, exclude) for exclude in excludes)


@lru_cache(maxsize=4096)
def _parsed(text: str) -> SpecQuery:
    return parse_spec_query(text)
