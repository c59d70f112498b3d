"""Parse front matter safely and fast.

The site writes `meta` and `spec_details` as single-line JSON, which `json.loads`
reads many times faster than any YAML loader. Only what is left (title, layout,
categories, older keys) goes through PyYAML's *safe* loader, the C one when
available. Never an unsafe loader: documents come from mirrors nobody here controls.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from cachetui.core.load.sources.site.frontmatter import FrontMatterError
from cachetui.core.spack.words import one_line

if TYPE_CHECKING:  # PyYAML is imported by the careful lane only: a site in the current shape never reads YAML
    import yaml

JSON_KEYS = frozenset({"meta", "spec_details"})  # the site writes these as JSON
_KEY_LINE = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+|$)")
_FIRST_LINE = 2  # front-matter line 0 is line 2 of the file


def parse_front_matter(lines: list[str]) -> tuple[dict[str, Any], dict[str, int]]:
    """Turn front-matter lines into a mapping and the file line of each top-level key.

    Raises FrontMatterError, with a line number where one is known.
    """
    fast: dict[str, Any] = {}
    key_lines: dict[str, int] = {}
    json_failures: dict[int, tuple[str, str]] = {}  # line -> (key, why): tried as YAML instead
    rest = list(lines)
    for i, line in enumerate(lines):
        match = _KEY_LINE.match(line)
        if not match:
            continue
        key_lines.setdefault(match.group(1), i + _FIRST_LINE)
        value = line[match.end():]
        if not _is_single_line(lines, i):
            continue
        simple = simple_value(value)
        if simple is not None:
            fast[match.group(1)] = simple
            rest[i] = ""
            continue
        if not value.startswith(("{", "[")):
            continue
        try:
            fast[match.group(1)] = json.loads(value)
        except (ValueError, RecursionError) as exc:
            if match.group(1) in JSON_KEYS:
                # The site writes these as JSON; a lenient YAML reading would hide the damage.
                raise FrontMatterError(f"invalid JSON in '{match.group(1)}': {exc}", i + _FIRST_LINE) from None
            # Could still be a YAML flow collection such as `[package, develop]`.
            json_failures[i] = (match.group(1), str(exc))
            continue
        rest[i] = ""  # keep line numbers intact for YAML's error marks
    data = _load_yaml("\n".join(rest), json_failures)
    data.update(fast)
    return data, key_lines


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")
_FLOW_OF_PLAIN = re.compile(r"\[\s*([A-Za-z_][A-Za-z0-9_./-]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_./-]*)*)\s*\]")
# Plain words YAML 1.1 would turn into booleans or null: leave those to the YAML loader.
YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "y", "n", "null"})


def simple_value(value: str) -> str | list[str] | None:
    """`cache`, `"py-x"` and `[package, develop]` without a YAML parser; None when not that simple."""
    value = value.rstrip()
    if value.startswith('"') and value.endswith('"') and len(value) >= 2 and "\\" not in value:
        return value[1:-1] if '"' not in value[1:-1] else None
    if _PLAIN.fullmatch(value) and value.lower() not in YAML_WORDS:
        return value
    flow = _FLOW_OF_PLAIN.fullmatch(value)
    if flow:
        items = [item.strip() for item in flow.group(1).split(",")]
        if not any(item.lower() in YAML_WORDS for item in items):
            return items
    return None


def _is_single_line(lines: list[str], i: int) -> bool:
    """A value is single-line when the next line starts another key or ends the block."""
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    return not nxt[:1].isspace() and not nxt.startswith("-")


def _load_yaml(text: str, json_failures: dict[int, tuple[str, str]]) -> dict[str, Any]:
    if not text.strip():
        return {}
    import yaml

    from cachetui.core.load.sources.yaml_aliases import SafeLoader

    _refuse_aliases(text)
    try:
        data = yaml.load(text, Loader=SafeLoader)  # noqa: S506 - SafeLoader/CSafeLoader only
    except yaml.MarkedYAMLError as exc:
        raise _yaml_error(exc, json_failures, text.count("\n") + 1) from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise FrontMatterError(f"invalid YAML: {_one_line(str(exc))}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontMatterError(f"front matter is a {type(data).__name__}, not a mapping", _FIRST_LINE)
    return {str(k): v for k, v in data.items()}


def _refuse_aliases(text: str) -> None:
    """Refuse YAML aliases outright: nothing on the site needs them, and they make expansion bombs."""
    import yaml

    from cachetui.core.load.sources.yaml_aliases import first_alias_line

    try:
        line = first_alias_line(text)
        if line is not None:
            raise FrontMatterError("YAML aliases are not allowed (refused, not expanded)", line + _FIRST_LINE)
    except yaml.MarkedYAMLError as exc:
        raise _yaml_error(exc, {}, text.count("\n") + 1) from None
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"invalid YAML: {_one_line(str(exc))}") from None


def _yaml_error(
    exc: yaml.MarkedYAMLError, json_failures: dict[int, tuple[str, str]], n_lines: int
) -> FrontMatterError:
    mark = exc.problem_mark
    if mark is None or (mark.line >= n_lines - 1 and exc.context_mark is not None):
        mark = exc.context_mark  # "got end of stream": where the unclosed thing began is more useful
    index = mark.line if mark is not None else None
    problem = exc.problem or exc.context or "invalid YAML"
    if index is not None and index in json_failures:
        key, _ = json_failures[index]
        return FrontMatterError(f"invalid YAML in '{key}': {_one_line(problem)}", index + _FIRST_LINE)
    line = index + _FIRST_LINE if index is not None else None
    return FrontMatterError(f"invalid YAML: {_one_line(problem)}", line)


def _one_line(text: str) -> str:
    return one_line(text)[:200]
