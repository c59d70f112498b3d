"""Where a source's tag comes from: two mirrors never share one by accident, and NAME= is never silently unused."""

from __future__ import annotations

from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.load.pipeline import load_corpus
from tests.cli_answers import query, strict_json
from tests.mirrors import DB7, DB8, MirrorServer, index_bytes, v2_mirror, v3_mirror


def _tags_by_mirror(rows: list[dict]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for row in rows:
        found.setdefault(row["path"], set()).add(row["tag"])
    return found


def test_two_mirrors_whose_locations_end_alike_get_distinct_tags(capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path) -> None:
    first, second = v2_mirror(tmp_path / "p" / "mirror", DB8), v2_mirror(tmp_path / "q" / "mirror", DB7)
    code, rows, _ = query(capsys, str(first), str(second))
    assert code == 0 and _tags_by_mirror(rows) == {str(first): {"mirror"}, str(second): {"mirror-2"}}
    main(["check", "--no-cache", str(first), str(second)])
    out = capsys.readouterr().out
    assert f"warning: {second}: tag 'mirror' is already {first}'s: this mirror is loaded as tag 'mirror-2'" in out
    assert "(NAME=SOURCE names it)" in out and ", 2 tags, " in out


def test_two_urls_whose_paths_end_alike_get_distinct_tags(mirror_server: MirrorServer) -> None:
    www = mirror_server.root
    v3_mirror(www / "x" / "build_cache", index_bytes(DB8))
    v3_mirror(www / "y" / "build_cache", index_bytes(DB7))
    corpus = load_corpus([mirror_server.at("x/build_cache"), mirror_server.at("y/build_cache")])
    assert corpus.report.errors == [] and corpus.tags == ["build_cache", "build_cache-2"]
    counts = {tag: sum(1 for i in range(corpus.n_specs) if corpus.spec(i).tag == tag) for tag in corpus.tags}
    assert counts == {"build_cache": 6, "build_cache-2": 2}  # DB8 holds 6 binaries, DB7 2


def test_a_tag_given_with_name_is_kept_and_never_given_to_another_mirror(capsys: pytest.CaptureFixture[str],
                                                                          tmp_path: Path) -> None:
    named, other = v2_mirror(tmp_path / "a" / "x", DB8), v2_mirror(tmp_path / "b" / "mirror", DB7)
    code, rows, err = query(capsys, str(other), f"mirror={named}")
    assert code == 0 and _tags_by_mirror(rows) == {str(named): {"mirror"}, str(other): {"mirror-2"}}
    code, rows, _ = query(capsys, f"same={named}", f"same={other}")  # named alike on purpose: one tag
    assert code == 0 and {row["tag"] for row in rows} == {"same"}


def test_the_copy_menu_adds_a_retagged_mirror_under_its_tag(tmp_path: Path) -> None:
    from cachetui.core.query.spack_commands import mirror_of

    first, second = v2_mirror(tmp_path / "p" / "mirror", DB8), v2_mirror(tmp_path / "q" / "mirror", DB7)
    corpus = load_corpus([str(first), str(second)])
    i = next(i for i in range(corpus.n_specs) if corpus.spec(i).tag == "mirror-2")
    origin = mirror_of(corpus.documents[corpus.document_of[i]], corpus.origins)
    assert origin is not None and origin.name == "mirror-2" and origin.url == str(second)


def test_a_name_given_to_site_documents_is_warned_once_naming_them(capsys: pytest.CaptureFixture[str],
                                                                   spec_tree: Path) -> None:
    code = main(["check", "--no-cache", "--json", f"v1.0={spec_tree}"])
    data = strict_json(capsys.readouterr().out)
    assert code == 0 and isinstance(data, dict)
    (warning,) = [w for w in data["warnings"] if "tags" in w["reason"]]
    assert warning["path"] == str(spec_tree) and "site documents carry their own tags: v1.0= does not set their tag" in \
        warning["reason"]
    assert "v1.0" not in load_corpus([f"v1.0={spec_tree}"]).tags  # the documents' tags, as the warning says
