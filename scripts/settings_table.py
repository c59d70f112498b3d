"""Write the table of settings in docs/keys-and-settings.md from their declarations: `python scripts/settings_table.py`.

The table is `cachetui.present.config.settings.settings_table` (each declared setting with its TOML type, default and
help); tests/test_docs.py fails while the page's table differs from it.
"""

from __future__ import annotations

from pathlib import Path

from cachetui.present.config.known import known
from cachetui.present.config.settings import settings_table

PAGE = Path(__file__).resolve().parent.parent / "docs" / "keys-and-settings.md"


def table_lines(lines: list[str], header: str) -> range:
    """Where the table that opens with `header` is among `lines`: its header and every row below it."""
    start = lines.index(header)
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return range(start, end)


def main() -> None:
    table = settings_table(known()).splitlines()
    lines = PAGE.read_text().splitlines()
    where = table_lines(lines, table[0])
    PAGE.write_text("\n".join([*lines[:where.start], *table, *lines[where.stop:]]) + "\n")


if __name__ == "__main__":
    main()
