"""Find the .tcss files: `cachetui/styles` in a wheel, `styles/` at the top of a checkout."""

from __future__ import annotations

from pathlib import Path

import cachetui

_PACKAGE = Path(cachetui.__file__).resolve().parent


def styles_dir() -> Path:
    for candidate in (_PACKAGE / "styles", _PACKAGE.parent / "styles"):
        if (candidate / "app.tcss").is_file():
            return candidate
    raise FileNotFoundError("cachetui styles not found (expected cachetui/styles or styles/ beside it)")


def stylesheet(name: str) -> Path:
    return styles_dir() / name
