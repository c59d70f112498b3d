"""`cachetui diff`: two real-shaped snapshots that share most binaries, against counts made here from the YAML."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from cachetui.cli.main import main
from tests.conftest import SEED_FILES, listing, read_seed_specs

OLD, NEW = "develop-2025-03-30", "develop-2025-04-20"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["diff", *argv, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def _new_hash(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(32))


def _snapshots(root: Path) -> Path:
    """OLD: the seed documents of `develop`. NEW: most of them again, as a later snapshot would list them.

    py-mpi4py loses its first 9 binaries; py-safetensors gains 4 (one on a platform it never had);
    py-pdm-backend is rewritten with `gcc@13.2.0` for `gcc@=13.2.0` (the same binaries and configurations);
    py-ml-dtypes is gone; zlib is new.
    """
    rng = random.Random(7)
    seeds = {title: specs for title, specs in map(read_seed_specs, SEED_FILES) if len(specs) > 12}
    changed = {
        "py-mpi4py": seeds["py-mpi4py"][9:],
        "py-safetensors": seeds["py-safetensors"] + [
            {**seeds["py-safetensors"][0], "hash": _new_hash(rng)},
            {**seeds["py-safetensors"][1], "hash": _new_hash(rng)},
            {**seeds["py-safetensors"][2], "hash": _new_hash(rng), "versions": ["0.9.9"]},
            {**seeds["py-safetensors"][3], "hash": _new_hash(rng), "os": "rhel9", "target": "zen4"},
        ],
        "py-pdm-backend": [{**s, "compiler": s["compiler"].replace("@=", "@")} for s in seeds["py-pdm-backend"]],
        "zlib": [{**seeds["py-mpi4py"][0], "hash": _new_hash(rng), "versions": ["1.3.1"], "compiler": "gcc@13.2.0",
                  "platform": "linux", "os": "ubuntu24.04", "target": "x86_64_v3"}],
    }
    for tag, packages in ((OLD, seeds), (NEW, changed)):
        for package, specs in packages.items():
            path = root / "_cache" / tag / package / "specs.md"
            path.parent.mkdir(parents=True)
            path.write_text(listing(package, tag, specs))
    return root


def _independent(root: Path, tag: str) -> dict[str, dict[str, Any]]:
    """package -> its hashes and configurations, straight from the YAML (no cachetui code)."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted((root / "_cache" / tag).glob("*/specs.md")):
        data = yaml.safe_load(path.read_text().split("---")[1])
        for spec in data["spec_details"]:
            entry = found.setdefault(data["title"], {"hashes": set(), "configs": set()})
            entry["hashes"].add(spec["hash"])
            compiler = spec["compiler"].replace("@=", "@")
            arch = f"{spec['platform']}-{spec['os']}-{spec['target']}"
            entry["configs"].add((spec["versions"][0], compiler, arch))
    return found


@pytest.fixture
def snapshots(tmp_path: Path) -> Path:
    return _snapshots(tmp_path / "site")


def test_counts_match_an_independent_count_of_the_two_tags(capsys: pytest.CaptureFixture[str],
                                                             snapshots: Path) -> None:
    code, out, _ = _run(capsys, OLD, NEW, str(snapshots), "--format", "json")
    data = json.loads(out)
    before, after = _independent(snapshots, OLD), _independent(snapshots, NEW)
    empty: dict[str, Any] = {"hashes": set(), "configs": set()}
    for row in data["packages"]:
        old, new = before.get(row["package"], empty), after.get(row["package"], empty)
        assert set(row["added"]) == new["hashes"] - old["hashes"], row["package"]
        assert set(row["removed"]) == old["hashes"] - new["hashes"], row["package"]
        assert row["kept"] == len(old["hashes"] & new["hashes"]), row["package"]
        assert {(c["version"], c["compiler"], c["arch"]) for c in row["gained"]} == new["configs"] - old["configs"]
        assert {(c["version"], c["compiler"], c["arch"]) for c in row["lost"]} == old["configs"] - new["configs"]
    assert {row["package"] for row in data["packages"]} == set(before) | set(after)
    assert code == 1 and data["changed"] is True
    # what the fixture was built to hold, said plainly
    totals = data["total"]
    assert (totals["added"], totals["removed"]) == (4 + 1, 9 + 66)
    assert totals["kept"] == (91 - 9) + 116 + 77
    by_name = {row["package"]: row for row in data["packages"]}
    assert by_name["py-pdm-backend"]["gained"] == [] and by_name["py-pdm-backend"]["lost"] == []


