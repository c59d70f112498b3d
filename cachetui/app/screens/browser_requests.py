"""What the browser asks of the app for the binary under the cursor or the table as shown: copying it,
exporting the table, the problems screen. The app answers the requests (a served session its own way).

A plain part the browser screen holds, as it holds its answers and its coverage routes: its keys' actions
call these, so the screen stays routing.
"""

from __future__ import annotations

from textual.screen import Screen

from cachetui.app.requests import CopyMenuRequested, CopyRequested, ExportRequested
from cachetui.app.widgets.browser_body import BrowserBody
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine
from cachetui.core.model.corpus import Corpus
from cachetui.present.browse.answer import file_safe


class BrowserRequests:
    def __init__(self, screen: Screen[None]) -> None:
        self._screen = screen

    def copy_hash(self) -> None:
        from cachetui.app.dialogs.copy_menu import spec_copy_choices  # the dialogs load when first asked for

        if (spec := self._screen.query_one(BrowserBody).selected) is not None:
            what, text = spec_copy_choices(spec, None)[0]
            self._screen.post_message(CopyRequested(text, what))

    def copy_menu(self, corpus: Corpus | None) -> None:
        body = self._screen.query_one(BrowserBody)
        if (spec := body.selected) is not None and corpus is not None:
            signature = body.provenance_follower.known_signature(spec.index)  # its signer may be a key Spack trusts
            self._screen.post_message(CopyMenuRequested(spec, corpus, signature))

    def export(self, package: str | None) -> None:
        """The table as shown now: its rows are taken at the key, so a later answer cannot swap them."""
        data = self._screen.query_one(SpecTable).data
        if data is None or self._screen.query_one(StatusLine).status.busy:
            self._screen.notify("The table is being updated; export once it shows the answer.", markup=False)
            return
        self._screen.post_message(ExportRequested(f"cachetui-{file_safe(package or 'all')}.csv", data))

    def problems(self, corpus: Corpus | None) -> None:
        from cachetui.app.dialogs.problems import ProblemsScreen

        if corpus is not None:
            self._screen.app.push_screen(ProblemsScreen(corpus.report, self._screen.query_one(QueryBar).problem))
