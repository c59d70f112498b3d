"""Normalise compiler spellings: `gcc@=13.2.0` and `gcc@13.2.0` are one compiler."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=4096)
def normalise_compiler(text: str) -> str:
    """`gcc@=13.2.0` -> `gcc@13.2.0`; surrounding space dropped; case kept."""
    name, at, version = text.strip().partition("@")
    if not at:
        return name
    return f"{name}@{version.removeprefix('=')}"


def compiler_name(normalised: str) -> str:
    """`gcc@13.2.0` -> `gcc`."""
    return normalised.partition("@")[0]


def compiler_text(value: Any) -> str | None:
    """A compiler as the site writes it: a string, or an older `{name, version}` mapping."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        version = value.get("version")
        return f"{value['name']}@{version}" if isinstance(version, str) and version else value["name"]
    return None
