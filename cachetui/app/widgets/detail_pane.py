"""Everything about one spec: hash, where it was built, variants, tags, its dependencies and what uses it.

A line view: the cursor moves over the lines, and Enter on a dependency (or on a spec that
uses this one) that is in the corpus jumps to it. Lines wrap to the pane's width.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive

from cachetui.app.actions import bindings_of
from cachetui.app.widgets.pick_list import PickList
from cachetui.core.model.corpus import SpecView, arch_triple
from cachetui.core.model.dependencies import TreeLine
from cachetui.core.spack.deptypes import deptype_names
from cachetui.core.spack.hashes import hash_reference, is_valid_hash
from cachetui.core.spack.tags import named_stacks
from cachetui.core.spack.variants import parse_variants
from cachetui.present.details.provenance_pane import FAIL, GOOD, QUIET, WARN, PaneProvenance, provenance_rows
from cachetui.present.details.pushed import pushed_line
from cachetui.present.format import counted, describe_variant, display_path, human_size
from cachetui.present.inert import inert

LABEL_WIDTH = 9
INDENT = 2


@dataclass(frozen=True)
class UsedBy:
    spec: int
    label: str  # `name@version /short  tag`
    deptypes: int


@dataclass(frozen=True)
class SpecDetail:
    spec: SpecView
    tags: tuple[str, ...]  # every tag in which this hash appears
    has_dependency_data: bool = False  # mirror indexes record dependencies; site documents do not
    with_build: bool = False
    tree: tuple[TreeLine, ...] = ()
    used_by: tuple[UsedBy, ...] = ()
    more_used_by: int = 0
    missing: tuple[TreeLine, ...] = ()  # link/run records no loaded source holds: Spack would build them
    provenance: PaneProvenance | None = None  # a mirror's binary: its signature and download, as far as fetched
    pushed: str = ""  # when it was pushed, as said (present/details/pushed.py); "": no loaded source says it of any


Line = tuple[Text, int | None]  # the text, and the spec Enter jumps to


def detail_lines(detail: SpecDetail | None) -> list[Line]:
    if detail is None:
        return [(Text("No spec selected.", style="dim"), None)]
    # Who signed it and what installing it downloads come right after what it is: the first lines a
    # short pane shows (the table's row above already says how it was built).
    return [*_identity(detail.spec), *_provenance(detail), *_about(detail), *_installable(detail),
            *_variants(detail.spec), *_dependencies(detail), *_users(detail)]


def _row(label: str, value: str, style: str = "") -> Line:
    return Text.assemble((f"{label:<{LABEL_WIDTH}}", "bold"), (inert(value), style)), None


def _identity(spec: SpecView) -> list[Line]:
    lines = [_row("hash", spec.hash, "bold cyan"), _row("short", hash_reference(spec.hash), "cyan")]
    if not is_valid_hash(spec.hash):
        lines.append(_row("", "not a valid Spack hash (32 chars of a-z, 2-7)", "yellow"))
    return [*lines, _row("package", f"{spec.package}@{spec.version}")]


def _about(detail: SpecDetail) -> list[Line]:
    spec = detail.spec
    return [
        _row("compiler", spec.compiler),
        _row("arch", arch_triple(spec.platform, spec.os, spec.target)),
        _row("tags", ", ".join(detail.tags)),
        _row("stacks", ", ".join(named_stacks(spec.stacks)) or "-"),
        _row("size", human_size(spec.size)),
        *([_row("pushed", pushed)] if (pushed := pushed_line(detail.pushed, _recorded(detail))) else []),
        _row("source", display_path(spec.path), "dim"),
    ]


def _recorded(detail: SpecDetail) -> str | None:
    """When the binary's own record says it was pushed, once fetched (the provenance section fetches it)."""
    binary = detail.provenance.binary if detail.provenance is not None else None
    return binary.pushed if binary is not None else None


