"""How long work reports how far it got: amount done, total when known, and what is being done."""

from __future__ import annotations

from collections.abc import Callable

# done, total (None: unknown), and what is being done, as a phrase: "reading documents" (counts files),
# "downloading the develop index" (counts bytes), "reading the develop index" (no amount: it takes a while).
Progress = Callable[[int, "int | None", str], None]

DOCUMENTS = "reading documents"
OPENING = "opening the sources"  # a load's first word, before any index or document is found
INDEXING = "indexing the specs"  # the model built from what was read: no amount, seconds on a big mirror
WAITING = "waiting for another cachetui reading these sources"  # then their warm cache is used: one read, shared


def downloading(what: str) -> str:
    return f"downloading {what}"


def reading(what: str) -> str:
    return f"reading {what}"
