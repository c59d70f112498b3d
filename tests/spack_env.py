"""A Spack installation and user of our own, so no test ever reads the developer's Spack configuration."""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

SPACK_VARIABLES = ("SPACK_ROOT", "SPACK_ENV", "SPACK_USER_CONFIG_PATH", "SPACK_SYSTEM_CONFIG_PATH",
                   "SPACK_DISABLE_LOCAL_CONFIG", "SPACK_USER_CACHE_PATH")


@dataclass
class SpackEnv:
    home: Path
    root: Path  # $SPACK_ROOT: etc/spack/{defaults,site}
    system: Path  # stands in for /etc/spack (through SPACK_SYSTEM_CONFIG_PATH)
    monkeypatch: pytest.MonkeyPatch

    @property
    def user(self) -> Path:
        return self.home / ".spack"

    def write(self, path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        return path

    def mirrors(self, scope: Path, text: str) -> Path:
        return self.write(scope / "mirrors.yaml", text)

    def setenv(self, name: str, value: str) -> None:
        self.monkeypatch.setenv(name, value)


def isolated_spack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SpackEnv:
    """HOME, PATH and every SPACK_* variable point into tmp_path; /etc/spack is never read."""
    for name in SPACK_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    root = tmp_path / "spack"
    system = tmp_path / "etc-spack"
    for directory in (home, root / "etc" / "spack" / "defaults", system, tmp_path / "empty-bin"):
        directory.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin") + os.pathsep + "/usr/bin:/bin")
    monkeypatch.setenv("SPACK_ROOT", str(root))
    monkeypatch.setenv("SPACK_SYSTEM_CONFIG_PATH", str(system))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return SpackEnv(home, root, system, monkeypatch)