def _installable(detail: SpecDetail) -> list[Line]:
    """Whether `spack install --use-buildcache only` can fetch it, and what it would have to build."""
    state = detail.spec.installable
    if state == "unknown":  # site documents: the dependencies line below says they are not recorded
        return []
    if state == "yes":
        return [_row("cache", "installable from the loaded caches alone", "green")]
    missing = detail.missing
    lines = [_row("cache", f"needs {counted(len(missing), 'build')} from source (no loaded source holds them)",
                  "yellow")]
    for line in missing:
        dep = line.dependency
        name = f"{dep.name}@{dep.version}" if dep.version else dep.name
        lines.append((Text.assemble(" " * (LABEL_WIDTH + 1), inert(name),
                                    (" " + inert(hash_reference(dep.hash)), "dim")), None))
    return lines


_TONE_STYLES = {GOOD: "green", WARN: "yellow", FAIL: "bold red", QUIET: "dim"}


class _Hanging(Text):
    """A labelled row whose wrapped lines start under its value (`wrap`), so the label column stays clear."""


def _provenance(detail: SpecDetail) -> list[Line]:
    if detail.provenance is None:
        return []
    lines: list[Line] = []
    for row in provenance_rows(detail.provenance, detail.spec.hash):
        text = _Hanging()
        text.append(f"{row.label:<{LABEL_WIDTH}}", "bold")
        text.append(inert(row.value), _TONE_STYLES.get(row.tone, ""))
        lines.append((text, None))
    return lines


def _variants(spec: SpecView) -> list[Line]:
    lines: list[Line] = [(Text("variants", style="bold"), None)]
    variants = [v for raw in spec.raw_variants for v in parse_variants(raw)]
    if not variants:
        lines.append((Text("  (none)", style="dim"), None))
    for variant in variants:
        state, shown = describe_variant(variant)
        style = {"on": "green", "off": "red"}.get(state, "")
        lines.append((Text.assemble((f"  {state:<6}", style), inert(shown)), None))
    return lines


def _kinds(with_build: bool) -> str:
    return "link, run, build" if with_build else "link, run; b adds build"


def _dependencies(detail: SpecDetail) -> list[Line]:
    if not detail.has_dependency_data:
        return [(Text("dependencies  not recorded in site documents (mirror indexes carry them)", style="dim"), None)]
    lines: list[Line] = [(Text.assemble(("dependencies", "bold"), (f"  {_kinds(detail.with_build)}", "dim")), None)]
    if not detail.tree:
        lines.append((Text("  (none)", style="dim"), None))
    for line in detail.tree:
        dep = line.dependency
        name = f"{dep.name}@{dep.version}" if dep.version else dep.name
        text = Text(" " * (INDENT * line.depth))
        text.append(inert(name), "bold" if line.spec is not None else "")
        text.append(" " + inert(hash_reference(dep.hash)), "cyan" if line.spec is not None else "dim")
        if dep.virtuals:
            text.append(f"  provides {inert(dep.virtuals)}", "dim")
        if line.spec is None:
            text.append("  external, not in the cache" if line.external else "  not in the cache", "dim")
        if line.repeated:
            text.append("  (above)", "dim")
        lines.append((text, line.spec))
    return lines


def _users(detail: SpecDetail) -> list[Line]:
    if not detail.has_dependency_data:
        return []
    users = counted(len(detail.used_by) + detail.more_used_by, "spec")
    lines: list[Line] = [(Text.assemble(("used by", "bold"), (f"  {users} in the corpus", "dim")), None)]
    for user in detail.used_by:
        kinds = ",".join(deptype_names(user.deptypes))
        lines.append((Text.assemble("  ", inert(user.label), (f"  {kinds}", "dim")), user.spec))
    if detail.more_used_by:
        lines.append((Text(f"  … {detail.more_used_by} more", style="dim"), None))
    return lines


@dataclass
class DetailRows:
    """The detail's lines wrapped to a width; each wrapped row remembers where Enter jumps."""

    rows: list[Line]
    initial_cursor: int | None = 0

    def __len__(self) -> int:
        return len(self.rows)

    def text(self, row: int, width: int) -> Text:
        return self.rows[row][0]

    def selectable(self, row: int) -> bool:
        return True

    def target(self, row: int) -> int | None:
        return self.rows[row][1]


