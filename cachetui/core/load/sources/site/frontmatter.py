"""Split a document's text into its front-matter lines."""

from __future__ import annotations

DELIMITER = "---"
_CLOSERS = ("---", "...")


class FrontMatterError(ValueError):
    """The text is not a usable front-matter document."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


def has_front_matter(head: bytes) -> bool:
    """Whether a file's first bytes open a front matter (first line is `---`)."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    first = head.split(b"\n", 1)[0].rstrip(b"\r").rstrip()
    return first == b"---"


def split_front_matter(text: str) -> list[str]:
    """Return the lines between the opening and closing delimiters.

    Line 1 of the file is the opening `---`, so the returned line ``i`` (0-based)
    is line ``i + 2`` of the file. CRLF endings are accepted; a BOM must already
    be stripped by the caller.
    """
    if not text.strip():
        raise FrontMatterError("empty file", line=1)
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    if first.rstrip("\r").rstrip() != DELIMITER:
        raise FrontMatterError("no front matter (first line is not '---')", line=1)
    lines: list[str] = []
    pos = first_end + 1 if first_end >= 0 else len(text)
    while pos < len(text):
        end = text.find("\n", pos)
        line = text[pos:] if end < 0 else text[pos:end]
        line = line.removesuffix("\r")
        if line.rstrip() in _CLOSERS:
            return lines
        lines.append(line)
        if end < 0:
            break
        pos = end + 1
    raise FrontMatterError("front matter is never closed by '---'", line=1)
