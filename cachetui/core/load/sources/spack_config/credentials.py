"""The credentials of a mirror on an OCI registry, as Spack finds them: never put in any message."""

from __future__ import annotations

from typing import Any

from cachetui.core.load.sources.locator import is_oci
from cachetui.core.load.sources.oci import Credentials, parse_reference
from cachetui.core.load.sources.spack_config.scopes import ScopeReader
from cachetui.core.model.problems import Severity


def access_pair(entry: dict[str, Any], name: str, url: str, reader: ScopeReader) -> Credentials | None:
    """The `access_pair` of `push`, then of `fetch` (each falling back to the mirror's own), as Spack does."""
    for direction in ("push", "fetch"):
        part = entry.get(direction)
        pair = part.get("access_pair") if isinstance(part, dict) and "access_pair" in part else entry.get("access_pair")
        credentials = _pair(pair, name, url, reader)
        if credentials is not None:
            return credentials
    return None


def _pair(pair: object, name: str, url: str, reader: ScopeReader) -> Credentials | None:
    if isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair):
        username, password = pair  # the deprecated plain-text form; still read, as Spack does
    elif isinstance(pair, dict):
        username = pair.get("id") if isinstance(pair.get("id"), str) else None
        for key in ("id_variable", "secret_variable"):
            variable = pair.get(key)
            if isinstance(variable, str) and not reader.env.get(variable):
                reader.problem(url, f"Spack mirror {name!r}: its access_pair's {key} ${variable} is not set; "
                                          "it is read without credentials", Severity.WARNING)
        if username is None and isinstance(pair.get("id_variable"), str):
            username = reader.env.get(pair["id_variable"])
        variable = pair.get("secret_variable")
        password = reader.env.get(variable) if isinstance(variable, str) else None
    else:
        return None
    return Credentials(username, password) if username and password else None


def registry_credentials(url: str, every: list[tuple[str, Credentials | None]]) -> Credentials | None:
    """As Spack does: the first configured mirror on the same registry that has credentials."""
    try:
        domain = parse_reference(url).domain
    except ValueError:
        return None
    for other, credentials in every:
        if credentials is not None and is_oci(other):
            try:
                if parse_reference(other).domain == domain:
                    return credentials
            except ValueError:
                continue
    return None
