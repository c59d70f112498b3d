"""Cut entries of a list to a width so that no two of them read alike.

Names and values of one kind tend to differ at their end (`py-torch-geometric-xyz1`, `-xyz2`;
`develop-2025-04-20`, `-05-04`), where a cut at the end (…) hides it. So an entry is cut in the
middle, its start and end kept; entries that still read alike are cut elsewhere, where they differ.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len


def cut_middle(text: str, width: int, head: int | None = None) -> str:
    """`text` in at most `width` cells: its first `head` cells (about half by default), …, and its end."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    room = width - 1
    head = (room + 1) // 2 if head is None else max(0, min(head, room))
    return _start(text, head) + "…" + _end(text, room - head)


def apart(texts: Sequence[str], width: int) -> list[str]:
    """Each of `texts` in at most `width` cells, cut in the middle, and two different texts never alike.

    Texts that the middle cut leaves alike are cut where they differ: the first cut, nearest the
    middle, that shows each of them differently from every other entry. Only when no cut can
    (a width of a cell or two) do they stay alike.
    """
    shown = {text: cut_middle(text, width) for text in dict.fromkeys(texts)}
    alike: dict[str, list[str]] = {}
    for text, cut in shown.items():
        alike.setdefault(cut, []).append(text)
    for cut, group in alike.items():
        if len(group) < 2:
            continue
        taken = set(shown.values()) - {cut}
        for head in _heads(width):
            tried = [cut_middle(text, width, head) for text in group]
            if len(set(tried)) == len(group) and taken.isdisjoint(tried):
                shown.update(zip(group, tried))
                break
    return [shown[text] for text in texts]


def _heads(width: int) -> list[int]:
    """Where a cut may fall, the middle first, then outwards (towards the start first)."""
    room = max(0, width - 1)
    middle = (room + 1) // 2
    return sorted(range(room + 1), key=lambda head: (abs(head - middle), head))


def _start(text: str, cells: int) -> str:
    used = 0
    for position, char in enumerate(text):
        used += cell_len(char)
        if used > cells:
            return text[:position]
    return text


def _end(text: str, cells: int) -> str:
    used = 0
    for position in range(len(text) - 1, -1, -1):
        used += cell_len(text[position])
        if used > cells:
            return text[position + 1:]
    return text
