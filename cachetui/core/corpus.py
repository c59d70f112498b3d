"""One call from paths to a ready Corpus; what the app, the CLI and the benchmarks use."""

from __future__ import annotations

import os
from collections.abc import Sequence

from cachetui.core.build import build_corpus
from cachetui.core.loader import DEFAULT_MAX_BYTES, Progress, load_paths
from cachetui.core.model import Corpus


def load_corpus(
    paths: Sequence[str | os.PathLike[str]],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: Progress | None = None,
) -> Corpus:
    """Load every document under `paths` into a Corpus (its `report` holds every problem)."""
    result = load_paths(paths, max_bytes=max_bytes, progress=progress)
    return build_corpus(result.documents, result.report)
