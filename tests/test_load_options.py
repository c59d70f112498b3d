"""The load's options: chosen once (on the command line), handed to load_corpus, the browser and serve whole."""

from __future__ import annotations

from cachetui.cli.main import browse_parser
from cachetui.cli.options import load_options
from cachetui.core.load import LoadOptions, load_corpus, sample_path


def test_the_command_line_chooses_every_load_option_in_one_value() -> None:
    args = browse_parser().parse_args(["--max-file-size", "2", "--no-cache", "--workers", "3", "--timeout", "4.5"])
    assert load_options(args) == LoadOptions(max_file_bytes=2 * 2**20, use_cache=False, workers=3, timeout=4.5)


def test_the_command_line_asks_for_the_warm_cache_unless_told_not_to() -> None:
    assert load_options(browse_parser().parse_args([])) == LoadOptions(use_cache=True)


def test_a_load_uses_the_users_warm_cache_only_when_asked() -> None:
    assert load_corpus([sample_path()]).cache_status == "off"
    assert load_corpus([sample_path()], LoadOptions(use_cache=True)).cache_status == "miss"
    assert load_corpus([sample_path()], LoadOptions(use_cache=True)).cache_status == "hit"
