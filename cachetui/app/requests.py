"""What a screen asks of the app: copy, the copy menu, export, reading the sources again.

The app answers them (a terminal session and a served one answer differently), so screens never
reach into the app's attributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the app imports these messages before its first frame, which draws no corpus
    from cachetui.core.load import Signature
    from cachetui.core.model.corpus import Corpus, SpecView
    from cachetui.present.spec_table.table_cells import SpecRows


@dataclass
class CopyRequested(Message):
    """Copy `text` to the clipboard; `what` names it in the notification."""

    text: str
    what: str


@dataclass
class CopyMenuRequested(Message):
    """Offer the ways to copy `spec` (hash, short hash, the commands that install it)."""

    spec: SpecView
    corpus: Corpus
    signature: Signature | None = None  # its binary's, when the details have fetched it


@dataclass
class ExportRequested(Message):
    """Export `rows` as the table shows them; `suggested`: a file name to start from."""

    suggested: str
    rows: SpecRows


@dataclass
class ReloadRequested(Message):
    """Read the sources again (unchanged ones from the warm cache) and show them in place; `keep`: the binary under
    the cursor (its hash and tag), to put the cursor on again when it is still there."""

    keep: tuple[str, str] | None
