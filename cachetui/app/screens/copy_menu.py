"""`c`: copy the selected spec's hash, short hash, install command, or its tag's mirror command."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding

from cachetui.app.screens.choice_dialog import ChoiceDialog
from cachetui.core.hashes import short_hash
from cachetui.core.model import SpecView
from cachetui.core.records import MirrorOrigin
from cachetui.core.spack_commands import TRUST_KEYS_COMMAND, install_command, mirror_add_command, origin_commands
from cachetui.present.inert import inert


def copy_choices(spec: SpecView, origin: MirrorOrigin | None = None) -> list[tuple[str, str]]:
    """(what, exact text) pairs offered by the copy menu; `origin`: the mirror the spec was loaded from.

    Built from the inert hash and tag: the clipboard gets exactly what the screen shows,
    never a control character from a document.
    """
    hash_, tag = inert(spec.hash), inert(spec.tag)
    if origin is not None:
        commands = origin_commands(hash_, MirrorOrigin(inert(origin.name), inert(origin.url), origin.configured))
    else:
        commands = [("install command", install_command(hash_)), (f"mirror for tag {tag}", mirror_add_command(tag))]
    return [
        ("full hash", hash_),
        ("short hash", "/" + short_hash(hash_)),
        *commands,
        ("key trust command", TRUST_KEYS_COMMAND),
    ]


class CopyMenu(ChoiceDialog[tuple[str, str]]):
    BINDINGS = [Binding(str(n), f"pick({n - 1})", show=False, id=f"copy.{n}") for n in range(1, 6)]

    def __init__(self, spec: SpecView, origin: MirrorOrigin | None = None) -> None:
        choices = copy_choices(spec, origin)
        prompts = [
            (Text.assemble((f"{n}  {what}\n", "bold"), ("   " + inert(text), "cyan")), (what, text))
            for n, (what, text) in enumerate(choices, 1)
        ]
        super().__init__("Copy to clipboard", prompts)

    def action_pick(self, index: int) -> None:
        if index < len(self._choices):  # a configured mirror's menu is one line shorter
            self.dismiss(self._choices[index][1])
