"""A list of check boxes that read on or off without colour: `[x]` chosen, `[ ]` not."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widgets import OptionList, SelectionList
from textual.widgets.option_list import OptionDoesNotExist

ON, OFF = "[x]", "[ ]"  # as wide as Textual's own box (`▐X▌`), so its gutter and clicks still line up


class CheckList(SelectionList[str]):
    """Textual draws every box alike (`▐X▌`) and tells chosen from not by colour alone: in a
    monochrome terminal (NO_COLOR), or a screen capture, every box would read as chosen."""

    def render_line(self, y: int) -> Strip:
        line = OptionList.render_line(self, y)  # the prompt; the box is drawn here instead of by SelectionList
        index = int(self.scroll_offset.y) + y
        try:
            value = self.get_option_at_index(index).value
        except OptionDoesNotExist:
            return line
        chosen = value in self.selected
        component = "selection-list--button" + ("-selected" if chosen else "")
        component += "-highlighted" if self.highlighted == index else ""
        box_style = self.get_component_rich_style(component) + Style(meta={"option": index})  # a click toggles it
        underlying = next(iter(line)).style or self.rich_style
        return Strip([Segment(ON if chosen else OFF, box_style), Segment(" ", underlying), *line])
