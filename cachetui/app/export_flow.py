"""`e` in a terminal: ask for a path, ask before replacing a file, write in a thread, say what happened."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual.app import App

from cachetui.app.dialogs.choice_dialog import ChoiceDialog
from cachetui.app.dialogs.export_dialog import ExportDialog
from cachetui.present.format import counted
from cachetui.present.inert import inert
from cachetui.present.output.export import ExportExists, ExportRefused, export_specs
from cachetui.present.spec_table.table_cells import SpecRows


async def export_flow(app: App[None], suggested: str, rows: SpecRows, roots: Sequence[str]) -> None:
    """Run from a worker: each dialog is awaited with `push_screen_wait`."""
    target: Path | None = await app.push_screen_wait(ExportDialog(suggested, len(rows.indices), roots))
    while target is not None:
        replace_file = False
        if target.exists():
            choices = [(Text("Replace it"), True), (Text("Cancel"), False)]
            if not await app.push_screen_wait(ChoiceDialog(f"{inert(str(target))} exists", choices)):
                return
            replace_file = True
        try:
            await asyncio.to_thread(export_specs, target, rows.corpus, rows.indices.tolist(), replace=replace_file)
        except ExportExists:  # appeared while we asked or wrote: ask again, never clobber
            continue
        except ExportRefused as exc:
            app.notify(inert(str(exc)), severity="error", markup=False)
        else:
            app.notify(inert(f"{counted(len(rows.indices), 'spec')} to {target}"), title="Exported", markup=False)
        return
