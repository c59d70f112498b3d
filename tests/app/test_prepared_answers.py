"""`Answers.prepare`: the question a dialog offers is worked out by one worker at a time, and none is lost."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest

from cachetui.app import answers as answers_module
from cachetui.app.answers import Answers


class _Node:
    """Stands in for the screen: records the workers it is asked to run, and runs none."""

    def __init__(self) -> None:
        self.started: list[Any] = []

    def run_worker(self, work: Any, **kwargs: Any) -> None:
        self.started.append(work)


class _LockThenAsk:
    """The answers' lock, which asks for a question once, the first time the preparing worker lets it go."""

    def __init__(self, ask: Any) -> None:
        self._lock, self._ask = threading.Lock(), ask

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()
        ask, self._ask = self._ask, None
        if ask is not None:
            ask()


def test_a_question_wanted_as_the_worker_finds_nothing_more_is_still_worked_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answers_module, "INLINE_SPECS", 0)
    node = _Node()
    answers = Answers(node, lambda *delivered: None)  # type: ignore[arg-type]
    corpus = SimpleNamespace(n_specs=1)
    question = SimpleNamespace(query="q", sort=(None, False), view="v")
    answers._worker_running = True  # a worker that has just prepared the last question wanted
    answers._lock = _LockThenAsk(lambda: answers.prepare(corpus, question, frozenset()))  # type: ignore[assignment]
    answers._prepare_wanted()  # finds nothing wanted; a question is wanted right as it lets the lock go
    assert answers._wanted is not None and node.started  # a worker is started for it, not left waiting for none
