"""The corpus's vocabularies over mapped buffers: built as Python objects only when first read.

A warm corpus's vocabularies come from the cache file as StringTables (its documents as a
`DocumentTable` over them, cachetui.core.model.documents); a process that never asks for a
vocabulary's ids (a dict) never builds them. The corpus knows nothing of this: the storage
builds on the corpus's `Vocabulary`, never the other way round.
"""

from __future__ import annotations

from cachetui.core.model.corpus import Vocabulary
from cachetui.core.model.tables import StringTable


class MappedVocabulary(Vocabulary):
    """A Vocabulary read from a StringTable: its values list and ids dict are built on first use."""

    __slots__ = ("_table", "_values", "_ids")

    def __init__(self, table: StringTable) -> None:  # Vocabulary's lists are properties here: not its __init__
        self._table = table
        self._values: list[str] | None = None
        self._ids: dict[str, int] | None = None
        self._growing = False  # a whole load's values already

    @property
    def values(self) -> list[str]:
        if self._values is None:
            self._values = self._table.tolist()
        return self._values

    @values.setter
    def values(self, values: list[str]) -> None:
        self._values = values

    @property
    def ids(self) -> dict[str, int]:
        if self._ids is None:
            self._ids = {value: i for i, value in enumerate(self.values)}
        return self._ids

    @ids.setter
    def ids(self, ids: dict[str, int]) -> None:
        self._ids = ids

    def __len__(self) -> int:
        return len(self._table) if self._values is None else len(self._values)
