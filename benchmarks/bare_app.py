"""The least a Textual browser could do: the floor that key and first-frame times are read against.

    .venv/bin/python benchmarks/bare_app.py [NAMES_FILE]

As the performance issue describes it: an Input, a "N of M names" status line, two Statics and a Footer, fed from
a file of the corpus's package names (one a line; none given: no names). A key typed filters the names (a plain
substring test) and redraws the status line and a Static; a cursor key redraws both Statics, as a table and its
details do. Run by benchmarks/pty_keys.py and benchmarks/first_line.py beside cachetui, in the same run, so that
times are read as ratios to this floor rather than as absolute figures on a shared machine.
"""

from __future__ import annotations

import sys

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Input, Static


class BareApp(App[None]):
    CSS = "Static { height: 1fr; } #status { height: 1; }"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit")]

    def __init__(self, names: list[str]) -> None:
        super().__init__()
        self.names = names

    def compose(self) -> ComposeResult:
        yield Static(f"{len(self.names)} of {len(self.names)} names", id="status")
        yield Input(id="line")
        yield Static("ready\n" + "\n".join(self.names[:50]), id="top")
        yield Static("", id="bottom")
        yield Footer()

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        if key in ("down", "pagedown"):  # a cursor key: both panes change, as a table and its details do
            self.query_one("#top", Static).update(f"moved {key} " * 20)
            self.query_one("#bottom", Static).update(f"details for {key} " * 20)

    def on_input_changed(self, event: Input.Changed) -> None:
        found = [name for name in self.names if event.value in name]
        self.query_one("#status", Static).update(f"{len(found)} of {len(self.names)} names")
        self.query_one("#top", Static).update(f"typed {event.value!r}\n" + "\n".join(found[:50]))


def names_in(path: str | None) -> list[str]:
    if path is None:
        return []
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle if line.strip()]


if __name__ == "__main__":
    BareApp(names_in(sys.argv[1] if len(sys.argv) > 1 else None)).run()
