"""The user's config.toml: read and checked without Textual, bad entries said by file, line and key;
the theme saved by rewriting its line alone; `cachetui config`; only the browser reads the file."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cachetui.app.user_settings import TEXTUAL_NAMES, textual_names_text
from cachetui.cli.main import browse_parser, browser_app, main
from cachetui.cli.options import UsageError
from cachetui.core.load.sample import sample_path
from cachetui.present.config.known import known
from cachetui.present.config.settings import (
    Known,
    Settings,
    config_path,
    effective_toml,
    parse_settings,
    read_settings,
    settings_table,
)
from cachetui.present.config.settings_declared import (
    HIDDEN_COLUMNS,
    KEYMAP,
    SETTINGS,
    SOURCES,
    THEME,
    Checked,
    Setting,
    kind_of,
    refused,
)
from cachetui.present.config.settings_file import ThemeNotSaved, save_theme, with_theme
from cachetui.present.config.settings_text import MAX_BYTES
from cachetui.present.config.toml_lines import key_lines, toml_string
from cachetui.present.spec_table.table_layout import HIDDEN_AT_FIRST
from tests.spack_env import isolated_spack

APP_KNOWN = known()  # the app's binding ids, from its key rows, and Textual's names of keys and themes
KNOWN = Known({"browser.help": "question_mark", "browser.quit": "q", "table.sort": "s"},
              frozenset({"nord", "dracula", "textual-dark"}), "textual-dark",
              key_names=APP_KNOWN.key_names, character_keys=APP_KNOWN.character_keys)
PATH = Path("/home/u/.config/cachetui/config.toml")
REPO = Path(__file__).resolve().parent.parent


def parsed(text: str):  # noqa: ANN201 - a test helper
    return parse_settings(text, PATH, KNOWN)


def write_config(home: Path, text: str) -> Path:
    path = home / "cachetui" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# -- reading and checking -------------------------------------------------------------------------------------

def test_a_binding_id_quoted_or_dotted_is_the_same_binding() -> None:
    quoted = parsed('[keymap]\n"browser.help" = "f2"\n')
    dotted = parsed('[keymap]\nbrowser.help = "f2"\n')
    top_level = parsed('keymap."browser.help" = "f2"\n')
    assert quoted.settings[KEYMAP] == dotted.settings[KEYMAP] == top_level.settings[KEYMAP] == {"browser.help": "f2"}
    assert not quoted.bad and not dotted.bad and not top_level.bad


def test_every_setting_is_read() -> None:
    user = parsed('theme = "nord"\nsources = ["/m", "v1=https://example.org/m"]\n'
                  'hidden_columns = ["variants", "os"]\n[keymap]\n"table.sort" = "o,ctrl+o"\n')
    assert user.settings == Settings({"keymap": {"table.sort": "o,ctrl+o"}, "theme": "nord",
                                      "sources": ("/m", "v1=https://example.org/m"),
                                      "hidden_columns": frozenset({"variants", "os"})})
    assert user.given == {"theme", "sources", "hidden_columns", "keymap"} and not user.bad


def test_no_file_is_every_default(tmp_path: Path) -> None:
    user = read_settings(tmp_path / "config.toml", KNOWN)
    assert not user.found and not user.bad
    assert user.settings == Settings() and user.settings[HIDDEN_COLUMNS] == HIDDEN_AT_FIRST


def test_an_unknown_binding_id_is_one_line_naming_file_line_and_key_and_the_rest_applies() -> None:
    user = parsed('theme = "nord"\n\n[keymap]\nbrowser.quit = "ctrl+q"\nbrowser.hlep = "f2"\n')
    assert user.settings[THEME] == "nord" and user.settings[KEYMAP] == {"browser.quit": "ctrl+q"}
    [problem] = user.problems()
    assert problem.described() == (f"{PATH}:5: keymap.browser.hlep: no binding id 'browser.hlep' "
                                   "(did you mean 'browser.help'?)")


def test_malformed_toml_names_its_line_and_every_setting_keeps_its_default() -> None:
    user = parsed('theme = "nord"\n[keymap]\nbrowser.help = f2\n')
    assert user.settings == Settings()
    [problem] = user.problems()
    assert problem.line == 3 and problem.path == str(PATH)
    assert "not valid TOML" in problem.described() and "\n" not in problem.described()


@pytest.mark.parametrize(("text", "line", "key"), [
    ('sources = ["/m"]\ntheme = 3\n', 2, "theme"),
    ('sources = "/m"\n', 1, "sources"),
    ('hidden_columns = ["os", 4]\n', 1, "hidden_columns"),
    ('keymap = "f2"\n', 1, "keymap"),
    ('[keymap]\n"browser.help" = ["f2"]\n', 2, 'keymap."browser.help"'),
    ('[keymap]\n"browser.help" = ""\n', 2, 'keymap."browser.help"'),
])
def test_a_value_of_the_wrong_type_is_a_bad_entry_and_keeps_that_default(text: str, line: int, key: str) -> None:
    user = parsed(text)
    [entry] = user.bad
    assert (entry.line, entry.key) == (line, key)
    setting = next(setting for setting in SETTINGS if setting.name == key.split(".")[0])
    assert user.settings[setting] == Settings()[setting]


@pytest.mark.parametrize(("text", "wrong"), [
    ('theme = "nrod"\n', "theme"),
    ('hidden_columns = ["variants", "colour"]\n', "hidden_columns"),
    ('hiden_columns = ["os"]\n', "hiden_columns"),
])
def test_an_unknown_theme_column_or_setting_is_a_bad_entry(text: str, wrong: str) -> None:
    user = parsed(text)
    [entry] = user.bad
    assert entry.key == wrong and entry.line == 1
    assert user.settings == Settings()


def test_a_binding_given_quoted_and_dotted_is_said_twice() -> None:
    user = parsed('[keymap]\n"browser.help" = "f2"\nbrowser.help = "f3"\n')
    assert len(user.bad) == 1 and "twice" in user.bad[0].reason
    assert user.settings[KEYMAP] == {"browser.help": "f2"}


def test_a_column_is_named_as_csv_heads_it_or_as_the_table_titles_it() -> None:
    assert parsed('hidden_columns = ["installable", "cache-only", "os"]\n').settings[HIDDEN_COLUMNS] == {
        "installable", "os"}


def test_sources_starting_with_a_tilde_are_in_the_home_folder() -> None:
    sources = parsed('sources = ["~/mirror", "https://example.org/~x"]\n').settings[SOURCES]
    assert sources == (os.path.expanduser("~/mirror"), "https://example.org/~x")


def test_the_scan_finds_keys_in_tables_dotted_and_quoted() -> None:
    text = ('# c\ntheme = "x"\n[keymap]\nbrowser.help = "f2"\n"a.b" = "x"  # note\n'
            "[keymap.table]\nsort = 's'\n")
    lines = key_lines(text)
    assert lines[("theme",)] == 2 and lines[("keymap",)] == 3
    assert lines[("keymap", "browser", "help")] == 4 and lines[("keymap", "a.b")] == 5
    assert lines[("keymap", "table", "sort")] == 7


def test_a_key_in_an_inline_table_is_said_on_the_line_of_its_table() -> None:
    user = parsed('theme = "nord"\nkeymap = { "browser.hlep" = "f2" }\n')
    assert user.bad[0].line == 2


def test_a_hostile_key_is_said_inert() -> None:
    user = parsed('[keymap]\n"\\u001b]0;owned\\u0007" = "f2"\n')
    described = user.problems()[0].described()
    assert "\x1b" not in described and "\x07" not in described and "\\x1b" in described


def test_the_config_file_is_under_xdg_config_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_path() == tmp_path / "cachetui" / "config.toml"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert config_path() == Path(os.path.expanduser("~/.config/cachetui/config.toml"))


def test_every_binding_of_the_app_comes_from_a_key_row_and_can_be_remapped() -> None:
    """No BINDINGS of the app is written out by hand: each is its part's rows (so each has an id the keymap
    may name); a `Binding(` with an id anywhere in the app would be a key no row declares."""
    for source in (REPO / "cachetui" / "app").rglob("*.py"):
        assert not re.findall(r'Binding\([^)]*\bid=f?["\']', source.read_text()), source
    assert {"browser.help", "app.quit", "copy.1", "table.sort"} <= set(APP_KNOWN.bindings)


# -- the theme, saved -------------------------------------------------------------------------------------------

ORIGINAL = ('# my cachetui\r\n\r\ntheme = "nord"   # was dark\r\nsources = [\r\n  "/m",  # the site\r\n]\r\n'
            '\r\n[keymap]\r\nbrowser.help = "f2"\r\n')


def test_choosing_a_theme_rewrites_only_its_line() -> None:
    changed = with_theme(ORIGINAL, "dracula")
    assert changed == ORIGINAL.replace('theme = "nord"', 'theme = "dracula"')


def test_a_theme_is_added_before_the_first_table_and_its_comment() -> None:
    text = 'sources = ["/m"]\n\n# keys\n[keymap]\nbrowser.help = "f2"\n'
    assert with_theme(text, "nord") == 'sources = ["/m"]\n\ntheme = "nord"\n# keys\n[keymap]\nbrowser.help = "f2"\n'


def test_a_theme_is_added_at_the_end_of_a_file_without_tables() -> None:
    assert with_theme('sources = ["/m"]', "nord") == 'sources = ["/m"]\ntheme = "nord"\n'
    assert with_theme("", "nord") == 'theme = "nord"\n'


def test_a_file_that_is_not_toml_is_not_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("theme = nord\n")
    with pytest.raises(ThemeNotSaved, match="not valid TOML"):
        save_theme(path, "dracula")
    assert path.read_text() == "theme = nord\n"


def test_the_theme_is_saved_atomically_keeping_the_files_mode(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(ORIGINAL.encode())
    path.chmod(0o640)
    before = path.stat().st_ino
    save_theme(path, "dracula")
    assert path.read_bytes() == ORIGINAL.replace('"nord"', '"dracula"').encode()
    assert path.stat().st_ino != before  # a new file put in its place, never the old one written over
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["config.toml"]  # no temporary file left


def test_a_symlinked_file_is_saved_where_it_lives(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "cachetui.toml"
    real.parent.mkdir()
    real.write_text('theme = "nord"\n')
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    save_theme(link, "dracula")
    assert link.is_symlink() and real.read_text() == 'theme = "dracula"\n'


def test_a_missing_file_and_folder_are_made(tmp_path: Path) -> None:
    path = tmp_path / "cachetui" / "config.toml"
    save_theme(path, "nord")
    assert path.read_text() == 'theme = "nord"\n'


# -- cachetui config -------------------------------------------------------------------------------------------

def test_effective_settings_mark_defaults_and_name_what_a_change_replaced() -> None:
    text = effective_toml(parsed('[keymap]\nbrowser.help = "f2"\n'), KNOWN)
    assert 'theme = "textual-dark"  # default\n' in text
    assert 'sources = []  # default: the bundled sample\n' in text
    assert '"browser.help" = "f2"  # default: "question_mark"\n' in text
    assert '"browser.quit" = "q"  # default\n' in text


def test_toml_strings_are_inert_and_read_back() -> None:
    import tomllib

    value = 'a"\\\x1b]0;x\x07\u202e'
    written = toml_string(value)
    assert written.isprintable() and tomllib.loads(f"v = {written}")["v"] == value


def test_cachetui_config_prints_the_path_and_settings_and_exits_0(
        private_config_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# {private_config_home / 'cachetui' / 'config.toml'}: not found")
    assert '"browser.help" = "question_mark"  # default; Help' in out


def test_cachetui_config_exits_1_on_a_bad_entry_naming_file_line_and_key(
        private_config_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_config(private_config_home, '[keymap]\nbrowser.help = "f2"\n"browser.hlep" = "f3"\n')
    assert main(["config"]) == 1
    captured = capsys.readouterr()
    assert '"browser.help" = "f2"  # default: "question_mark"; Help' in captured.out
    assert captured.err == f"cachetui: {path}:3: keymap.\"browser.hlep\": no binding id 'browser.hlep' " \
                           "(did you mean 'browser.help'?)\n"


# -- only the browser reads it ---------------------------------------------------------------------------------

def test_headless_commands_never_read_the_file(private_config_home: Path, capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolated_spack(tmp_path, monkeypatch)  # no Spack mirror to read instead of a SOURCE
    monkeypatch.setenv("XDG_CONFIG_HOME", str(private_config_home))
    write_config(private_config_home, 'sources = ["/no/such/mirror"]\n')
    assert main(["check", "--no-cache", str(sample_path())]) == 0
    assert main(["query", "--no-cache", "--package", "py-mpi4py", "--format", "json"]) == 2  # no SOURCE, as without it
    assert "/no/such" not in capsys.readouterr().err


def test_the_browser_opens_the_files_sources_when_its_command_line_names_none(
        private_config_home: Path, tmp_path: Path) -> None:
    write_config(private_config_home, f'sources = ["{tmp_path}", "v1=file://{tmp_path}"]\n')
    assert browser_app(browse_parser().parse_args([])).paths == [str(tmp_path), f"v1=file://{tmp_path}"]
    assert browser_app(browse_parser().parse_args([str(sample_path())])).paths == [str(sample_path())]


def test_no_sources_in_the_file_opens_the_bundled_sample() -> None:
    assert browser_app(browse_parser().parse_args([])).paths == [str(sample_path())]


def test_a_missing_source_in_the_file_is_a_usage_error_naming_the_file(private_config_home: Path) -> None:
    path = write_config(private_config_home, 'sources = ["/no/such/mirror"]\n')
    with pytest.raises(UsageError, match=f"/no/such/mirror \\(in the sources of {re.escape(str(path))}\\)"):
        browser_app(browse_parser().parse_args([]))


def test_make_run_opens_the_bundled_sample_whatever_the_files_sources(
        private_config_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(private_config_home, f'sources = ["{tmp_path}"]\n')
    shown = subprocess.run(["make", "-n", "--no-print-directory", "run"], cwd=REPO, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    command = next(line for line in shown if "bin/cachetui" in line).split()[1:]
    monkeypatch.chdir(REPO)
    app = browser_app(browse_parser().parse_args(command))
    assert [Path(p).resolve() for p in app.paths] == [sample_path().resolve()]


def test_the_key_names_and_themes_config_checks_against_are_textuals() -> None:
    """`cachetui config` reads them from present/config/textual_names.py (no Textual); rewrite it with
    `python -m cachetui.app.user_settings` when Textual changes."""
    assert TEXTUAL_NAMES.read_text() == textual_names_text()


# -- a file that lies about itself: bounded, never an internal error (issue 39, point 5) ----------------------

def test_a_device_is_one_bad_entry_and_every_setting_its_default(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.symlink_to("/dev/null")  # /dev/zero would grow without end; the kind is refused before any read
    user = read_settings(path, KNOWN)
    assert user.found and user.settings == Settings()
    [problem] = user.problems()
    assert problem.described() == f"{path}: a character device, not a regular file; every setting is its default"


def test_a_fifo_is_refused_without_waiting_for_a_writer(private_config_home: Path) -> None:
    path = private_config_home / "cachetui" / "config.toml"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    # a guard, not a target: before, reading the FIFO waited for a writer that never came
    done = subprocess.run([str(REPO / ".venv" / "bin" / "cachetui"), "config"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "XDG_CONFIG_HOME": str(private_config_home)})
    assert done.returncode == 1
    assert done.stderr == f"cachetui: {path}: a FIFO (named pipe), not a regular file; every setting is its default\n"
    assert '"browser.help" = "question_mark"  # default' in done.stdout


def test_a_file_over_the_cap_is_refused_whole(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "nord"\n' + "#" * MAX_BYTES)  # valid TOML, but no settings file is a megabyte
    user = read_settings(path, KNOWN)
    assert user.settings == Settings()
    [entry] = user.bad
    assert entry.reason == "larger than 1 MiB; every setting is its default"


def test_a_line_of_20000_spaces_is_read() -> None:
    # each line is scanned once: before, the key scan backtracked over the spaces (cubic: hours)
    user = parsed('theme = "nord"\n' + " " * 20_000 + "\n" + "\t " * 10_000 + "\n")
    assert user.settings[THEME] == "nord" and not user.bad
    assert key_lines('  a' + " " * 20_000 + ". b = 1\n") == {("a",): 1, ("a", "b"): 1}


@pytest.mark.parametrize(("text", "line", "reason"), [
    ("keymap." + ".".join(["a"] * 5000) + ' = "f2"\n', 1, "a key of more than 4 dotted parts is no setting"),
    ("[" + ".".join(["t"] * 5000) + "]\n", 1, "a key of more than 4 dotted parts is no setting"),
    ("x = " + "[" * 5000 + "]" * 5000 + "\n", None, "nested too deeply to be a setting"),
    ("x = " + "{a = " * 2000 + "1" + "}" * 2000 + "\n", None, "nested too deeply to be a setting"),
    ("x = " + "7" * 5000 + "\n", None, "not read: Exceeds the limit (4300 digits) for integer string conversion"),
])
def test_valid_toml_that_is_no_setting_is_one_bad_entry(text: str, line: int | None, reason: str) -> None:
    user = parsed(text)
    assert user.settings == Settings()
    [entry] = user.bad
    assert entry.line == line and entry.reason.startswith(reason)
    assert entry.reason.endswith("every setting is its default")


def test_a_deep_keymap_table_is_one_bad_entry() -> None:
    user = parsed('[keymap.a.a.a]\nb = "f2"\n[keymap]\nbrowser.help = "f2"\n')
    assert user.settings[KEYMAP] == {"browser.help": "f2"}
    [entry] = user.bad
    assert entry.line == 1 and entry.reason == "no binding id 'a.a.…'"


def test_a_line_that_only_looks_like_a_key_inside_a_multiline_string_is_read() -> None:
    # the scan reads lines, so it sees `"\UFFFFFFFF" = 1` as a key; no such character: left as written
    user = parsed("x = '''\n\"\\UFFFFFFFF\" = 1\n'''\ntheme = \"nord\"\n")
    assert user.settings[THEME] == "nord"
    [entry] = user.bad
    assert (entry.line, entry.key) == (1, "x")


def test_an_unknown_themes_echo_and_did_you_mean_are_bounded() -> None:
    [problem] = parsed('theme = "' + "nord" * 25_000 + '"\n').problems()
    assert problem.described() == (f"{PATH}:1: theme: no theme 'nordnordnordnordnordnordnordnordnordnord…' "
                                   "(100000 characters) (one of: dracula, nord, textual-dark)")


def test_a_hundred_thousand_bad_entries_list_fifty_and_count_the_rest() -> None:
    user = parsed("[keymap]\n" + "".join(f'"x{i}" = "f2"\n' for i in range(100_000)))
    assert len(user.bad) == 51 and user.bad[-1].reason == "99950 more bad entries, not listed"
    assert user.bad[0].line == 2 and user.bad[0].reason == "no binding id 'x0' ('cachetui config' lists them)"


def test_the_line_numbers_are_tomls_a_line_separator_in_a_string_ends_no_line() -> None:
    user = parsed('sources = ["a\u2028b"]\ntheme = 3\n')
    assert [entry.line for entry in user.bad] == [2]


# -- keymap values: keys that exist, and no two bindings of one view on one key (issue 39, point 6) -----------

def app_parsed(text: str):  # noqa: ANN201 - a test helper
    """Checked against the app's own bindings, keys and views."""
    return parse_settings(text, PATH, APP_KNOWN)


