"""The README and docs/ stay true: their links and anchors resolve, every option of every command is on the
page that covers it, and every command line in a `sh` block runs as written on the bundled sample.

A line in a ```sh block is run; a line shown after a `$ ` prompt (in a ```console block) is an example
that needs the network, files of the reader's own or a terminal, and is not."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cachetui.cli.main import COMMANDS, _command_parser, browse_parser
from cachetui.present.config.known import known
from cachetui.present.config.settings import settings_table

KNOWN = known()  # the app's binding ids and Textual's names, as `cachetui config` checks with

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(DOCS.glob("*.md"))]

# The page that documents each command's own options. The options every command shares with the browser
# (`browse_parser`: sources, caps, the cache, --debug) are documented once, on SHARED_OPTIONS_PAGE.
COMMAND_PAGES = {
    "check": "cli.md",
    "query": "queries.md",
    "diff": "diff-and-export.md",
    "coverage": "coverage.md",
    "plan": "plan.md",
    "verify": "provenance.md",
    "serve": "serve.md",
    "config": "keys-and-settings.md",
}
SHARED_OPTIONS_PAGE = "sources.md"

FENCE = re.compile(r"^(```+|~~~+)(.*)$")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


# -- reading Markdown ---------------------------------------------------------------------------------------


def _blocks(text: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The lines outside fenced blocks, and each fenced block as (its language, its lines)."""
    prose: list[str] = []
    blocks: list[tuple[str, list[str]]] = []
    fence: str | None = None
    for line in text.splitlines():
        opened = FENCE.match(line.strip())
        if fence is None and opened:
            fence = opened.group(1)
            blocks.append((opened.group(2).strip(), []))
        elif fence is not None and line.strip().startswith(fence) and not line.strip()[len(fence):].strip():
            fence = None
        elif fence is not None:
            blocks[-1][1].append(line)
        else:
            prose.append(line)
    return prose, blocks


def _without_code_spans(line: str) -> str:
    return re.sub(r"(`+).*?\1", "", line)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: its text as rendered, lowercased, with every character that is not a
    letter, digit, space, hyphen or underscore dropped, and each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = text.replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    prose, _ = _blocks(page.read_text())
    seen: dict[str, int] = {}
    found = set()
    for line in prose:
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            slug = github_anchor(heading.group(1))
            found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
            seen[slug] = seen.get(slug, 0) + 1
    return found


def relative_links(page: Path) -> list[str]:
    prose, _ = _blocks(page.read_text())
    targets = [target for line in prose for target in LINK.findall(_without_code_spans(line))]
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]  # https:, mailto: are not ours


# -- links --------------------------------------------------------------------------------------------------


def test_github_anchors_are_made_as_github_makes_them() -> None:
    assert github_anchor("`verify`'s output and exit codes") == "verifys-output-and-exit-codes"
    assert github_anchor("What `spack install /HASH` downloads") == "what-spack-install-hash-downloads"
    assert github_anchor("Site scale: loading 500,000 specs") == "site-scale-loading-500000-specs"
    assert github_anchor("Where to add…") == "where-to-add"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


def test_every_docs_page_is_linked_from_the_index_and_opens_with_its_question() -> None:
    linked = {Path(t.partition("#")[0]).name for t in relative_links(DOCS / "index.md")}
    for page in DOCS.glob("*.md"):
        assert page.name == "index.md" or page.name in linked, f"docs/index.md does not link {page.name}"
        title = page.read_text().splitlines()[0]
        assert title.startswith("# ") and title.endswith("?"), f"{page.name} opens with {title!r}, not a question"


def test_the_readme_fits_in_a_page_or_two_and_starts_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    _, blocks = _blocks(readme)
    assert [line.split()[:2] for line in blocks[0][1]] == [["make", "run"], ["make", "test"]]


def test_the_design_notes_speak_of_the_design_not_of_issues() -> None:
    texts = [ROOT / "README.md", *DOCS.glob("*.md"), *(ROOT / "cachetui").rglob("*.py")]
    said = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in texts for m in re.finditer(r"issue [0-9]", p.read_text())]
    assert not said


