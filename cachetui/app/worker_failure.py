"""What a failed worker tells the user: one notification, its text inert (errors can quote documents)."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker

from cachetui.present.inert import inert


def report_failure(node: App[Any] | Screen[Any] | Widget, worker: Worker[Any]) -> str:
    """Notify that `worker` failed; returns the message (for a load report, say)."""
    error = worker.error
    message = f"{worker.name} failed: {type(error).__name__}: {error}"
    node.notify(inert(message), title="Error", severity="error", markup=False, timeout=30)
    return message
