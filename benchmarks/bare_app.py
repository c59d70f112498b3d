"""The least a full-screen answer to a key costs in Textual: one Input and two Statics redrawn per key.

Run by benchmarks/pty_keys.py beside cachetui, in the same run, so that key-to-frame times are
read as ratios to this floor rather than as absolute figures on a shared machine.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Input, Static


class BareApp(App[None]):
    CSS = "Static { height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield Input(id="line")
        yield Static("ready", id="top")
        yield Static("", id="bottom")

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        if key in ("down", "pagedown"):  # a cursor key: both panes change, as a table and its details do
            self.query_one("#top", Static).update(f"moved {key} " * 20)
            self.query_one("#bottom", Static).update(f"details for {key} " * 20)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#top", Static).update(f"typed {event.value!r}")


if __name__ == "__main__":
    BareApp().run()