def wrap(lines: list[Line], width: int, console: Console) -> list[Line]:
    wrapped: list[Line] = []
    for text, target in lines:
        if isinstance(text, _Hanging) and text.cell_len > width > 2 * LABEL_WIDTH:
            values = text[LABEL_WIDTH:].wrap(console, width - LABEL_WIDTH)
            pieces = [Text.assemble(text[:LABEL_WIDTH] if n == 0 else " " * LABEL_WIDTH, value)
                      for n, value in enumerate(values)]
        else:
            pieces = list(text.wrap(console, max(1, width))) if text.cell_len > width else [text]
        wrapped.extend((piece, target) for piece in pieces)
    return wrapped


def _key(text: Text) -> Hashable:
    """What a detail line's paint depends on: its text and styles."""
    return text.plain, tuple(text.spans), text.style, text.justify


class DetailPane(PickList):
    """Posts `Jump(spec)` on Enter over a dependency or user that is in the corpus."""

    BINDINGS = bindings_of("detail")

    detail: reactive[SpecDetail | None] = reactive(None, always_update=True)

    @dataclass
    class Jump(Message):
        spec: int

    class BuildToggled(Message):
        """The user asked to show (or hide) build dependencies."""

    def watch_detail(self, old: SpecDetail | None, new: SpecDetail | None) -> None:
        # The same spec shown anew (`b` adds or drops build dependencies) keeps the reader's place;
        # another spec opens at its top.
        same = (old is not None and new is not None
                and (old.spec.index, old.spec.hash) == (new.spec.index, new.spec.hash))
        self._rewrap(keep_cursor=same)

    def on_resize(self) -> None:
        self._rewrap(keep_cursor=True)
        super().on_resize()

    def _rewrap(self, keep_cursor: bool) -> None:
        rows = wrap(detail_lines(self.detail), self.content_width or 80, self.app.console)
        cursor = self._same_line(rows) if keep_cursor else 0
        old = self.source.rows if isinstance(self.source, DetailRows) else None
        if old is None or len(old) != len(rows) or cursor != self.cursor:
            self.source = DetailRows(rows, cursor)
            return
        # The next spec's details mostly read as this one's (its labels, often its package, compiler and
        # dependencies): only the lines that differ are repainted, not every line of the pane at each cursor move.
        self.set_reactive(DetailPane.source, DetailRows(rows, cursor))
        self.rows_reworded(row for row, (was, now) in enumerate(zip(old, rows)) if _key(was[0]) != _key(now[0]))

    def row_key(self, row: int) -> Hashable:
        # What the line shows: a line that reads the same for the next spec keeps its paint.
        source = self.source
        return _key(source.rows[row][0]) if isinstance(source, DetailRows) and row < len(source) else row

    def forget_rows(self) -> None:
        pass  # keyed by what they show, painted lines stay true (the cache is bounded)

    def _same_line(self, rows: list[Line]) -> int:
        """Where the cursor's line is among `rows` (the nearest copy of it), else the cursor's row."""
        old = self.source.rows if isinstance(self.source, DetailRows) else []
        if not 0 <= self.cursor < len(old):
            return self.cursor
        text, target = old[self.cursor]
        found = [row for row, (t, g) in enumerate(rows) if g == target and t.plain == text.plain]
        return min(found, key=lambda row: abs(row - self.cursor)) if found else self.cursor

    def _set_virtual_size(self, size: Size) -> None:
        # Its scrollbar always shows (app.tcss), a track with no thumb while every line fits: a
        # scrollbar coming and going would lay out the screen, a frame later, at many cursor moves.
        super()._set_virtual_size(size.with_height(max(size.height, self.scrollable_content_region.height)))

    def row_chosen(self, row: int) -> None:
        target = self.source.target(row) if isinstance(self.source, DetailRows) else None
        if target is not None:
            self.post_message(self.Jump(target))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_build":
            return self.detail is not None and self.detail.has_dependency_data
        return True

    def action_toggle_build(self) -> None:
        self.post_message(self.BuildToggled())
