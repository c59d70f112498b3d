"""`c`: copy the selected spec's hash, short hash, install command, or its tag's mirror command."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding

from cachetui.app.screens.choice_dialog import ChoiceDialog
from cachetui.core.hashes import short_hash
from cachetui.core.model import SpecView
from cachetui.core.spack_commands import TRUST_KEYS_COMMAND, install_command, mirror_add_command
from cachetui.present.inert import inert


def copy_choices(spec: SpecView, mirror: tuple[str, str] | None) -> list[tuple[str, str]]:
    """(what, exact text) pairs offered by the copy menu; `mirror` is where the binary was loaded from.

    Built from inert text: the clipboard gets exactly what the screen shows, never a control
    character from a document.
    """
    hash_ = inert(spec.hash)
    choices = [("full hash", hash_), ("short hash", "/" + short_hash(hash_)), ("install command", install_command(hash_))]
    if mirror is not None:
        name, location = map(inert, mirror)
        choices.append((f"mirror it was loaded from ({name})", mirror_add_command(name, location)))
    return [*choices, ("key trust command", TRUST_KEYS_COMMAND)]


class CopyMenu(ChoiceDialog[tuple[str, str]]):
    BINDINGS = [Binding(str(n), f"pick({n - 1})", show=False, id=f"copy.{n}") for n in range(1, 6)]

    def __init__(self, spec: SpecView, mirror: tuple[str, str] | None) -> None:
        choices = copy_choices(spec, mirror)
        prompts = [
            (Text.assemble((f"{n}  {what}\n", "bold"), ("   " + inert(text), "cyan")), (what, text))
            for n, (what, text) in enumerate(choices, 1)
        ]
        super().__init__("Copy to clipboard", prompts)

    def action_pick(self, index: int) -> None:
        if index < len(self._choices):  # fewer lines when no one mirror holds the binary
            self.dismiss(self._choices[index][1])
