"""What the user chooses about a load: the CLI's load options, which the browser and a served session share."""

from __future__ import annotations

from dataclasses import dataclass

from cachetui.core.load.sources.site.walk import MAX_FILE_BYTES
from cachetui.core.load.sources.transport import DEFAULT_TIMEOUT_S


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
