"""The `/` line: a package to search for, or a Spack spec query (`hdf5@1.14: +mpi %gcc@13`).

A package search is posted at every keystroke (the fuzzy list is cheap); a spec query once
typing pauses, so a result over 500k specs is not recomputed for every character. What is
wrong with the text (pushed down as `problem`) shows beside it, never as an empty table: wrapped,
and cut (marked …) only past three lines; the whole of it is its tooltip and heads the problems
screen (`p`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input

from cachetui.app.actions import bindings_of, keys_named
from cachetui.app.screens.panes import QUERY_PLACEHOLDER
from cachetui.app.widgets.text_line import TextLine
from cachetui.core.spack.specquery import looks_like_spec
from cachetui.present.browse.browsing import Effects
from cachetui.present.fit import wrapped
from cachetui.present.inert import inert


class ProblemNote(Widget):
    """A note beside the query line, wrapped to its width in at most LINES lines, a longer one cut and marked …."""

    LINES = 3

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._said = Text()

    def say(self, text: Text) -> None:
        self._said = text
        self.tooltip = text.plain or None  # the whole of it, however much is cut
        self.refresh(layout=True)

    def render(self) -> Text:
        return wrapped(self._said, self.content_size.width, self.LINES, self.app.console)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self._said.cell_len

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(wrapped(self._said, width, self.LINES, self.app.console).split("\n")) if width else 0


class QueryLine(TextLine):
    """The query line's box: Enter opens the best package or applies the query, Escape clears it, then leaves;
    its keys act in the order typed (`KeysInOrder`)."""

    BINDINGS = [*bindings_of("line"), *bindings_of("search")]  # Textual lets a class's key replace its base's: both

    class Back(Message):
        """Escape on an empty line: back where the browser's Escape goes."""

    _history: tuple[str, ...] = ()  # the queries entered this session, oldest first
    _recalled: int | None = None  # which of them Up put on the line (None: the line is the user's own)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return not self.value
        if action == "recall":
            return bool(self._history)
        return super().check_action(action, parameters)

    def action_back(self) -> None:
        self.post_message(self.Back())

    def remember(self, text: str) -> None:
        """A query entered (Enter, or Down to the results): Up brings it back this session."""
        if text.strip() and text not in self._history[-1:]:
            self._history = (*self._history, text)

    def action_recall(self) -> None:
        """Up: the query entered before the one on the line (the newest first), applied as if typed."""
        at = max(0, (len(self._history) if self._recalled is None else self._recalled) - 1)
        self.value = self._history[at]
        self.cursor_position = len(self.value)
        self._recalled = at  # after the value: its watcher forgets the place when the user types

    def watch_value(self, value: str) -> None:
        super().watch_value(value)
        self._recalled = None



class QueryBar(Horizontal):
    DEBOUNCE_S = 0.15

    BINDINGS = bindings_of("query")

    problem: reactive[str | None] = reactive(None)  # the query cannot be answered: the table keeps the last answer
    note: reactive[str | None] = reactive(None)  # which part emptied the answer; what the sources cannot tell

    @dataclass
    class Typed(Message):
        """The text changed (a spec query: typing paused)."""

        text: str

    @dataclass
    class Submitted(Message):
        """Enter: open the best package, or apply the spec query now and go to the results."""

        text: str

    @dataclass
    class Left(Message):
        """Down arrow: to the package list (a package search) or the table (a spec query)."""

        text: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pending: Timer | None = None
        self.showing = False  # the line is being set by `show`, not typed
        # Made here and held, rather than looked up: every keystroke reads the line.
        self.input = QueryLine(placeholder=QUERY_PLACEHOLDER, id="query-line")
        self._note = ProblemNote(id="query-problem")

    def compose(self) -> ComposeResult:
        self.input.placeholder = keys_named(self.app, QUERY_PLACEHOLDER)
        yield self.input
        yield self._note

    @property
    def text(self) -> str:
        return self.input.value

    def show(self, text: str) -> None:
        """Put `text` on the line without posting anything (the screen already applies its query)."""
        self._cancel_pending()
        self.showing = True
        try:
            with self.input.prevent(Input.Changed):
                self.input.value = text
        finally:
            self.showing = False
        self.problem = self.note = None

    def take(self, effects: Effects) -> None:
        """What the browsing state says about the line: a problem with its text, or text to put on it."""
        if effects.clears_problem or effects.problem is not None:
            self.problem = effects.problem
        if effects.put_line is not None:
            self.show(effects.put_line)

    def clear(self) -> None:
        self.show("")

    def watch_problem(self) -> None:
        self._say()

    def watch_note(self) -> None:
        self._say()

    def _say(self) -> None:
        """A problem (red) wins over a note: what is shown is about the text on the line."""
        problem, note = self.problem, self.note
        self.set_class(problem is not None, "-problem")
        self.set_class(problem is None and note is not None, "-note")
        if problem:
            shown = Text("✗ " + inert(problem), style="bold")
        else:
            shown = Text("⚠ " + inert(note)) if note else Text()  # not ∅: a note may come with rows
        self._note.say(shown)

    @on(Input.Changed, "#query-line")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self._cancel_pending()
        if looks_like_spec(event.value):
            self._pending = self.set_timer(self.DEBOUNCE_S, self._post_typed)
        else:
            self._post_typed()

    def _post_typed(self) -> None:
        self._pending = None
        self.post_message(self.Typed(self.text))

    def _cancel_pending(self) -> None:
        if self._pending is not None:
            self._pending.stop()
            self._pending = None

    @on(Input.Submitted, "#query-line")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._cancel_pending()
        self.input.remember(self.text)
        self.post_message(self.Submitted(self.text))

    def action_leave(self) -> None:
        self.input.remember(self.text)
        self.post_message(self.Left(self.text))
