"""What the commands say at the edges: refusals as usage errors, typed input echoed cut, counts in good
English, a diff of a package in neither tag, the `root` stack, and the docs' public mirror line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cachetui.app.app import CacheTuiApp
from cachetui.app.commands import FacetCommands
from cachetui.cli.main import main
from cachetui.core.load.sources.mirror import age
from cachetui.core.model.corpus import Document
from cachetui.core.query.spack_commands import mirror_add_command, mirror_of
from cachetui.core.spack.specquery import SpecSyntaxError, parse_spec_query
from tests.app.helpers import wait_loaded
from tests.conftest import WriteDoc, front_matter, listing, spec_entry

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LONG = 102_400  # a 100 KB token


def _query(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["query", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- the readings build caches do not record ----------------------------------------------------------------


@pytest.mark.parametrize("text", ["hdf5 %gcc+foo", "hdf5 %gcc target=x86_64", "hdf5 cflags=-O3",
                                  "zlib ^hdf5 %gcc +mpi"])
def test_what_caches_do_not_record_is_a_usage_error_and_not_called_malformed(
        capsys: pytest.CaptureFixture[str], spec_tree: Path, text: str) -> None:
    from cachetui.core.spack.specquery import refusal  # what the browser shows beside its query line

    code, out, err = _query(capsys, str(spec_tree), "--format", "json", "--spec", text)
    assert code == 2 and out == "[]\n" and "build caches do not record" in err and "malformed" not in err
    with pytest.raises(SpecSyntaxError) as caught:  # the browser's line says the same, through the same function
        parse_spec_query(text)
    assert err.strip() == "cachetui: " + refusal(caught.value)


def test_what_caches_do_not_record_is_refused_before_anything_is_loaded(capsys: pytest.CaptureFixture[str],
                                                                         tmp_path: Path) -> None:
    code, _, err = _query(capsys, str(tmp_path / "missing"), "--spec", "nosuchpackage %gcc +mpi")
    assert code == 2 and "build caches do not record" in err and "unknown package" not in err


# -- a long token is echoed cut -----------------------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda t: ["--spec", t],  # an unknown package
    lambda t: ["--spec", f"hdf5 +{t}"],  # an unknown variant
    lambda t: ["--spec", f"hdf5 %{t}"],  # an unknown compiler
    lambda t: ["--spec", f"hdf5@{'9' * LONG}"],  # a version (digits past Python's own limit on int())
    lambda t: ["--spec", f"hdf5 {t}"],  # malformed: an unexpected name, with a caret under it
    lambda t: ["--spec", f"/{'a' * LONG}"],  # a hash prefix
    lambda t: ["--compiler", t],
    lambda t: ["--tag", t],
    lambda t: ["--variant", f"{t}=1"],
    lambda t: ["--version", f"1:{'x' * LONG}:2"],  # malformed
    lambda t: ["--runs-on", t],
])
def test_a_100_kb_token_is_echoed_cut_never_whole(capsys: pytest.CaptureFixture[str], spec_tree: Path,
                                                  make: object) -> None:
    token = "q" * LONG
    code, _, err = _query(capsys, str(spec_tree), *make(token))  # type: ignore[operator]
    assert code in (1, 2) and "Traceback" not in err and "internal error" not in err
    assert len(err) < 1000 and "…" in err and re.search(r"\(10240\d characters\)", err), err[:300]


def test_a_100_kb_tag_given_to_diff_is_echoed_cut(capsys: pytest.CaptureFixture[str], spec_tree: Path) -> None:
    code = main(["diff", "develop", "x" * LONG, str(spec_tree), "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and len(err) < 1000 and f"({LONG} characters)" in err


# -- counts in good English ---------------------------------------------------------------------------------


def test_one_is_singular_in_what_the_commands_say(capsys: pytest.CaptureFixture[str], write_doc: WriteDoc,
                                                  tmp_path: Path) -> None:
    doc = listing("zlib", "a", [spec_entry("a" * 32)]).replace('"num_specs": 1', '"num_specs": 2')
    write_doc("_cache/a/zlib/specs.md", doc)
    write_doc("_cache/b/zlib/specs.md", listing("zlib", "b", [spec_entry("b" * 32)]))
    write_doc("_cache/b/hdf5/specs.md", front_matter(title="[unclosed"))
    main(["check", "--no-cache", str(tmp_path)])
    out = capsys.readouterr().out
    assert "the document lists 1 spec" in out and "1 specs" not in out and "1 errors" not in out
    code = main(["diff", "a", "b", str(tmp_path), "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and "1 input could not be loaded" in err and "input(s)" not in err
    assert age(90) == "1 minute"  # an offline copy's age


# -- diff of a package in neither tag -----------------------------------------------------------------------


@pytest.mark.parametrize("form", ["table", "json", "csv"])
def test_diff_of_a_package_in_neither_tag_says_so(capsys: pytest.CaptureFixture[str], write_doc: WriteDoc,
                                                  tmp_path: Path, form: str) -> None:
    write_doc("_cache/a/zlib/specs.md", listing("zlib", "a", [spec_entry("a" * 32)]))
    write_doc("_cache/b/zlib/specs.md", listing("zlib", "b", [spec_entry("b" * 32)]))
    write_doc("_cache/c/hdf5/specs.md", listing("hdf5", "c", [spec_entry("c" * 32)]))
    code = main(["diff", "a", "b", str(tmp_path), "--no-cache", "--package", "hdf5", "--format", form])
    out, err = capsys.readouterr()
    assert code == 0 and out  # both hold the same binaries of hdf5: none; the output keeps its shape
    assert err == "cachetui: hdf5 has no binaries in a or b: nothing to compare\n"


# -- `root` is the whole tag --------------------------------------------------------------------------------


@pytest.mark.parametrize("label", ["root", "build_cache"])
def test_stack_root_is_refused_as_the_whole_tag(capsys: pytest.CaptureFixture[str], spec_tree: Path,
                                                label: str) -> None:
    code, out, err = _query(capsys, str(spec_tree), "--stack", label, "--format", "json")
    assert code == 2 and out == "[]\n" and f"'{label}' is not a stack: it names the whole tag" in err
    code, out, _ = _query(capsys, str(spec_tree), "--stack", "e4s", "--format", "json")
    assert code == 0
    assert all("root" not in row["stacks"] for row in json.loads(out))  # no output calls the whole tag a stack


async def test_the_palette_does_not_offer_the_root_stack(spec_tree: Path) -> None:
    app = CacheTuiApp([str(spec_tree)], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        offered = [hit.text async for hit in FacetCommands(app.screen).search("root")]
        assert "stack=root" not in offered
        offered = [hit.text async for hit in FacetCommands(app.screen).search("e4s")]
        assert "stack=e4s" in offered  # a stack is offered


# -- the docs' public mirror line -----------------------------------------------------------------------------


def test_the_docs_give_the_public_mirror_line_the_copy_menu_gives() -> None:
    text = " ".join(" ".join(page.read_text() for page in DOCS).split())  # a line may wrap anywhere
    given = re.findall(r"spack mirror add (\S+) (https://binaries\.spack\.io/[^\s`]+)", text)
    assert given and "releases/" not in text
    for name, url in given:
        tag = url.removeprefix("https://binaries.spack.io/")
        concrete = "develop" if tag == "<tag>" else tag
        document = Document(f"_cache/{concrete}/zlib/specs.md", "zlib", concrete, "zlib", "", 0, 0)
        origin = mirror_of(document, {})
        assert origin is not None
        expected = mirror_add_command(origin.name, origin.url)
        assert f"spack mirror add {name} {url}".replace("<tag>", concrete) == expected