def test_the_same_snapshot_twice_is_equal_exit_0(capsys: pytest.CaptureFixture[str], snapshots: Path) -> None:
    code, out, _ = _run(capsys, OLD, OLD, str(snapshots), "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0
    assert rows[0] == ["package", "added", "removed", "kept", "configurations_gained", "configurations_lost"]
    assert rows[-1] == ["total", "0", "0", str(91 + 116 + 77 + 66), "0", "0"]


def test_table_lists_changed_packages_and_each_configuration(capsys: pytest.CaptureFixture[str],
                                                              snapshots: Path) -> None:
    code, out, _ = _run(capsys, OLD, NEW, str(snapshots))
    lines = out.splitlines()
    assert code == 1 and lines[0] == f"{OLD} -> {NEW}"
    assert not any(line.startswith("py-pdm-backend") for line in lines)  # nothing changed there
    assert any(line.split()[:4] == ["py-mpi4py", "0", "9", "82"] for line in lines)
    assert "+ zlib@1.3.1 %gcc@13.2.0 arch=linux-ubuntu24.04-x86_64_v3" in lines
    assert any(line.startswith("+ py-safetensors@") and line.endswith("arch=linux-rhel9-zen4") for line in lines)


def test_package_option_narrows_the_diff(capsys: pytest.CaptureFixture[str], snapshots: Path) -> None:
    code, out, _ = _run(capsys, OLD, NEW, str(snapshots), "--package", "py-mpi4py", "--format", "json")
    data = json.loads(out)
    assert code == 1 and [row["package"] for row in data["packages"]] == ["py-mpi4py"]
    assert (data["total"]["added"], data["total"]["removed"]) == (0, 9)


def test_two_sources_are_compared_whole(capsys: pytest.CaptureFixture[str], snapshots: Path) -> None:
    code, out, _ = _run(capsys, str(snapshots / "_cache" / OLD), str(snapshots / "_cache" / NEW), "--format", "json")
    assert code == 1 and json.loads(out)["total"]["removed"] == 9 + 66


@pytest.mark.parametrize(("tags", "options", "message"), [
    ((OLD, "develop-2025-04-02"), (), "did you mean: develop-2025-04-20"),
    ((OLD, NEW), ("--package", "py-mpi4pi"), "did you mean: py-mpi4py"),
])
def test_a_typo_is_a_usage_error_with_near_names(capsys: pytest.CaptureFixture[str], snapshots: Path,
                                                 tags: tuple[str, str], options: tuple[str, ...], message: str) -> None:
    code, out, err = _run(capsys, *tags, str(snapshots), *options)
    assert code == 2 and out == "" and message in err


def test_an_unreadable_input_stops_the_comparison(capsys: pytest.CaptureFixture[str], snapshots: Path) -> None:
    (snapshots / "_cache" / NEW / "py-mpi4py" / "specs.md").write_text("---\ntitle: [unclosed\n---\n")
    code, out, err = _run(capsys, OLD, NEW, str(snapshots))
    assert code == 2 and out == ""
    assert "py-mpi4py/specs.md" in err and "not comparing an incomplete snapshot" in err


def test_the_same_hash_recorded_differently_is_a_difference(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Two sources whose records of one binary disagree (here its target): not equal, exit 1."""
    from tests.conftest import spec_entry

    for name, target in (("a", "x86_64_v3"), ("b", "zen3")):
        path = tmp_path / name / "_cache" / "develop" / "zlib" / "specs.md"
        path.parent.mkdir(parents=True)
        path.write_text(listing("zlib", "develop", [spec_entry("h" * 32, target=target)]))
    code, out, _ = _run(capsys, str(tmp_path / "a"), str(tmp_path / "b"), "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["total"]["kept"] == 1 and (data["total"]["gained"], data["total"]["lost"]) == (1, 1)