@pytest.mark.parametrize(("keys", "reason"), [
    ("ctlr+h", "'ctlr' is not a modifier (did you mean 'ctrl+h'?)"),
    ("shift+ctrl+a", "'shift+ctrl+a' is not a key: write 'ctrl+shift+a'"),
    ("ctrl+?", "'ctrl+?' is not a key: write 'ctrl+question_mark'"),
    ("f2,pgdown", "'pgdown' is not a key (did you mean 'pagedown'?)"),
    ("\x1b]2;owned\x07", "'\\x1b]2;owned\\x07' is not a key (keys are named as Textual names them)"),
    ("\u202e", "'right_to_left_override' is not a key (keys are named as Textual names them)"),
])
def test_a_key_that_does_not_exist_is_a_bad_entry_and_its_binding_keeps_its_default(keys: str, reason: str) -> None:
    user = app_parsed(f'[keymap]\n"browser.help" = {toml_string(keys)}\n"browser.quit" = "ctrl+q"\n')
    assert user.settings[KEYMAP] == {"browser.quit": "ctrl+q"}
    [entry] = user.bad
    assert (entry.line, entry.key, entry.reason) == (2, 'keymap."browser.help"', reason)
    assert user.problems()[0].described().isprintable()


def test_keys_as_textual_names_them_are_bound_and_no_others() -> None:
    keys = "f2, ctrl+h,?,§,ctrl+@,space,ctrl+shift+left,alt+shift+a,A,question_mark,ctrl+pagedown,f35,comma"
    user = app_parsed(f'[keymap]\n"browser.help" = "{keys}"\n"browser.search" = "ctrl+/"\n')
    assert user.settings[KEYMAP] == {"browser.help": keys}
    assert [entry.reason for entry in user.bad] == ["'ctrl+/' is not a key: write 'ctrl+slash'"]
    every_default = "".join(f"{toml_string(binding)} = {toml_string(default)}\n"
                            for binding, default in APP_KNOWN.bindings.items())
    assert not app_parsed("[keymap]\n" + every_default).bad


