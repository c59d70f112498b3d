"""Asking `present.browse.answer` for the browser: on the spot for a small corpus, in a worker for a big one.

Up to INLINE_SPECS specs an answer takes a few milliseconds and is computed on the spot; above,
in a worker, so keys and paints never wait for it (a newer question cancels an older one). A worker's
answer comes as a message; one still queued behind a newer one is dropped unread (`can_replace`). A dialog
can have the answer its choice would ask worked out while it is open (`prepare`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from textual.dom import DOMNode
from textual.message import Message
from textual.worker import get_current_worker

from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Query
from cachetui.present.browse.answer import Answer, RecentAnswers, View, answer, rows_to_show
from cachetui.present.browse.browsing import Browsing
from cachetui.present.spec_table.table_plan import measured_for

INLINE_SPECS = 50_000

Sort = tuple[str | None, bool]
Deliver = Callable[[Query, Sort, View, Answer], None]
Question = tuple[Query, Sort, View]


class Arrived(Message):
    """A worker's answer to a question, for the node that asked it."""

    def __init__(self, query: Query, sort: Sort, view: View, found: Answer, corpus: Corpus) -> None:
        super().__init__()
        self.query, self.sort, self.view, self.found = query, sort, view, found
        self.corpus = corpus  # what it was computed over: a reload keeps the question, not the specs

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Arrived)  # only the newest of the answers waiting is shown


class Answers:
    """What answers over one corpus computed (kept for the next ones), and where each is computed."""

    def __init__(self, node: DOMNode, deliver: Deliver) -> None:
        self._node = node  # whose workers compute the big answers, and who is told them (`Arrived`)
        self._deliver = deliver
        self.recent = RecentAnswers()
        self._lock = threading.Lock()  # over what is prepared, which the screen and the preparing worker share
        self._wanted: _Prepared | None = None  # the next question to prepare
        self._preparing: _Prepared | None = None  # the one being worked out
        self._worker_running = False

    def forget(self) -> None:
        self.recent = RecentAnswers()
        self.prepare(None, None, frozenset())

    def ask(self, corpus: Corpus, question: Browsing, hidden: frozenset[str]) -> bool:
        """True: `question` answered and delivered now; False: its answer is on its way from a worker (`Arrived`).
        `hidden`: the table's hidden columns, for which a worker measures the rows too."""
        query, sort, view = question.query, question.sort, question.view
        if corpus.n_specs <= INLINE_SPECS:
            self._deliver(query, sort, view, answer(corpus, query, sort, self.recent, view))
            return True
        # after the frame that says it is busy: a worker competes for the GIL with the frame's drawing
        self._node.call_after_refresh(self._start, corpus, query, sort, view, hidden)
        return False

    def prepare(self, corpus: Corpus | None, question: Browsing | None, hidden: frozenset[str]) -> None:
        """Work out, beside a dialog, the answer the question it offers would ask (kept in `recent`, delivered
        to no one), so that choosing it answers at once; None: nothing. One question is worked out at a time,
        the newest wanted next: a cursor going down a list of choices does not start a worker per choice."""
        if corpus is not None and question is not None and corpus.n_specs <= INLINE_SPECS:
            return  # answered on the spot anyway
        with self._lock:
            self._wanted = None if corpus is None or question is None else _Prepared(
                corpus, (question.query, question.sort, question.view), hidden, self.recent)
            if self._wanted is None or self._worker_running:
                return  # the worker running takes the newest wanted when it is done
            self._worker_running = True
        self._node.run_worker(self._prepare_wanted, thread=True, group="prepare", name="prepare",
                              description="prepare", exit_on_error=False)

    def _prepare_wanted(self) -> None:
        try:
            while True:
                with self._lock:  # finding nothing wanted and saying so is one step: a question wanted between
                    wanted = self._preparing = self._wanted  # the two would wait for a worker that has ended
                    self._wanted = None
                    if wanted is None:
                        self._worker_running = False
                        return
                try:
                    wanted.work_out()
                finally:
                    wanted.done.set()
        except BaseException:
            with self._lock:
                self._worker_running, self._preparing = False, None
            raise

    def _prepared(self, corpus: Corpus, question: Question) -> None:
        """Wait for `question`'s answer if it is being prepared, rather than work it out twice at once; a question
        only wanted is not prepared any more: it is being asked."""
        with self._lock:
            if self._wanted is not None and self._wanted.asks(corpus, question):
                self._wanted = None
            preparing = self._preparing
        if preparing is not None and preparing.asks(corpus, question):
            preparing.done.wait()

    def _start(self, corpus: Corpus, query: Query, sort: Sort, view: View, hidden: frozenset[str]) -> None:
        self._node.run_worker(partial(self._compute, corpus, query, sort, view, hidden), thread=True,
                              exclusive=True, group="results", name="results", description="results",
                              exit_on_error=False)

    def _compute(self, corpus: Corpus, query: Query, sort: Sort, view: View, hidden: frozenset[str]) -> None:
        self._prepared(corpus, (query, sort, view))
        found = _worked_out(corpus, (query, sort, view), self.recent, hidden,
                            lambda: get_current_worker().is_cancelled)
        if not get_current_worker().is_cancelled:
            self._node.post_message(Arrived(query, sort, view, found, corpus))


@dataclass(eq=False)
class _Prepared:
    """A question worked out ahead (`Answers.prepare`), into the answers kept when it was wanted: a corpus read
    again keeps none of them."""

    corpus: Corpus
    question: Question
    hidden: frozenset[str]
    recent: RecentAnswers
    done: threading.Event = field(default_factory=threading.Event)

    def asks(self, corpus: Corpus, question: Question) -> bool:
        return corpus is self.corpus and question == self.question

    def work_out(self) -> None:
        _worked_out(self.corpus, self.question, self.recent, self.hidden)


def _worked_out(corpus: Corpus, question: Question, recent: RecentAnswers, hidden: frozenset[str],
                cancelled: Callable[[], bool] = lambda: False) -> Answer:
    """A question's answer, and the table's measure of its rows (a tenth to a third of a second at 500k specs),
    here rather than in the frame that shows them: the same rows and measure the screen then takes
    (`rows_to_show`). Nothing is measured once `cancelled`."""
    query, sort, view = question
    found = answer(corpus, query, sort, recent, view)
    if found.results is not None and not view.find and not cancelled():
        measured_for(rows_to_show(corpus, found.results, sort, recent), hidden)
    return found
