"""The corpus's string structures over mapped buffers: built as Python objects only when first read.

A warm corpus's vocabularies and documents come from the cache file as StringTables; a process
that never asks for a vocabulary's ids (a dict), or for document 40,000, never builds them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from cachetui.core.model.corpus import Document, Vocabulary
from cachetui.core.model.tables import ReadOnDemand, StringTable

DOCUMENT_STRINGS = ("path", "package", "tag", "title", "generation")  # Document's string fields, in order


class MappedVocabulary(Vocabulary):
    """A Vocabulary read from a StringTable: its values list and ids dict are built on first use."""

    __slots__ = ("_table", "_values", "_ids")

    def __init__(self, table: StringTable) -> None:  # Vocabulary's lists are properties here: not its __init__
        self._table = table
        self._values: list[str] | None = None
        self._ids: dict[str, int] | None = None

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

    def __reduce__(self) -> tuple[object, ...]:
        return _vocabulary, (self.values,)


def _vocabulary(values: list[str]) -> Vocabulary:
    vocabulary = Vocabulary()
    for value in values:
        vocabulary.intern(value)
    return vocabulary


class DocumentTable(ReadOnDemand[Document]):
    """The corpus's documents as columns (strings, spec slices); a Document is made when one is read.

    Mapped from the warm cache (StringTables) or laid out by the builder (lists of strings).
    """

    __slots__ = ("strings", "start", "stop")

    def __init__(self, strings: dict[str, Sequence[str]], start: np.ndarray, stop: np.ndarray) -> None:
        self.strings = strings  # one column per DOCUMENT_STRINGS
        self.start, self.stop = start, stop

    def __len__(self) -> int:
        return len(self.start)

    def _item(self, i: int) -> Document:
        path, package, tag, title, generation = (self.strings[name][i] for name in DOCUMENT_STRINGS)
        return Document(path, package, tag, title, generation, int(self.start[i]), int(self.stop[i]))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DocumentTable | list | tuple):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list, so unhashable like one

    def __iter__(self) -> Iterator[Document]:
        columns = [list(self.strings[name]) for name in DOCUMENT_STRINGS]
        return map(Document, *columns, self.start.tolist(), self.stop.tolist())
