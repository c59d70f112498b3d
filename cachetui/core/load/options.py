"""What the user chooses about a load: the CLI's load options, which the browser and a served session share."""

from __future__ import annotations

from dataclasses import dataclass

# Declared here, not beside the readers that apply them: the browser's first frame makes its LoadOptions before
# any reader is imported (`glance`).
MAX_FILE_BYTES = 64 * 1024 * 1024  # one site document, or the reader skips it; the largest real one is well under 1 MB
DEFAULT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class LoadOptions:
    """One load's choices, written once for `load_corpus`, the browser and `serve` (whose sessions get them as JSON).

    The warm cache is used only when asked (the CLI asks unless `--no-cache`): a library call or a
    test that names none writes nothing to the user's cache directory.
    """

    max_file_bytes: int = MAX_FILE_BYTES  # a larger site document is skipped, and said
    use_cache: bool = False
    workers: int | None = None  # processes parsing site documents; None: chosen by the number of files
    timeout: float = DEFAULT_TIMEOUT_S  # network connect and read, in seconds
