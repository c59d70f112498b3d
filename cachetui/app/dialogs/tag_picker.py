"""`t`: choose one cache tag, or all of them."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from cachetui.app.dialogs.choice_dialog import ChoiceDialog
from cachetui.present.inert import inert

ALL_TAGS = ""


class TagPicker(ChoiceDialog[str]):
    """Dismisses with a tag, ALL_TAGS (offered unless `with_all` is False), or None when cancelled."""

    def __init__(self, tags: list[str], counts: dict[str, int], current: str | None, *, title: str = "Cache tag",
                 with_all: bool = True, looking_at: Callable[[str], None] | None = None) -> None:
        choices = [(Text.assemble(("All tags", "bold"), f"  {sum(counts.values())}"), ALL_TAGS)] if with_all else []
        choices += [(Text.assemble(inert(tag), (f"  {counts.get(tag, 0)}", "dim")), tag) for tag in tags]
        current_index = tags.index(current) + len(choices) - len(tags) if current in tags else 0
        super().__init__(title, choices, highlighted=current_index, looking_at=looking_at)
