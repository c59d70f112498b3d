"""One line of context: the corpus, the scope, active filters, and how many specs show."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

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


def render_status(status: Status) -> Text:
    if status.loading:
        return Text("Loading…", style="bold")
    text = Text(no_wrap=True, overflow="ellipsis")
    if status.documents == 0 and status.errors:
        text.append(f"Nothing could be loaded: {status.errors} errors (p shows them)", "bold red")
        return text
    text.append(f"{status.documents} docs · {status.specs} specs · {status.tags} tags", "bold")
    text.append("  │  ")
    text.append(inert(status.package) if status.package else "all packages", "bold")
    for facet, values in status.filters.items():
        text.append(f"  {facet}=", "dim")
        text.append(inert(",".join(sorted(values))))
    text.append(f"  │  {status.shown} of {status.in_scope} specs")
    if status.problems:
        text.append(f"  │  ⚠ {status.problems} problems (p)", "yellow")
    return text


class StatusLine(Static):
    status: reactive[Status] = reactive(Status)

    def watch_status(self, status: Status) -> None:
        self.update(render_status(status))
