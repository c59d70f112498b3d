"""Copy text where the user can paste it: OSC 52 always, the local clipboard when reachable.

OSC 52 travels through SSH and tmux (`set-clipboard on`) to the user's own terminal;
a local tool (wl-copy, xclip, xsel, pbcopy) helps when the terminal ignores OSC 52.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from textual.app import App


def _local_command() -> list[str] | None:
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


def copy_text(app: App, text: str, *, local: bool = True) -> list[str]:
    """Copy `text`; returns the channels it went through (for the notification)."""
    app.copy_to_clipboard(text)
    channels = ["OSC 52"]
    command = _local_command() if local else None
    if command is not None:
        try:
            subprocess.run(command, input=text.encode(), timeout=2, check=True, capture_output=True)
            channels.append(command[0])
        except (OSError, subprocess.SubprocessError):
            pass  # the OSC 52 copy still stands
    return channels