# -- options ------------------------------------------------------------------------------------------------


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {option for action in parser._actions for option in action.option_strings} - {"-h", "--help"}


def _command(name: str) -> argparse.ArgumentParser:
    subparsers = next(a for a in _command_parser(name)._actions if isinstance(a, argparse._SubParsersAction))
    return subparsers.choices[name]


def _names(text: str, option: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None  # --public is not --public-url


def test_every_command_has_a_page() -> None:
    assert set(COMMAND_PAGES) == set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_of_a_command_is_on_its_page(command: str) -> None:
    page = (DOCS / COMMAND_PAGES[command]).read_text()
    assert f"cachetui {command}" in page
    own = _options(_command(command)) - _options(browse_parser())
    missing = [option for option in sorted(own) if not _names(page, option)]
    assert not missing, f"say what {missing} do in docs/{COMMAND_PAGES[command]}"


def test_every_option_the_commands_share_is_on_the_sources_page() -> None:
    page = (DOCS / SHARED_OPTIONS_PAGE).read_text()
    missing = [option for option in sorted(_options(browse_parser())) if not _names(page, option)]
    assert not missing, f"say what {missing} do in docs/{SHARED_OPTIONS_PAGE} (and link the page that explains them)"


# -- the settings -------------------------------------------------------------------------------------------


def test_the_table_of_settings_is_the_declared_settings() -> None:
    """Written from the declarations (`python scripts/settings_table.py`): a setting declared, withdrawn or
    changed (its type, default or help) shows on the page, and no row is kept by hand."""
    expected = settings_table(KNOWN).splitlines()
    lines = (DOCS / "keys-and-settings.md").read_text().splitlines()
    assert lines.count(expected[0]) == 1, "the page has one table of settings"
    start = lines.index(expected[0])
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    assert lines[start:end] == expected, "run `python scripts/settings_table.py`"


# -- command lines ------------------------------------------------------------------------------------------


def _command_lines() -> list[tuple[str, str]]:
    found = []
    for page in (ROOT / "README.md", *sorted(DOCS.glob("*.md"))):
        for language, lines in _blocks(page.read_text())[1]:
            if language == "sh":
                found += [(f"{page.relative_to(ROOT)}: {line.strip()}", line.strip()) for line in lines if line.strip()]
    return found


COMMAND_LINES = _command_lines()


@pytest.fixture(scope="module")
def xdg(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("xdg")
    return {"XDG_CACHE_HOME": str(home / "cache"), "XDG_CONFIG_HOME": str(home / "config")}


def test_the_docs_have_command_lines_to_run() -> None:
    assert len([line for _, line in COMMAND_LINES if line.startswith("cachetui ")]) >= 5


@pytest.mark.parametrize("line", [line for _, line in COMMAND_LINES], ids=[i for i, _ in COMMAND_LINES])
def test_a_command_line_in_a_sh_block_runs_as_written_on_the_sample(line: str, xdg: dict[str, str]) -> None:
    assert not line.startswith("$"), "a prompt marks an example that is not run: put it in a ```console block"
    command, _, comment = line.partition(" #")
    argv = shlex.split(command)
    if argv[0] != "cachetui":
        assert argv[:2] in (["make", "run"], ["make", "test"]), f"only cachetui lines run here: {line}"
        return
    assert argv[1] in COMMANDS and argv[1] != "serve", "the browser and serve do not return: show them with a $"
    assert not any("://" in a or a.startswith(("--public", "--spack-mirror")) for a in argv), "needs the network"
    expected = re.match(r"\s*exit (\d)", comment)
    done = subprocess.run(
        [sys.executable, "-m", "cachetui", *argv[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, **xdg},
    )
    assert done.returncode == (int(expected.group(1)) if expected else 0), done.stderr
    assert (done.stdout or done.stderr) and "Traceback" not in done.stderr
