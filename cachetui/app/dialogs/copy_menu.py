"""`c`: copy the selected spec's hash, short hash, and the commands that install it from where it came."""

from __future__ import annotations

from rich.text import Text

from cachetui.app.actions import bindings_of
from cachetui.app.dialogs.choice_dialog import ChoiceDialog
from cachetui.core.model.corpus import SpecView
from cachetui.core.model.records import MirrorOrigin
from cachetui.core.query.spack_commands import TRUST_KEYS_COMMAND, origin_commands
from cachetui.core.spack.hashes import hash_reference
from cachetui.present.inert import inert


def spec_copy_choices(spec: SpecView, origin: MirrorOrigin | None = None,
                      keys_trusted: bool = False) -> list[tuple[str, str]]:
    """(what, exact text) pairs offered by the copy menu; `origin`: the mirror the spec was loaded from;
    `keys_trusted`: the user's Spack trusts the key that signed it, so the key-trust line is left out.

    Built from inert text: the clipboard gets exactly what the screen shows, never a control
    character from a document.
    """
    hash_ = inert(spec.hash)
    shown = None if origin is None else origin._replace(name=inert(origin.name), url=inert(origin.url))
    commands = [(what, text) for what, text in origin_commands(hash_, shown)
                if not (keys_trusted and text == TRUST_KEYS_COMMAND)]
    return [("full hash", hash_), ("short hash", hash_reference(hash_)), *commands]


class CopyMenu(ChoiceDialog[tuple[str, str]]):
    """(what, text) choices, inert already (a spec's `spec_copy_choices`, a wanted node's `node_copy_choices`), each
    picked by its number."""

    BINDINGS = bindings_of("copy")

    def __init__(self, choices: list[tuple[str, str]]) -> None:
        prompts = [(Text.assemble((f"{n}  {what}\n", "bold"), ("   " + text, "cyan")), (what, text))
                   for n, (what, text) in enumerate(choices, 1)]
        super().__init__("Copy to clipboard", prompts)

    def action_pick(self, index: int) -> None:
        if index < len(self._choices):  # shorter for a configured mirror, or with no one mirror
            self.dismiss(self._choices[index][1])
