"""What a served session (`cachetui serve`) is told, and how it names sources to its visitors.

A visitor of the web page is not the server's user: the page and every screen name each
source by its label (`NAME=SOURCE`, else the last part of its location) and never show the
server's file-system paths. A session learns its sources from `ServeConfig`, handed over in
the environment rather than on textual-serve's shell command line, so a source name is
never shell syntax.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace

from cachetui.core.load import BinaryProvenance, LoadOptions, Provenance, local_input, local_location, source_label
from cachetui.core.model.corpus import Corpus, Document
from cachetui.core.model.problems import LoadReport
from cachetui.core.model.records import MirrorOrigin
from cachetui.core.model.tables import ReadOnDemand
from cachetui.core.query.spack_commands import mirror_of, without_credentials
from cachetui.present.browse.answer import file_safe
from cachetui.present.output.export import FORMATS as EXPORT_FORMATS

ENVIRONMENT = "CACHETUI_SERVED"
# An absolute path with at least two parts, not inside a URL (`https://h/x`) nor a word (`and/or`).
# One part alone (`/abc1234`) is left: it is how a hash prefix is written.
_PATH = re.compile(r"(?<![\w:/.~])~?/[^\s/'\"]+(?:/[^\s'\"]*)+")


@dataclass(frozen=True)
class ServeConfig:
    """Everything a served session needs, as JSON in one environment variable."""

    inputs: list[str]
    load: LoadOptions = LoadOptions()  # frozen: one shared default is safe
    mirror_urls: dict[str, str] = field(default_factory=dict)  # label -> URL for a source read from a local path
    # Browsers open their clipboard to a page only on https or localhost; each session is told which it is.
    browser_clipboard: bool = True
    server_pid: int | None = None  # the session's parent: it ends when that process does

    def to_environment(self) -> dict[str, str]:
        return {ENVIRONMENT: json.dumps(asdict(self))}

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> ServeConfig:
        """Raises KeyError when the variable is absent, ValueError (or TypeError) when it is not ours."""
        data = json.loads(environ[ENVIRONMENT])
        if not isinstance(data, dict):
            raise ValueError(f"{ENVIRONMENT} is not a JSON object")
        return cls(**{**data, "load": LoadOptions(**data.get("load", {}))})


def secure_context(url: str) -> bool:
    """Whether a browser treats a page at `url` as a secure context (https, or this machine): only then
    does it let the page write to the clipboard, which OSC 52 copies need."""
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme in ("https", "wss") or host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def source_labels(inputs: Sequence[str]) -> list[str]:
    """One label per input, made unique (`mirror`, `mirror-2`) so each names one source."""
    labels: list[str] = []
    for typed in inputs:
        label, n = source_label(typed), 1
        while label in labels:
            n += 1
            label = f"{source_label(typed)}-{n}"
        labels.append(label)
    return labels


class Labels:
    """Turns the server's paths into labels: `/srv/caches/site/develop/x/specs.md` -> `site/develop/x/specs.md`."""

    def __init__(self, inputs: Sequence[str]) -> None:
        roots: dict[str, str] = {}
        for typed, label in zip(inputs, source_labels(inputs)):
            path = local_input(typed)
            if path is None:
                continue
            for spelling in (os.path.abspath(path), os.path.realpath(path)):
                roots.setdefault(spelling.rstrip(os.sep) or os.sep, label)
        self._roots = sorted(roots.items(), key=lambda item: len(item[0]), reverse=True)  # the deepest root wins

    def is_local(self, location: str) -> bool:
        return local_location(location) is not None

    def path(self, location: str) -> str:
        """A location as a visitor sees it: a local path under its source's label, a URL without credentials."""
        local = local_location(location)
        if local is None:
            return without_credentials(location)
        path, hash_mark, fragment = local.partition("#")
        absolute = os.path.abspath(path)
        for root, label in self._roots:
            if absolute == root or absolute.startswith(root.rstrip(os.sep) + os.sep):
                rest = absolute[len(root):].lstrip(os.sep)
                return (f"{label}/{rest}" if rest else label) + hash_mark + fragment
        return os.path.basename(absolute.rstrip(os.sep)) + hash_mark + fragment  # outside every source: its last part

    def text(self, text: str) -> str:
        """A message with every server path in it replaced: a source's root by its label, any other by `…/last`."""
        for root, label in self._roots:
            if root != os.sep:  # a whole root only: `/srv/a` is not the start of `/srv/ab`
                text = re.sub(re.escape(root) + r"(?=[/\s:'\",;)]|$)", label.replace("\\", "\\\\"), text)
        return _PATH.sub(lambda m: "…/" + os.path.basename(m.group(0).rstrip("/")), text)


