"""YAML aliases are refused wherever others' YAML is read: nothing Spack or the site writes needs them,
and a few hundred bytes of nested aliases expand into billions of nodes for whoever walks the result."""

from __future__ import annotations

import yaml

SafeLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def first_alias_line(text: str) -> int | None:
    """The 0-based line of the first alias in `text` (read as events, never expanded), or None.

    Raises yaml.YAMLError for text that is not YAML, as loading it would."""
    if "*" not in text:
        return None
    for event in yaml.parse(text, Loader=SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            return event.start_mark.line if event.start_mark else 0
    return None
