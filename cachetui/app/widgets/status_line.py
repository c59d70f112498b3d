"""One line of context: the corpus, the scope, active filters, and how many specs show."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.documents import listings_and_mirrors
from cachetui.core.query.query import Query
from cachetui.present.browse.answer import runs_on_text
from cachetui.present.format import counted, problems_said
from cachetui.present.inert import inert


@dataclass(frozen=True)
class Status:
    documents: int = 0  # site listing documents
    mirrors: int = 0  # mirrors (their indexes), not counted among the documents
    specs: int = 0
    tags: int = 0
    package: str | None = None
    filters: Mapping[str, frozenset[str]] = field(default_factory=dict)
    shown: int = 0
    in_scope: int = 0
    problems: int = 0
    errors: int = 0
    loading: bool = True
    spec: str | None = None  # the spec query as understood (printed back from its parse)
    runs_on: str | None = None
    busy: bool = False  # a newer answer is being computed
    spec_names_package: bool = False
    compare: str | None = None  # "old → new: +added −removed =kept" in compare mode
    problems_key: str = "p"  # the key that lists the problems, as the user bound it
    among: str | None = None  # the rows are only some specs: what they are ("candidates for hdf5 (plan)")
    news: str | None = None  # what is new since the last look, what a reload changed (`present.browse.news`)
    glance: str | None = None  # while loading after a glance: what it shows (`present.browse.glance`)


def status_of(corpus: Corpus, query: Query, shown: int, compare: str | None, problems_key: str,
              among: str | None = None, news: str | None = None) -> Status:
    """What the status line says about an answer to `query` showing `shown` specs."""
    scope = corpus.package_slice(query.package)
    listings, mirrors = corpus.memoised("listings-and-mirrors", partial(listings_and_mirrors, corpus.documents))
    return Status(documents=listings, mirrors=mirrors, specs=corpus.n_specs, tags=len(corpus.tags),
                  package=query.package, filters=query.active(), shown=shown, in_scope=scope.stop - scope.start,
                  problems=len(corpus.report.problems), errors=len(corpus.report.errors), loading=False,
                  spec=str(query.spec) if query.spec is not None else None, runs_on=runs_on_text(query.runs_on),
                  spec_names_package=query.spec is not None and query.spec.root.name == query.package,
                  compare=compare, problems_key=problems_key, among=among, news=news)


def render_status(status: Status) -> Text:
    if status.loading:
        return Text(status.glance or "Loading…", style="bold", no_wrap=True, overflow="ellipsis")
    text = Text(no_wrap=True, overflow="ellipsis")
    if status.documents == 0 and status.mirrors == 0 and status.errors:
        key = inert(status.problems_key)
        text.append(f"Nothing could be loaded: {counted(status.errors, 'error')} ({key} shows them)", "bold red")
        return text
    # Most telling first, so a narrow terminal cuts the corpus summary, not the answer. Two spaces
    # between parts, none before the first: a filter's values and the spec never read as one word.
    gap = ""
    if status.among:  # before the package: what the rows are is what tells most
        text.append(inert(status.among), "bold magenta")
        gap = "  "
    if not status.spec_names_package:  # `spec: hdf5@1.14 +mpi` says the package already
        text.append(gap + (inert(status.package) if status.package else "all packages"), "bold")
        gap = "  "
    if status.compare:
        text.append(f"{gap}comparing ", "dim")
        text.append(inert(status.compare), "bold magenta")
        gap = "  "
    for facet, values in status.filters.items():
        if status.compare and facet == "tag":
            continue  # the two tags compared, said above
        text.append(f"{gap}{facet}=", "dim")
        text.append(inert(",".join(sorted(values))))
        gap = "  "
    if status.spec:
        text.append(f"{gap}spec: ", "dim")
        text.append(inert(status.spec), "bold")
        gap = "  "
    if status.runs_on:
        text.append(f"{gap}{inert(status.runs_on)}", "bold green")
    text.append(f"  │  {status.shown} of {status.in_scope} specs", "bold")
    if status.busy:
        text.append(" (updating…)", "dim")
    if status.problems:
        text.append(f"  │  {problems_said(status.problems, status.problems_key)}", "yellow")
    if status.news:  # after the problems: a narrow terminal cuts what is new, never that something went wrong
        text.append(f"  │  {inert(status.news)}", "bold green")
    sources = [counted(status.documents, "doc")] if status.documents or not status.mirrors else []
    sources += [counted(status.mirrors, "mirror")] if status.mirrors else []
    text.append("  │  " + " · ".join([*sources, counted(status.specs, "spec"), counted(status.tags, "tag")]), "dim")
    return text


class StatusLine(Static):
    status: reactive[Status] = reactive(Status)

    def watch_status(self, status: Status) -> None:
        self.update(render_status(status), layout=False)  # one line high whatever it says: no screen layout