def served_corpus(corpus: Corpus, labels: Labels,
                  mirror_urls: Mapping[str, str]) -> tuple[Corpus, Mapping[Document, MirrorOrigin | None]]:
    """The corpus as visitors see it (paths as labels), and the mirror each document's copy menu names.

    A mirror read from a local path is the server's, not the visitor's: its `spack mirror add`
    line uses the URL given for its label (`--mirror-url LABEL=URL`), or is left out. Every
    mirror is offered with `spack mirror add`: the server's Spack knowing it says nothing of
    the visitor's. Both are worked out for a document when it is read, not for every document
    up front: a whole site's 50,000 cost each visitor's session 0.8 s and 40 MB, most never shown.
    """
    documents = ServedDocuments(corpus.documents, labels)
    problems = [replace(p, path=labels.text(labels.path(p.path)) if labels.is_local(p.path) else labels.text(p.path),
                        reason=labels.text(p.reason)) for p in corpus.report.problems]
    report = replace(corpus.report, problems=problems) if isinstance(corpus.report, LoadReport) else corpus.report
    # Each document's mirror, under the path the visitor sees: signatures are checked as in a terminal.
    stores = {labels.path(path): store for path, store in corpus.stores.items()}
    shown_corpus = replace(corpus, documents=documents, report=report, origins={}, stores=stores, memo={})
    return shown_corpus, ServedOrigins(corpus, documents, labels, mirror_urls)


class ServedDocuments(ReadOnDemand[Document]):
    """A corpus's documents with their paths as labels, each made when read."""

    def __init__(self, documents: Sequence[Document], labels: Labels) -> None:
        self._documents, self._labels = documents, labels

    def __len__(self) -> int:
        return len(self._documents)

    def _item(self, i: int) -> Document:
        return self._shown(self._documents[i])

    def __iter__(self) -> Iterator[Document]:
        return map(self._shown, self._documents)

    def _shown(self, document: Document) -> Document:
        return replace(document, path=self._labels.path(document.path))


class ServedOrigins(Mapping[Document, "MirrorOrigin | None"]):
    """Shown document -> the mirror its copy menu names for a visitor, worked out when asked.

    The server's document is found by the specs' slice, which the shown one keeps (a label cannot be
    turned back into a path): only a document with specs has a copy menu.
    """

    def __init__(self, corpus: Corpus, shown: ServedDocuments, labels: Labels, mirror_urls: Mapping[str, str]
                 ) -> None:
        self._corpus, self._shown, self._labels, self._urls = corpus, shown, labels, mirror_urls

    def __getitem__(self, shown: Document) -> MirrorOrigin | None:
        corpus = self._corpus
        if not 0 <= shown.start < shown.stop <= corpus.n_specs:
            raise KeyError(shown)
        document = corpus.documents[int(corpus.document_of[shown.start])]
        if (document.start, document.stop) != (shown.start, shown.stop):
            raise KeyError(shown)
        return _visitor_origin(mirror_of(document, corpus.origins), self._labels, self._urls, shown)

    def __iter__(self) -> Iterator[Document]:
        return iter(self._shown)

    def __len__(self) -> int:
        return len(self._shown)


class ServedProvenance(Provenance):
    """Provenance read from the server's own locations, told in the visitor's words: where a record was
    looked for, and a reason that names a location, say its source's label, never the server's path."""

    def __init__(self, corpus: Corpus, labels: Labels) -> None:
        super().__init__(corpus)
        self._labels = labels

    def binary(self, spec: int) -> BinaryProvenance:
        found = super().binary(spec)
        signature = replace(found.signature, reason=self._labels.text(found.signature.reason))
        record = None if found.record is None else self._labels.text(self._labels.path(found.record))
        return replace(found, signature=signature, record=record)


def _visitor_origin(origin: MirrorOrigin | None, labels: Labels, mirror_urls: Mapping[str, str],
                    shown: Document) -> MirrorOrigin | None:
    if origin is None:
        return None
    if labels.is_local(origin.url):
        label = shown.path.partition("/")[0].partition("#")[0]
        url = mirror_urls.get(label) or mirror_urls.get(origin.name)
        return None if url is None else MirrorOrigin(origin.name, url, False)
    return origin._replace(configured=False)


class DownloadRefused(Exception):
    """Not a name a download can have; the message says why."""


def download_name(typed: str) -> str:
    """The name a visitor's download gets: a file name only, of plain characters, ending .csv or .json.

    A directory part is refused rather than dropped: the visitor should not think it is a place
    on the server. Other characters become `_`: the name travels in an HTTP header.
    """
    name = typed.strip()
    if not name:
        raise DownloadRefused("type a file name")
    if "/" in name or "\\" in name or name in (".", ".."):
        raise DownloadRefused("a file name only: the file downloads in your browser, never onto the server")
    name = file_safe(name).lstrip(".") or "cachetui"
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem or suffix.lower() not in EXPORT_FORMATS:
        name += "." + EXPORT_FORMATS[0]
    return name
