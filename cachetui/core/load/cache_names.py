"""Where the warm cache lives and what its files for a set of sources are called: the standard library only, so
that the browser's first frame (`glance`) finds its file before numpy or the loader are imported."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cachetui"


def cache_stem(roots: Sequence[str | os.PathLike[str]], max_bytes: int) -> str:
    """The name every cache file of these sources starts with (the same sources named in another order: the same)."""
    key = "\0".join([str(max_bytes), *sorted(os.path.abspath(r) for r in roots)])
    return f"corpus-{hashlib.sha256(key.encode()).hexdigest()[:24]}"
