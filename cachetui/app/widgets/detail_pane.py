"""Everything about one spec: full hash, where it was built, variants, tags it appears in."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from cachetui.core.hashes import is_valid_hash, short_hash
from cachetui.core.model import SpecView
from cachetui.core.variants import parse_variants
from cachetui.present.format import describe_variant, display_path, human_size, triple
from cachetui.present.inert import inert

LABEL_WIDTH = 9


@dataclass(frozen=True)
class SpecDetail:
    spec: SpecView
    tags: tuple[str, ...]  # every tag in which this hash appears


def render_detail(detail: SpecDetail | None) -> Text:
    if detail is None:
        return Text("No spec selected.", style="dim")
    spec = detail.spec
    text = Text(no_wrap=False)

    def row(label: str, value: str, style: str = "") -> None:
        text.append(f"{label:<{LABEL_WIDTH}}", "bold")
        text.append(inert(value), style)
        text.append("\n")

    row("hash", spec.hash, "bold cyan")
    row("short", "/" + short_hash(spec.hash), "cyan")
    if not is_valid_hash(spec.hash):
        row("", "not a valid Spack hash (32 chars of a-z, 2-7)", "yellow")
    row("package", f"{spec.package}@{spec.version}")
    row("compiler", spec.compiler)
    row("arch", triple(spec.platform, spec.os, spec.target))
    row("tags", ", ".join(detail.tags))
    row("stacks", ", ".join(spec.stacks) or "-")
    row("size", human_size(spec.size))
    row("source", display_path(spec.path), "dim")
    text.append("variants\n", "bold")
    variants = [v for raw in spec.raw_variants for v in parse_variants(raw)]
    if not variants:
        text.append("  (none)\n", "dim")
    for variant in variants:
        state, shown = describe_variant(variant)
        style = {"on": "green", "off": "red"}.get(state, "")
        text.append(f"  {state:<6}", style)
        text.append(inert(shown) + "\n")
    text.rstrip()
    return text


class DetailPane(VerticalScroll, can_focus=True):
    detail: reactive[SpecDetail | None] = reactive(None)
    _lines = -1

    def compose(self) -> ComposeResult:
        yield Static(render_detail(None), id="detail-body")

    def watch_detail(self, detail: SpecDetail | None) -> None:
        text = render_detail(detail)
        body = self.query_one("#detail-body", Static)
        lines = len(text.wrap(self.app.console, max(1, body.size.width or self.size.width)))
        # A relayout repaints the whole screen; only pay for it when the pane's height changes.
        body.update(text, layout=lines != self._lines)
        self._lines = lines
