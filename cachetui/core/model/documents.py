"""The corpus's documents: one `Document` (a package in a tag, its spec slice), and the table of them as columns.

The builder lays documents out as a `DocumentTable` of lists, the warm cache maps one over its
StringTables; either way a Document is made when one is read, never 50,000 of them up front.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields

import numpy as np

from cachetui.core.model.tables import ReadOnDemand


def mirror_generation(generation: str) -> bool:
    """Whether documents of this generation were read from a mirror's index rather than a site listing."""
    return generation.startswith("mirror")


@dataclass(frozen=True, slots=True)
class Document:
    path: str
    package: str
    tag: str
    title: str
    generation: str
    start: int  # spec slice in the corpus
    stop: int

    @property
    def from_mirror(self) -> bool:
        """Read from a mirror's index (its `path` is the mirror), not from a site listing document."""
        return mirror_generation(self.generation)


# Document's string fields, in order: the columns a DocumentTable (and the warm cache) keeps them in.
DOCUMENT_STRINGS = tuple(f.name for f in fields(Document) if f.type == "str")


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


def listings_and_mirrors(documents: Sequence[Document]) -> tuple[int, int]:
    """How many site listing documents, and how many mirrors (a mirror's index makes a document per package, each
    with the mirror as its path), the documents come from."""
    paths = documents.strings["path"] if isinstance(documents, DocumentTable) else [doc.path for doc in documents]
    mirrors, listings = set(), 0
    for path, generation in zip(paths, generations(documents)):
        if mirror_generation(generation):
            mirrors.add(path)
        else:
            listings += 1
    return listings, len(mirrors)


def generations(documents: Sequence[Document]) -> Sequence[str]:
    """Each document's generation: a table's column as it is (a Document made for each of 50,000 cost 0.1 s of a
    cold load), else read from each document (a served corpus's, say)."""
    if isinstance(documents, DocumentTable):
        return documents.strings["generation"]
    return [doc.generation for doc in documents]
