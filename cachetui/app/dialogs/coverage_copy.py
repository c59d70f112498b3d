"""`c` in the coverage view: the wanted hash, and the lines that install a hit or the nearest binary."""

from __future__ import annotations

from rich.text import Text

from cachetui.app.dialogs.choice_dialog import ChoiceDialog
from cachetui.app.dialogs.copy_menu import CopyMenu


class CoverageCopyMenu(CopyMenu):
    """The copy menu's keys and look (1-5 pick), over choices the coverage view worked out (inert already)."""

    def __init__(self, choices: list[tuple[str, str]]) -> None:
        prompts = [(Text.assemble((f"{n}  {what}\n", "bold"), ("   " + text, "cyan")), (what, text))
                   for n, (what, text) in enumerate(choices, 1)]
        ChoiceDialog.__init__(self, "Copy to clipboard", prompts)