def test_a_key_taken_from_another_binding_of_the_same_view_is_one_line_naming_both() -> None:
    # `n` acts only in the coverage view, `c` only out of it; `s` of the table and `b` of the details are
    # panes apart; `q` closes the help before it quits the app, as by default: none of these is a clash
    apart = ('"browser.copy-menu" = "n"\n"detail.build-deps" = "s"\n"help.close" = "escape,question_mark,q"\n'
             '"browser.coverage-copy" = "y"\n')
    user = app_parsed('[keymap]\n"browser.help" = "f2"\n"browser.clear" = "s"\n' + apart)
    assert set(user.settings[KEYMAP]) == {"browser.help", "browser.copy-menu", "detail.build-deps", "help.close",
                                         "browser.coverage-copy"}  # browser.clear keeps `x`
    [problem] = user.problems()
    assert problem.described() == (f"{PATH}:3: keymap.\"browser.clear\": 's' is bound to both browser.clear and "
                                   "table.sort, which act together in the spec table; browser.clear keeps its "
                                   "default keys")


def test_two_of_the_files_bindings_on_one_key_both_keep_their_defaults() -> None:
    user = app_parsed('[keymap]\n"table.sort" = "z"\n"browser.clear" = "z"\n"browser.search" = "question_mark"\n')
    assert user.settings[KEYMAP] == {}
    assert [(entry.line, entry.reason) for entry in user.bad] == [
        (2, "'z' is bound to both browser.clear and table.sort, which act together in the spec table; both keep "
            "their default keys"),
        (4, "'question_mark' is bound to both browser.help and browser.search, which act together in the package "
            "list; browser.search keeps its default keys")]


