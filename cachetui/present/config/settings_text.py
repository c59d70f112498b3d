"""The settings file's text, read as every reader of it must: a regular file of at most MAX_BYTES, in UTF-8.

The browser's start, `cachetui config` and saving the theme chosen in the palette all read the same
file; one rule here, so none of them waits on a FIFO or fills memory from a device.
"""

from __future__ import annotations

from pathlib import Path

MAX_BYTES = 1 << 20  # a settings file written by hand is a few hundred bytes
MAX_KEY_PARTS = 4  # a setting's key has three at most (`keymap.browser.help`); tomllib's time grows with the square


class SettingsUnreadable(Exception):
    """Why the file's text cannot be read, in words that follow its path."""


def settings_text(path: Path) -> str | None:
    """The file's text; None when there is no file. Never blocks and never reads more than MAX_BYTES + 1: a FIFO
    or a device is not opened for reading at all, and a larger file is refused whole (half of one is not the
    user's)."""
    from cachetui.core.load import NotRegular, open_regular  # the one rule for opening a local input

    try:
        handle, info = open_regular(str(path))
    except FileNotFoundError:
        return None
    except NotRegular as exc:
        raise SettingsUnreadable(f"{exc.kind}, not a regular file") from None
    except OSError as exc:
        raise SettingsUnreadable(f"cannot be read: {exc.strerror or exc}") from None
    with handle:
        data = handle.read(MAX_BYTES + 1) if info.st_size <= MAX_BYTES else b""
    if info.st_size > MAX_BYTES or len(data) > MAX_BYTES:
        raise SettingsUnreadable(f"larger than {MAX_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsUnreadable(f"not UTF-8 (byte {exc.start + 1})") from None
