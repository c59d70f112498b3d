"""A small, bounded memo: the values of the last keys asked for, safe to share with a worker thread.

In the model layer so that every layer above can bound what it keeps (dependency masks, answers,
painted rows) the same way.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """The values of the last `kept` keys asked for; shared by the screen and its answer worker."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()  # a cancelled worker may still be finishing beside a new one

    def get(self, key: K, compute: Callable[[], V]) -> V:
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = compute()  # outside the lock: a slow answer never holds up another
        with self._lock:
            self._values[key] = value
            while len(self._values) > self.kept:
                self._values.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[K]:
        with self._lock:
            return list(self._values)

    def values(self) -> list[V]:
        with self._lock:
            return list(self._values.values())

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
