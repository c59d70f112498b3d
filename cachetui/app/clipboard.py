"""The local clipboard, for terminals that ignore OSC 52.

OSC 52 (written by the app) travels through SSH and tmux (`set-clipboard on`) to the
user's own terminal; a local tool (wl-copy, xclip, xsel, pbcopy) helps when the terminal
ignores it. The tool runs in a worker thread: it may be slow, and xclip stays alive to
serve the selection, so its output goes to /dev/null rather than a pipe we would wait on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

TIMEOUT_S = 2


def local_command() -> list[str] | None:
    if sys.platform == "darwin" and shutil.which("pbcopy"):
        return ["pbcopy"]
    if os.environ.get("WAYLAND_DISPLAY") and shutil.which("wl-copy"):
        return ["wl-copy"]
    if os.environ.get("DISPLAY"):
        if shutil.which("xclip"):
            return ["xclip", "-selection", "clipboard"]
        if shutil.which("xsel"):
            return ["xsel", "--clipboard", "--input"]
    return None


def copy_to_local_clipboard(text: str) -> bool:
    """Hand `text` to the local clipboard tool; False when there is none or it failed."""
    command = local_command()
    if command is None:
        return False
    try:
        subprocess.run(command, input=text.encode(), timeout=TIMEOUT_S, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return False  # the OSC 52 copy still stands
    return True