def test_a_binding_taken_back_to_its_default_can_clash_in_turn() -> None:
    # browser.clear = s clashes with the table's sort, so it is `x` again, which browser.tag now holds
    user = app_parsed('[keymap]\n"browser.clear" = "s"\n"browser.tag" = "x"\n')
    assert user.settings[KEYMAP] == {}
    assert [entry.line for entry in user.bad] == [2, 3]
    assert "'x' is bound to both browser.clear and browser.tag" in user.bad[1].reason


# -- cachetui config: a source that does not exist (issue 39, point 14) --------------------------------------

def test_cachetui_config_reports_a_source_that_does_not_exist_as_a_bad_entry(
        private_config_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_config(private_config_home, f'theme = "nord"\nsources = [\n  "/no/such/mirror",\n'
                                             f'  "{sample_path()}",\n]\n')
    assert main(["config"]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"cachetui: {path}:2: sources: no such file or directory: /no/such/mirror\n"
    assert f'sources = ["/no/such/mirror", "{sample_path()}"]' in captured.out


def test_a_deep_key_is_refused_and_the_dots_of_a_string_or_a_comment_are_no_keys() -> None:
    [entry] = parsed('theme = "nord"\n' + ".".join(["a"] * 5000) + " = 1\n").bad
    assert (entry.line, entry.reason) == (2, "a key of more than 4 dotted parts is no setting; every setting is "
                                             "its default")
    user = parsed('# see a.b.c.d.e.f\nsources = ["/m/spack.mirror.v0.22.1.x86_64"]\nx = """\na.b.c.d.e.f = 1\n"""\n')
    assert user.settings[SOURCES] == ("/m/spack.mirror.v0.22.1.x86_64",)
    [entry] = user.bad
    assert entry.key == "x" and entry.reason.startswith("not a setting")


# -- each setting declared once: its type, default, check and help ---------------------------------------------

def _pager(value: object, known: Known) -> Checked[str]:
    if not isinstance(value, str):
        return refused(f"a pager is a string, not {kind_of(value)}")
    if value not in ("less", "most"):
        return refused(f"no pager {value!r}")
    return Checked(value)


PAGER = Setting("pager", "string", "less", _pager, lambda pager, known: toml_string(pager), "what pages long output")


@contextmanager
def declared(setting: Setting[str]) -> Iterator[None]:
    SETTINGS.declare(setting)
    try:
        yield
    finally:
        SETTINGS.withdraw(setting.name)


def config_output(capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["config"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_setting_declared_once_is_read_written_by_cachetui_config_and_documented(
        private_config_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with declared(PAGER):
        code, out, _ = config_output(capsys)
        assert code == 0 and 'pager = "less"  # default\n' in out
        path = write_config(private_config_home, 'theme = "nord"\npager = "most"\n')
        assert read_settings(path, KNOWN).settings[PAGER] == "most"
        code, out, _ = config_output(capsys)
        assert code == 0 and 'pager = "most"  # default: "less"\n' in out
        assert out.index("hidden_columns = ") < out.index("pager = ") < out.index("[keymap]")  # before any table
        write_config(private_config_home, 'pager = "more"\n')
        assert config_output(capsys)[::2] == (1, f"cachetui: {path}:1: pager: no pager 'more'\n")
        assert parsed('pager = "more"\n').settings[PAGER] == "less"
        assert "| `pager` | string | `\"less\"` | what pages long output |" in settings_table(KNOWN)


def test_a_setting_no_longer_declared_is_nowhere(private_config_home: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = write_config(private_config_home, 'pager = "most"\n')
    before = config_output(capsys), settings_table(KNOWN)
    with declared(PAGER):
        assert config_output(capsys)[0] == 0
    after = config_output(capsys), settings_table(KNOWN)
    assert after == before and "pager" not in before[0][1] and "pager" not in before[1]
    assert before[0][::2] == (1, f"cachetui: {path}:1: pager: not a setting "
                                 "(one of: hidden_columns, keymap, sources, theme)\n")


def test_a_setting_is_declared_once() -> None:
    with pytest.raises(ValueError, match="already declared"):
        SETTINGS.declare(Setting("theme", "string", "x", _pager, lambda value, known: value, "a second theme"))


TOML_VALUES = {"string": "x", "array of strings": ["x"], "table": {"x": "y"}}


@pytest.mark.parametrize("setting", list(SETTINGS), ids=SETTINGS.names)
def test_a_value_not_of_its_toml_type_is_refused_whole_and_the_default_is_of_it(setting: Setting[object]) -> None:
    for toml_type, value in [*TOML_VALUES.items(), ("number", 3), ("boolean", True)]:
        if toml_type != setting.toml_type:
            checked = setting.check(value, APP_KNOWN)
            assert checked.value is None and [refusal.at for refusal in checked.refused] == [((),)], toml_type
    if not setting.is_table:
        default = tomllib.loads(f"v = {setting.written(setting.default, APP_KNOWN)}")["v"]
        assert isinstance(default, type(TOML_VALUES[setting.toml_type]))
    assert Settings()[setting] == setting.default


def test_saving_the_theme_reads_the_file_as_the_reader_does(tmp_path: Path) -> None:
    """A FIFO is refused without waiting for a writer; a key too deep for tomllib, or nesting too deep, is refused
    before tomllib reads it: saving the theme chosen in the palette never hangs the browser."""
    import threading

    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    refused: list[str] = []

    def save() -> None:
        try:
            save_theme(fifo, "nord")
        except ThemeNotSaved as exc:
            refused.append(str(exc))

    saving = threading.Thread(target=save, daemon=True)
    saving.start()
    saving.join(timeout=30)  # a guard for the old behaviour (blocked on the FIFO), not a wait for the new one
    assert not saving.is_alive() and refused and "not a regular file" in refused[0]
    with pytest.raises(ThemeNotSaved, match="more than 4 dotted parts"):
        with_theme("keymap." + ".".join(["a"] * 5000) + " = 1\n", "nord")
    with pytest.raises(ThemeNotSaved, match="too deeply"):
        with_theme("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "nord")
