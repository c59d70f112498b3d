"""The sample corpus bundled inside the package: five real documents from the public site."""

from __future__ import annotations

from pathlib import Path

import cachetui.sample


def sample_path() -> Path:
    return Path(cachetui.sample.__file__).parent
