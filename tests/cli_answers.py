"""What the CLI answers in JSON, read strictly.

Expected sets come from Spack's documented semantics and from walking the index JSON in the
test (tests/dag_mirror.py), never from this code's output.
"""

from __future__ import annotations

import json

import pytest

from cachetui.cli.main import main


def strict_json(text: str) -> object:
    """RFC 8259: NaN and Infinity are not JSON."""
    def refuse(constant: str) -> object:
        raise AssertionError(f"not strict JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


def query(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict], str]:
    """`cachetui query --format json ARGV`: exit code, rows, stderr."""
    code = main(["query", "--no-cache", "--format", "json", *argv])
    out, err = capsys.readouterr()
    rows = strict_json(out)
    assert isinstance(rows, list)
    return code, rows, err
