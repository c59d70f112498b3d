"""A corpus's documents back as the records sources hand over, to rebuild a corpus around changed inputs.

Apart from the corpus: it reads the field registry (which columns documents give) and the dependency
walks, both of which take a corpus, so the corpus itself names neither.
"""

from __future__ import annotations

from cachetui.core.model.corpus import BUILD_PROVENANCE, RAW_VARIANTS, Corpus
from cachetui.core.model.dependencies import dependency_blocks
from cachetui.core.model.documents import Document
from cachetui.core.model.fields import REGISTRY
from cachetui.core.model.records import UNKNOWN_PUSHED, DepBlock, ParsedDocument, SpecColumns


def documents_as_records(corpus: Corpus, indices: list[int]) -> list[ParsedDocument]:
    """Documents `indices` of the corpus as records again.

    Their edges share one table of just the dependencies they name, with the names and
    versions this corpus has for them (never the rest of the vocabulary).
    """
    documents = corpus.documents
    blocks = dependency_blocks(corpus, [(documents[d].start, documents[d].stop) for d in indices])
    return [
        ParsedDocument(doc.path, doc.package, doc.tag, doc.title, doc.generation, _columns(corpus, doc, block))
        for d, block in zip(indices, blocks)
        for doc in [documents[d]]
    ]


def _columns(corpus: Corpus, doc: Document, deps: DepBlock | None) -> SpecColumns:
    indices = range(doc.start, doc.stop)

    def single(facet: str) -> list[str]:
        values = corpus.vocab[facet].values
        return [values[i] for i in corpus.single[facet][doc.start : doc.stop].tolist()]

    def multi(name: str) -> list[tuple[str, ...]]:
        values, column = corpus.vocab[name].values, corpus.multi[name]
        return [tuple(values[v] for v in column.of(i).tolist()) for i in indices]

    read = {lists: single(facet) for facet, lists in REGISTRY.read()}
    ids = corpus.build_provenance[doc.start : doc.stop]
    provenance = [corpus.vocab[BUILD_PROVENANCE].values[i] for i in ids.tolist()] if ids.any() else None
    when = corpus.pushed[doc.start : doc.stop]
    pushed = when.tolist() if (when != UNKNOWN_PUSHED).any() else None
    return SpecColumns(hashes=list(corpus.hashes[doc.start : doc.stop]), variants=multi(RAW_VARIANTS),
                       stacks=multi("stack"), sizes=corpus.size[doc.start : doc.stop].tolist(), deps=deps,
                       build_provenance=provenance, pushed=pushed, **read)
