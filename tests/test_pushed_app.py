"""The browser's pushed column: hidden at first, offered by the columns dialog (`v`), shown once chosen."""

from __future__ import annotations

from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.columns_dialog import ColumnsDialog
from cachetui.app.widgets.check_list import CheckList
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.load.sample import sample_path
from tests.app.helpers import wait_loaded


async def test_the_pushed_column_is_hidden_at_first_and_shown_once_chosen_in_the_columns_dialog() -> None:
    app = CacheTuiApp([str(sample_path())], system_clipboard=False)
    async with app.run_test(size=(220, 40)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        assert table.row_count and "pushed" in table.hidden and "pushed" not in table.shown_columns
        await pilot.press("v")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ColumnsDialog)
        checks = dialog.query_one(CheckList)
        keys = [checks.get_option_at_index(i).value for i in range(checks.option_count)]
        assert "pushed" in keys and "pushed" not in checks.selected  # offered, unchecked
        checks.highlighted = keys.index("pushed")
        await pilot.press("space", "escape")
        await wait_loaded(pilot)
        assert "pushed" not in table.hidden and "pushed" in table.shown_columns
        titles = table.header_text(1, table.content_width).plain  # under the common line
        at = titles.index(" pushed ") + 1
        assert table.row_text(0, table.content_width).plain[at:].split()[0] == "-"  # the sample's sources never say
