"""One line of context: the corpus, the scope, active filters, and how many specs show."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from cachetui.present.format import counted
from cachetui.present.inert import inert


@dataclass(frozen=True)
class Status:
    documents: int = 0
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


def render_status(status: Status) -> Text:
    if status.loading:
        return Text("Loading…", style="bold")
    text = Text(no_wrap=True, overflow="ellipsis")
    if status.documents == 0 and status.errors:
        text.append(f"Nothing could be loaded: {status.errors} errors (p shows them)", "bold red")
        return text
    # Most telling first, so a narrow terminal cuts the corpus summary, not the answer.
    named = status.spec_names_package  # `spec: hdf5@1.14 +mpi` says the package already
    if not named:
        text.append(inert(status.package) if status.package else "all packages", "bold")
    if status.compare:
        text.append("  comparing ", "dim")
        text.append(inert(status.compare), "bold magenta")
    for facet, values in status.filters.items():
        if status.compare and facet == "tag":
            continue  # the two tags compared, said above
        text.append(f"  {facet}=", "dim")
        text.append(inert(",".join(sorted(values))))
    if status.spec:
        text.append("  spec: " if not named else "spec: ", "dim")
        text.append(inert(status.spec), "bold")
    if status.runs_on:
        text.append(f"  {inert(status.runs_on)}", "bold green")
    text.append(f"  │  {status.shown} of {status.in_scope} specs", "bold")
    if status.busy:
        text.append(" (updating…)", "dim")
    if status.problems:
        text.append(f"  │  ⚠ {status.problems} problems (p)", "yellow")
    corpus = f"{status.documents} docs · {counted(status.specs, 'spec')} · {counted(status.tags, 'tag')}"
    text.append(f"  │  {corpus}", "dim")
    return text


class StatusLine(Static):
    status: reactive[Status] = reactive(Status)

    def watch_status(self, status: Status) -> None:
        self.update(render_status(status), layout=False)  # one line high whatever it says: no screen layout
