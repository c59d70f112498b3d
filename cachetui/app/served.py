"""The browser as one web visitor's session of `cachetui serve` (textual-serve starts one process per tab).

What changes for a visitor, who is not the server's user:
- sources are named by label, never by the server's paths (`cachetui.present.serve.served`);
- `e` downloads the table in the visitor's browser (Textual's `deliver_text`); no prompt takes a path,
  and nothing is written to the server's disk;
- copies go through OSC 52 only, which the page hands to the browser's clipboard; never to a
  clipboard tool on the server;
- the copy menu's mirror line names a mirror the visitor can reach, or is left out.

Run as `python -m cachetui.app.served`, with its sources in the environment (`ServeConfig`).
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from textual import events, on, work

from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.export_dialog import NameDialog
from cachetui.app.paused_start import run_collector_paused
from cachetui.app.server_lifetime import end_with_server
from cachetui.core.load import CyclicGcPause, Provenance
from cachetui.core.model.corpus import Corpus, Document
from cachetui.core.model.records import MirrorOrigin
from cachetui.present.inert import inert
from cachetui.present.output.export import export_format, export_text
from cachetui.present.serve.served import (
    ENVIRONMENT,
    DownloadRefused,
    Labels,
    ServeConfig,
    ServedProvenance,
    download_name,
    served_corpus,
)
from cachetui.present.spec_table.table_cells import SpecRows

EXPORT = "export"
MIME_TYPES = {"csv": "text/csv", "json": "application/json"}


class ServedApp(CacheTuiApp):
    served = True

    def __init__(self, config: ServeConfig, gc_pause: CyclicGcPause | None = None) -> None:
        # No local clipboard tool: it would copy to the server's desktop, not the visitor's.
        super().__init__(config.inputs, config.load, system_clipboard=False, gc_pause=gc_pause)
        self._labels = Labels(config.inputs)
        self._mirror_urls = dict(config.mirror_urls)
        self._origins: Mapping[Document, MirrorOrigin | None] = {}
        self._browser_clipboard = config.browser_clipboard

    def presented(self, corpus: Corpus) -> Corpus:
        shown, origins = served_corpus(corpus, self._labels, self._mirror_urls)
        self._origins = origins  # replaced whole, before the screen gets the corpus that uses it
        return shown

    def provenance_of(self, corpus: Corpus) -> Provenance:
        return ServedProvenance(corpus, self._labels)

    def mirror_origin(self, document: Document, corpus: Corpus) -> MirrorOrigin | None:
        return self._origins.get(document)

    def copy_text(self, text: str, what: str) -> None:
        if self._browser_clipboard:
            super().copy_text(text, what)
            return
        self.copy_to_clipboard(text)  # in case the browser allows it after all
        self.notify(inert(text) + "\n\nThis page is not on https, so the browser keeps its clipboard closed: "
                    "select the text with Shift+drag and copy it.",
                    title=inert(f"Select the {what} to copy it"), markup=False, timeout=20)

    def export_rows(self, suggested: str, rows: SpecRows) -> None:
        """`e`: ask only for a file name, then the visitor's browser downloads the rows."""
        if not self.is_web:  # any other driver would save into the server's Downloads folder
            self.notify("Export downloads in a web browser; this session has none.", severity="error", markup=False)
            return
        self._download_flow(suggested, rows)

    @work(group="export-dialog", exclusive=True, exit_on_error=False)
    async def _download_flow(self, suggested: str, rows: SpecRows) -> None:
        name = await self.push_screen_wait(DownloadDialog(suggested, len(rows.indices)))
        if name:
            self._download(name, rows)

    @work(thread=True, group="export", name="export", description="export", exit_on_error=False)
    def _download(self, name: str, data: SpecRows) -> None:
        text = export_text(data.corpus, data.indices.tolist(), export_format_of(name))
        self.call_from_thread(self._deliver, name, text, len(data.indices))

    def _deliver(self, name: str, text: str, rows: int) -> None:
        self.deliver_text(io.StringIO(text), save_filename=name, encoding="utf-8",
                          mime_type=MIME_TYPES[export_format_of(name)], name=EXPORT)
        self.notify(inert(f"{rows} specs as {name}: your browser downloads it"), title="Export", markup=False)

    @on(events.DeliveryFailed)
    def _download_failed(self, event: events.DeliveryFailed) -> None:
        if event.name == EXPORT:
            self.notify(inert(f"The download failed: {event.exception}"), severity="error", markup=False)


def export_format_of(name: str) -> str:
    return export_format(Path(name))


class DownloadDialog(NameDialog[str]):
    """Dismisses with a file name (no directory: it is the download's name in the browser), or None."""

    DEFAULT_CSS = """
    DownloadDialog { align: center middle; }
    DownloadDialog .dialog { width: 72; height: auto; }
    DownloadDialog #download-name-problem { height: auto; }
    """
    NAME_ID = "download-name"
    REFUSALS = (DownloadRefused,)

    def __init__(self, suggested: str, rows: int) -> None:
        super().__init__(f"Download {rows} specs  (a file name, .csv or .json; enter downloads, esc cancels)",
                         suggested)

    def checked(self, text: str) -> str:
        return download_name(text)


def main() -> int:
    try:
        config = ServeConfig.from_environment(os.environ)
    except (KeyError, ValueError, TypeError):
        print(f"cachetui: this runs one session of 'cachetui serve' (no {ENVIRONMENT} in the environment)",
              file=sys.stderr)
        return 2
    if not end_with_server(config.server_pid):
        return 0  # its server is gone: nobody would ever see this session
    # The session's imports are done by now; what they made is frozen before the first frame, as in a terminal.
    run_collector_paused(lambda pause: ServedApp(config, gc_pause=pause))
    return 0


if __name__ == "__main__":
    sys.exit(main())
