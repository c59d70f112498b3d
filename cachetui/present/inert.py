"""Make document text inert before it reaches a terminal.

Control characters (ESC, CSI, OSC, BEL, backspace, CR...), bidi overrides and
zero-width characters are shown as visible escapes such as `\\x1b` or `\\u202e`.
Markup is never interpreted anywhere (the app builds Text objects, not markup),
so `[bold]` needs no treatment here and stays literal.

This is the one rule for every output: the screen, and every format a command or an export
writes (`cachetui.present.output.writers`).
"""

from __future__ import annotations

import unicodedata

# Cc: C0/C1 controls; Cf: format (bidi, zero-width, tags); Zl/Zp: line breaks; Cs: lone surrogates.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def inert(text: str) -> str:
    """`text` with every unsafe character replaced by a visible escape."""
    if text.isprintable():
        return text
    return "".join(_escape(ch) if unsafe(ch) else ch for ch in text)


def unsafe(ch: str) -> bool:
    """Whether the character `ch` could drive a terminal or disguise text, so is never written raw."""
    return unicodedata.category(ch) in _UNSAFE_CATEGORIES


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
