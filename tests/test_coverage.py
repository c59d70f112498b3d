"""`cachetui coverage`: each wanted node's status and differences, from files shaped as Spack writes them.

Expected statuses and differences are the changes each test makes to the mirror, never this code's output.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from cachetui.cli.main import main
from cachetui.core.load import LoadOptions, UnreadableWanted, load_corpus, read_wanted
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.sample import sample_path
from cachetui.core.load.sources.wanted import MAX_SAID
from cachetui.core.query.coverage import coverage
from cachetui.present.output.coverage_output import CSV_HEADER
from tests.cli_answers import strict_json
from tests.dag_mirror import hash_of
from tests.wanted_files import (
    ROOTS,
    Difference,
    changed,
    lockfile,
    nodes,
    other_hash,
    relinked,
    write_changed_environment,
    write_mirror,
)

MB = 64 * 2**20


def run_coverage(capsys: pytest.CaptureFixture[str], *argv: str, fmt: str = "json") -> tuple[int, Any, str]:
    code = main(["coverage", "--no-cache", "--format", fmt, *argv])
    out, err = capsys.readouterr()
    return code, strict_json(out) if fmt == "json" else out, err


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


def by_package(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["package"]: row for row in rows}


def differences(row: dict[str, Any]) -> list[tuple[str, str | None, str | None, str | None]]:
    return [(d["category"], d["name"], d["wanted"], d["cached"]) for d in row["nearest"]["differences"]]


# -- the environment and a mirror built from it with a few nodes changed -------------------------------------


@pytest.fixture
def changed_mirror(tmp_path: Path) -> tuple[Path, Path, dict[str, list[Difference]]]:
    return write_changed_environment(tmp_path)


def test_every_changed_node_gets_exactly_its_change_and_no_other_node_any(capsys, changed_mirror):
    lock, mirror, expected = changed_mirror
    code, rows, _ = run_coverage(capsys, str(lock), str(mirror))
    found = by_package(rows)
    assert len(rows) == len(nodes())
    for package, row in found.items():
        if package in expected:
            assert row["status"] == ("reusable" if package == "libiconv" else "differs"), package
            assert differences(row) == expected[package], package
        elif package == "ca-certificates-mozilla":
            assert (row["status"], row["nearest"], row["tags"]) == ("absent", None, [])
        elif package in ("gcc", "glibc"):
            assert (row["status"], row["nearest"]) == ("external", None)
        else:  # dependents of changed nodes whose exact hash is held stay hits
            assert (row["status"], row["tags"], row["nearest"]) == ("hit", ["mirror"], None), package
    assert [row["package"] for row in rows if row["root"]] == list(ROOTS)
    assert code == 1  # not every node is a hit or an external


def test_the_table_ends_with_the_summary_and_one_line_per_root(capsys, changed_mirror):
    lock, mirror, _ = changed_mirror
    code, out, _ = run_coverage(capsys, str(lock), str(mirror), fmt="table")
    lines = out.splitlines()
    assert lines[-3] == "21 specs: 12 hit, 1 reusable, 5 differ, 1 absent, 2 external"
    # cmake links curl and ncurses (differ) and zlib-ng; kokkos needs cmake only to build
    assert lines[-2] == f"cmake@3.31.6/{hash_of('cmake')[:7]}: not installable from the caches alone"
    assert lines[-1] == f"kokkos@4.5.01/{hash_of('kokkos')[:7]}: installable from the caches alone"
    assert "not a prediction" in lines[-4]
    assert code == 1


def test_csv_has_one_row_per_difference_and_one_per_node_without(capsys, changed_mirror):
    lock, mirror, expected = changed_mirror
    _, out, _ = run_coverage(capsys, str(lock), str(mirror), fmt="csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == len(nodes())  # each changed node differs in one thing here
    curl = next(r for r in rows if r["package"] == "curl")
    assert (curl["category"], curl["name"], curl["cached_known"]) == ("depends_on", "nghttp2", "true")


def test_every_node_held_exits_0(capsys, tmp_path):
    lock = write(tmp_path / "spack.lock", lockfile())
    code, rows, _ = run_coverage(capsys, str(tmp_path), str(write_mirror(tmp_path / "m", nodes())))  # the env dir
    assert code == 0
    assert {row["status"] for row in rows} == {"hit", "external"}
    assert lock.exists()


def test_a_source_that_cannot_be_loaded_is_said_and_exits_1_though_every_node_is_held(capsys, tmp_path):
    write(tmp_path / "spack.lock", lockfile())
    code, rows, err = run_coverage(capsys, str(tmp_path), str(write_mirror(tmp_path / "m", nodes())),
                                   str(tmp_path / "gone"))
    assert {row["status"] for row in rows} == {"hit", "external"}
    assert f"no such file or directory: {tmp_path / 'gone'}" in err
    assert code == 1


def test_the_core_function_gives_what_the_command_prints(capsys, changed_mirror):
    """One rule: the CLI's JSON is the core function's answer, node for node (the browser calls it too)."""
    lock, mirror, _ = changed_mirror
    _, rows, _ = run_coverage(capsys, str(lock), str(mirror))
    found = coverage(load_corpus([str(mirror)], LoadOptions(use_cache=False)), read_wanted(str(lock), MB))
    assert [(n.hash, n.status, n.nearest.hash if n.nearest else None) for n in found.nodes] == \
        [(r["hash"], r["status"], r["nearest"]["hash"] if r["nearest"] else None) for r in rows]


def test_build_provenance_survives_the_warm_cache_and_a_rebuild_around_a_changed_input(tmp_path):
    """A warm hit, and a corpus rebuilt from the cache around new site documents, keep each binary's provenance."""
    mirror = write_mirror(tmp_path / "m", nodes())
    site = tmp_path / "site"
    site.mkdir()
    cache = CorpusCache(tmp_path / "cache")
    cold = load_corpus([str(mirror), str(site)], cache=cache)
    warm = load_corpus([str(mirror), str(site)], cache=cache)
    (site / "x.md").write_text('---\ntitle: "x"\nlayout: cache\ncategories: [package, x]\nspec_details: []\n---\n')
    rebuilt = load_corpus([str(mirror), str(site)], cache=cache)
    assert (warm.cache_status, rebuilt.cache_status.split(":")[0]) == ("hit", "partial")
    for corpus in (warm, rebuilt):
        assert [corpus.build_provenance_of(i) for i in range(corpus.n_specs)] == \
            [cold.build_provenance_of(i) for i in range(cold.n_specs)]
    assert cold.build_provenance_of(cold.spec_with_hash(hash_of("zlib-ng"))) == (
        nodes()["zlib-ng"]["package_hash"], "builtin", ())


# -- each kind of difference ----------------------------------------------------------------------------------


def _one_node_lock(tmp_path: Path, node: dict[str, Any], version: int = 6, *with_nodes: dict[str, Any]) -> Path:
    """A lockfile of one root and the given other nodes (any other dependency it names dangles)."""
    return write(tmp_path / "spack.lock", {"_meta": {"lockfile-version": version}, "roots": [
        {"hash": node["hash"], "spec": node["name"]}], "concrete_specs": {v["hash"]: v for v in (node, *with_nodes)}})


def test_flags_compiler_and_namespace_differences(capsys, tmp_path):
    n = nodes()
    wanted = {k: n[k] for k in ("zlib-ng", "gcc", "gcc-runtime", "glibc", "compiler-wrapper")}
    held = copy.deepcopy(wanted)
    zlib = copy.deepcopy(n["zlib-ng"])
    zlib["parameters"]["cflags"] = ["-O3", "-g"]
    zlib["namespace"] = "mysite"
    for edge in zlib["dependencies"]:
        if edge["name"] == "gcc":
            edge["hash"] = other_hash("gcc", "c")
    held["zlib-ng"] = changed(zlib, other_hash("zlib-ng", "f"))
    held["gcc-12"] = changed(n["gcc"], other_hash("gcc", "c"), version="12.3.0")
    lock = write(tmp_path / "spack.lock", {"_meta": {"lockfile-version": 6}, "roots": [
        {"hash": n["zlib-ng"]["hash"], "spec": "zlib-ng"}], "concrete_specs": {v["hash"]: v for v in wanted.values()}})
    _, rows, _ = run_coverage(capsys, str(lock), str(write_mirror(tmp_path / "m", held)))
    zlib_row = by_package(rows)["zlib-ng"]
    assert zlib_row["status"] == "differs"
    assert differences(zlib_row) == [  # the compiler edge is the node's compiler, never also a depends_on
        ("node_flag", "cflags", "", 'cflags="-O3 -g"'),
        ("node_compiler_version", None, "gcc@13.3.0", "gcc@12.3.0"),
        ("namespace", None, "builtin", "mysite"),
    ]


def test_a_compiler_attribute_and_a_compiler_edge_naming_one_compiler_do_not_differ(capsys, tmp_path):
    """Spack 0.21's compiler attribute (lockfile v5) against Spack 1.0's compiler edge: the same gcc@13.3.0."""
    n = nodes()
    old = {k: v for k, v in copy.deepcopy(n["libiconv"]).items() if k != "annotations"}
    old["compiler"] = {"name": "gcc", "version": "13.3.0"}
    old["dependencies"] = [e for e in old["dependencies"] if e["name"] not in ("gcc", "compiler-wrapper")]
    wanted = {"libiconv": changed(old, other_hash("libiconv", "o")),
              **{k: n[k] for k in ("gcc-runtime", "glibc")}}
    lock = write(tmp_path / "spack.lock", {"_meta": {"lockfile-version": 5}, "roots": [
        {"hash": wanted["libiconv"]["hash"], "spec": "libiconv"}],
        "concrete_specs": {v["hash"]: v for v in wanted.values()}})
    _, rows, _ = run_coverage(capsys, str(lock), str(write_mirror(tmp_path / "m", n)))
    assert by_package(rows)["libiconv"]["status"] == "reusable"  # only the hash differs: nothing but provenance
    assert differences(by_package(rows)["libiconv"]) == []


def test_a_dependency_that_differs_is_said_once_where_it_differs(capsys, tmp_path):
    """readline differs; gdbm (its dependent, not held) carries one depends_on pointing to it, never readline's
    version again."""
    n = nodes()
    held = copy.deepcopy(n)
    new_readline = held["readline"] = changed(n["readline"], other_hash("readline", "v"), version="8.3")
    held["gdbm"] = relinked(n["gdbm"], "readline", new_readline["hash"], "d")
    _, rows, _ = run_coverage(capsys, str(write(tmp_path / "spack.lock", lockfile())),
                              str(write_mirror(tmp_path / "m", held)))
    found = by_package(rows)
    assert differences(found["readline"]) == [("version", None, "8.2", "8.3")]
    assert differences(found["gdbm"]) == [("depends_on", "readline", f"readline@8.2/{hash_of('readline')[:7]}",
                                           f"readline@8.3/{new_readline['hash'][:7]}")]
    assert found["perl"]["status"] == "hit"


def test_a_dependency_held_as_a_reusable_match_keeps_its_dependent_reusable(capsys, tmp_path):
    n = nodes()
    held = copy.deepcopy(n)
    new_iconv = held["libiconv"] = changed(n["libiconv"], other_hash("libiconv", "p"), package_hash="x" * 52 + "====")
    held["diffutils"] = relinked(n["diffutils"], "libiconv", new_iconv["hash"], "d")
    _, rows, _ = run_coverage(capsys, str(write(tmp_path / "spack.lock", lockfile())),
                              str(write_mirror(tmp_path / "m", held)))
    found = by_package(rows)
    assert (found["libiconv"]["status"], found["diffutils"]["status"]) == ("reusable", "reusable")
    assert differences(found["diffutils"]) == []


def test_a_dependency_external_on_one_side_and_built_on_the_other_is_an_external_difference(capsys, tmp_path):
    n = nodes()
    held = copy.deepcopy(n)
    built = held["glibc-built"] = changed({k: v for k, v in n["glibc"].items() if k != "external"},
                                          other_hash("glibc", "b"))
    held["libiconv"] = relinked(n["libiconv"], "glibc", built["hash"], "g")
    _, rows, _ = run_coverage(capsys, str(write(tmp_path / "spack.lock", lockfile())),
                              str(write_mirror(tmp_path / "m", held)))
    found = by_package(rows)
    assert (found["libiconv"]["status"], differences(found["libiconv"])) == \
        ("differs", [("external", "glibc", "true", "false")])
    assert found["glibc"]["status"] == "external"


@pytest.mark.parametrize("spelling", ["build_system=autotools", "build_system:=autotools"])
def test_against_site_documents_nothing_is_reusable_and_what_they_cannot_tell_is_null(capsys, tmp_path, spelling):
    n = nodes()
    site = tmp_path / "site"
    site.mkdir()
    zlib = n["zlib-ng"]
    detail = {"compiler": "gcc@13.3.0", "hash": other_hash("zlib-ng", "s"), "os": "ubuntu24.04",
              "platform": "linux", "size": "-", "stacks": ["root"], "target": "icelake",
              "variants": ["+compat", "+new_strategies", "+opt", "+pic", "+shared", spelling],  # `:=`: the documents' spelling of the same variant
              "versions": ["2.2.3"]}
    (site / "zlib-ng.md").write_text(f'---\ntitle: "zlib-ng"\nlayout: cache\ncategories: [package, develop]\n'
                                     f"spec_details: {json.dumps([detail])}\n---\n")
    lock = _one_node_lock(tmp_path, zlib, 6, *(n[k] for k in ("gcc", "gcc-runtime", "glibc", "compiler-wrapper")))
    _, rows, _ = run_coverage(capsys, str(lock), str(site))
    row = by_package(rows)["zlib-ng"]
    assert row["status"] == "differs"
    unknown = {(d["category"], d["name"]) for d in row["nearest"]["differences"] if d["cached"] is None}
    assert unknown == {("node_flag", None), ("package_hash", None), ("namespace", None),
                       ("depends_on", "gcc-runtime"), ("depends_on", "glibc")}
    assert all(d["cached"] is None for d in row["nearest"]["differences"])  # the rest is equal


# -- reading WANTED --------------------------------------------------------------------------------------------


def _specfile(root: str, version: int = 5) -> dict[str, Any]:
    """`spack spec --json ROOT`: the root first, then every node it reaches."""
    n = nodes()
    order, waiting = [], [root]
    while waiting:
        name = waiting.pop(0)
        if name not in order:
            order.append(name)
            waiting += [e["name"] for e in n[name].get("dependencies", [])]
    return {"spec": {"_meta": {"version": version}, "nodes": [n[name] for name in order]}}


def test_a_spack_spec_json_stream_of_two_roots_piped_on_stdin(tmp_path):
    stream = json.dumps(_specfile("cmake")) + "\n" + json.dumps(_specfile("kokkos"))
    mirror = write_mirror(tmp_path / "m", nodes())
    done = subprocess.run([sys.executable, "-m", "cachetui", "coverage", "-", str(mirror), "--no-cache",
                           "--format", "json"], input=stream, capture_output=True, text=True, check=False)
    rows = strict_json(done.stdout)
    assert [r["package"] for r in rows if r["root"]] == ["cmake", "kokkos"]
    assert len(rows) == len(nodes())  # nodes shared by both roots are one node
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("newline", ["\n", "\r\n"])  # as gpg writes it on Unix, and on Windows
def test_a_clearsigned_specfile_reads_as_its_signed_text(tmp_path, newline):
    text = json.dumps(_specfile("zlib-ng"), indent=0)
    signed = tmp_path / "zlib.spec.json.sig"
    signed.write_bytes(("-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n" + text.replace("\n-", "\n- -")
                        + "\n-----BEGIN PGP SIGNATURE-----\n\niQEz\n-----END PGP SIGNATURE-----\n")
                       .replace("\n", newline).encode())
    dag = read_wanted(str(signed), MB)
    assert dag.nodes[dag.roots[0]].name == "zlib-ng"


def test_a_specfile_v1_yaml_is_read_and_never_a_hit(tmp_path):
    """Spack 0.16's spec.yaml: {name: node} entries, dependencies by name; its hashes are older ones."""
    key = hash_of("zlib-ng")
    entry = {"zlib-ng": {"version": "2.2.3", "arch": {"platform": "linux", "platform_os": "ubuntu24.04",
                                                      "target": "icelake"},
                         "compiler": {"name": "gcc", "version": "13.3.0"}, "namespace": "builtin",
                         "parameters": {"compat": True, "new_strategies": True, "opt": True, "pic": True,
                                        "shared": True, "build_system": "autotools", "cflags": []},
                         "dependencies": {"glibc": {"hash": hash_of("glibc"), "type": ["link"]}},
                         "hash": key}}
    glibc = {"glibc": {"version": "2.39", "arch": {"platform": "linux", "platform_os": "ubuntu24.04",
                                                   "target": "icelake"}, "namespace": "builtin",
                       "external": {"path": "/usr"}, "hash": hash_of("glibc")}}
    path = tmp_path / "zlib-ng.spec.yaml"
    path.write_text(yaml.safe_dump({"spec": [entry, glibc]}))
    dag = read_wanted(str(path), MB)
    assert dag.old_hashes and any("no node can be a hit" in p.reason for p in dag.problems)
    node = dag.nodes[key]
    assert (node.name, node.compiler, node.target, node.edges[0].name) == ("zlib-ng", "gcc@13.3.0", "icelake", "glibc")
    held = nodes()
    corpus = load_corpus([str(write_mirror(tmp_path / "m", {"zlib-ng": {**held["zlib-ng"], "hash": key}}))],
                         LoadOptions(use_cache=False))
    assert coverage(corpus, dag).nodes[0].status != "hit"  # the same hash string means another thing


@pytest.mark.parametrize("version", [4, 5])
def test_lockfiles_of_spack_0_18_to_0_23_are_read(tmp_path, version):
    """v4 (specfile v3: deptypes in `type`) and v5 (specfile v4: `parameters`), compilers as attributes."""
    n = nodes()
    node = {k: v for k, v in copy.deepcopy(n["readline"]).items() if k != "annotations"}
    node["compiler"] = {"name": "gcc", "version": "13.3.0"}
    node["dependencies"] = [e if version == 5 else {"name": e["name"], "hash": e["hash"],
                                                    "type": e["parameters"]["deptypes"]}
                            for e in node["dependencies"] if e["name"] in ("ncurses", "glibc")]
    lock = _one_node_lock(tmp_path, node, version)
    dag = read_wanted(str(lock), MB)
    (read,) = [dag.nodes[h] for h in dag.roots]
    assert (read.compiler, read.version, [(e.name, e.link_run) for e in read.edges]) == \
        ("gcc@13.3.0", "8.2", [("glibc", True), ("ncurses", True)])
    assert not dag.old_hashes
    assert [p.reason for p in dag.problems] == [f"readline depends on {name} {hash_of(name)[:7]}, which the file does "
                                                "not hold" for name in ("glibc", "ncurses")]


def test_included_concrete_environments_are_read_nested(tmp_path):
    """Spack 0.22's include_concrete: each included environment's roots and nodes, at any depth."""
    n = nodes()
    inner = {"roots": [{"hash": n["zlib-ng"]["hash"], "spec": "zlib-ng"}],
             "concrete_specs": {n["zlib-ng"]["hash"]: n["zlib-ng"]}}
    middle = {"roots": [{"hash": n["gmake"]["hash"], "spec": "gmake"}],
              "concrete_specs": {n["gmake"]["hash"]: n["gmake"]}, "include_concrete": {"/envs/inner": inner}}
    lock = write(tmp_path / "spack.lock", {"_meta": {"lockfile-version": 5}, "roots": [
        {"hash": n["pkgconf"]["hash"], "spec": "pkgconf"}], "concrete_specs": {n["pkgconf"]["hash"]: n["pkgconf"]},
        "include_concrete": {"/envs/middle": middle}})
    dag = read_wanted(str(lock), MB)
    assert [dag.nodes[h].name for h in dag.roots] == ["pkgconf", "gmake", "zlib-ng"]


def test_lockfile_v3_is_keyed_by_older_hashes_and_never_hits(tmp_path):
    n = nodes()
    toolchain = (n[k] for k in ("gcc", "gcc-runtime", "glibc", "compiler-wrapper"))
    lock = _one_node_lock(tmp_path, n["libiconv"], 3, *toolchain)
    dag = read_wanted(str(lock), MB)
    corpus = load_corpus([str(write_mirror(tmp_path / "m", n))], LoadOptions(use_cache=False))
    assert dag.old_hashes
    assert coverage(corpus, dag).nodes[0].status == "reusable"  # held by this very hash, but that proves nothing


def test_an_install_database_takes_its_installed_records_and_explicit_roots(capsys, tmp_path):
    n = nodes()
    installs = {node["hash"]: {"spec": node, "ref_count": 1, "installed": True, "explicit": name in ROOTS,
                               "path": f"/opt/spack/{name}", "installation_time": 1.7e9}
                for name, node in n.items()}
    installs[hash_of("kokkos")]["installed"] = False
    root = tmp_path / "install"
    (root / ".spack-db").mkdir(parents=True)
    write(root / ".spack-db" / "index.json", {"database": {"version": "8", "installs": installs}})
    dag = read_wanted(str(root), MB)
    assert dag.kind == "install database v8"
    assert [dag.nodes[h].name for h in dag.roots] == ["cmake"]
    assert hash_of("kokkos") not in dag.nodes


def test_a_root_whose_hash_names_another_package_is_a_warning_and_the_node_is_trusted(capsys, tmp_path):
    lock = lockfile()
    lock["roots"][0]["spec"] = "hdf5@1.14+mpi"  # its hash is cmake's
    code, rows, err = run_coverage(capsys, str(write(tmp_path / "spack.lock", lock)),
                                   str(write_mirror(tmp_path / "m", nodes())))
    assert "root 'hdf5@1.14+mpi' names hash cmakeqq, which is a cmake node (the node is trusted)" in err
    assert rows[0]["package"] == "cmake" and rows[0]["status"] == "hit"
    assert code == 0


def test_dangling_and_cyclic_dependencies_are_warnings(tmp_path):
    n = nodes()
    a = changed(n["libiconv"], "a" * 32, dependencies=[{"name": "diffutils", "hash": "b" * 32,
                                                        "parameters": {"deptypes": ["link"], "virtuals": []}}])
    b = changed(n["diffutils"], "b" * 32, dependencies=[{"name": "libiconv", "hash": "a" * 32,
                                                         "parameters": {"deptypes": ["link"], "virtuals": []}},
                                                        {"name": "ghost", "hash": "c" * 32,
                                                         "parameters": {"deptypes": ["link"], "virtuals": []}}])
    lock = write(tmp_path / "spack.lock", {"_meta": {"lockfile-version": 6}, "roots": [{"hash": "a" * 32}],
                                           "concrete_specs": {"a" * 32: a, "b" * 32: b}})
    dag = read_wanted(str(lock), MB)
    reasons = [p.reason for p in dag.problems]
    assert "diffutils depends on ghost ccccccc, which the file does not hold" in reasons
    assert "dependency cycle: libiconv -> diffutils -> libiconv" in reasons
    corpus = load_corpus([str(write_mirror(tmp_path / "m", n))], LoadOptions(use_cache=False))
    assert {node.package for node in coverage(corpus, dag).nodes} == {"libiconv", "diffutils"}


@pytest.mark.parametrize("fmt, printed", [("json", "[]\n"), ("csv", "hash,package,"), ("table", "")])
def test_a_truncated_wanted_is_one_line_and_exit_2(capsys, tmp_path, fmt, printed):
    text = json.dumps(lockfile())
    lock = tmp_path / "spack.lock"
    lock.write_text(text[: len(text) // 2])
    code = main(["coverage", "--no-cache", "--format", fmt, str(lock), str(write_mirror(tmp_path / "m", nodes()))])
    out, err = capsys.readouterr()
    assert code == 2
    assert out.startswith(printed) and (printed or out == "")
    assert err.count("\n") == 1 and "not valid JSON at line 1: truncated or damaged" in err


def test_what_is_not_a_spack_file_is_unreadable(tmp_path):
    with pytest.raises(UnreadableWanted, match="not a Spack lockfile, specfile or install database"):
        read_wanted(str(write(tmp_path / "x.json", {"hello": 1})), MB)
    with pytest.raises(UnreadableWanted, match="no such file or directory"):
        read_wanted(str(tmp_path / "missing.lock"), MB)


def test_a_yaml_specfile_with_aliases_is_refused_unexpanded(capsys, tmp_path):
    """A few hundred bytes of nested aliases would expand to 10**9 nodes for whoever walks them: refused at
    the first alias, one line, exit 2 (Spack writes no aliases)."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    lines += ["spec:", "  - zlib:", "      version: '1.3'", "      parameters: {bomb: *a8}"]
    bomb = tmp_path / "bomb.spec.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    assert main(["coverage", str(bomb), str(sample_path()), "--no-cache", "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert out == "[]\n"
    assert err.strip().splitlines() == [f"cachetui: {bomb}: a YAML alias at line 2: refused, not expanded "
                                        "(Spack writes none)"]


# -- bounded whatever WANTED is: cycles, many roots, many nodes ----------------------------------------------


def _adversarial(tmp_path: Path, shape: str, count: int) -> Path:
    from benchmarks.coverage_bench import adversarial_lock

    templates = [node for name, node in nodes().items() if name not in ("gcc", "glibc")]  # none an external
    return write(tmp_path / f"{shape}.lock", adversarial_lock(shape, count, templates))


def test_each_dependency_cycle_is_said_once_shortened_and_past_a_cap_counted(capsys, tmp_path):
    """200 nodes each closing a cycle: 20 cycles named, each line bounded, one line counting the rest; every node
    still answered (the warnings grew with nodes x cycle length: 2.7 GB of them at 20,000 nodes)."""
    code, rows, err = run_coverage(capsys, str(_adversarial(tmp_path, "cycles", 200)),
                                   str(write_mirror(tmp_path / "m", nodes())))
    cycles = [line for line in err.splitlines() if "dependency cycle" in line]
    assert len(cycles) == MAX_SAID + 1 and all(len(line) < 300 for line in cycles)
    assert cycles[0].endswith("-> … (200 nodes) -> cmake")  # the first walk closes the whole chain
    assert cycles[-1].endswith(f"{200 - 1 - MAX_SAID} more dependency cycles (not named one by one)")
    assert len(rows) == 200 and code == 1


class _CountingNodes(dict):
    """The wanted DAG's nodes, counting each look-up of a node."""

    looked_up = 0

    def __getitem__(self, key: str) -> Any:
        _CountingNodes.looked_up += 1
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        _CountingNodes.looked_up += 1
        return super().get(key, default)


def test_many_roots_over_one_chain_walk_the_dag_once(tmp_path):
    """300 roots over a 300-node chain: whether each root installs from the caches alone is worked out in one
    walk of the DAG, not one walk of the chain per root (8,000 roots over 8,000 nodes took 31-43 s)."""
    dag = read_wanted(str(_adversarial(tmp_path, "fan", 600)), MB)
    dag.nodes = _CountingNodes(dag.nodes)
    _CountingNodes.looked_up = 0
    found = coverage(load_corpus([str(write_mirror(tmp_path / "m", nodes()))], LoadOptions(use_cache=False)), dag)
    assert len(found.roots) == 300 and not any(root.installable for root in found.roots)  # none is a hit
    assert _CountingNodes.looked_up < 20 * len(dag.nodes)


def test_a_packages_binaries_are_scored_once_per_distinct_question(tmp_path, monkeypatch):
    """5,000 nodes shaped as 19 distinct ones: what scoring finds depends only on what a node is and on which
    binaries match its dependencies, so it is worked out once per distinct such question, not once per node."""
    from cachetui.core.query import coverage as module

    scored = []
    original = module._Comparison._scores
    monkeypatch.setattr(module._Comparison, "_scores", lambda self, *a: scored.append(1) or original(self, *a))
    dag = read_wanted(str(_adversarial(tmp_path, "wide", 5000)), MB)
    found = coverage(load_corpus([str(write_mirror(tmp_path / "m", nodes()))], LoadOptions(use_cache=False)), dag)
    assert len(found.nodes) == 5000 and {n.status for n in found.nodes} == {"differs"}
    assert len(scored) < 200


# -- bad scalars in WANTED: one line, exit 2 (never an internal error) ----------------------------------------


BAD_SCALARS = {
    "!!int abc": "a YAML int that is not an integer at line 3",
    "!!float xyz": "a YAML float that is not a number at line 3",
    "!!bool maybe": "a YAML bool that is not true or false at line 3",
    "2024-02-30": "a YAML timestamp that is not a real date or time at line 3",
    "!!timestamp 2024-13-45": "a YAML timestamp that is not a real date or time at line 3",
    "9" * 4301: "a YAML int of more than 4,300 characters at line 3",
    "0x" + "f" * 4000: "a YAML int of more than 4,300 digits at line 3",
}


@pytest.mark.parametrize("fmt, printed", [("json", "[]\n"), ("csv", ",".join(CSV_HEADER) + "\n")])
@pytest.mark.parametrize("scalar", list(BAD_SCALARS))
def test_a_bad_scalar_in_wanted_is_one_line_and_exit_2(capsys, tmp_path, scalar, fmt, printed):
    spec = tmp_path / "zlib.spec.yaml"
    spec.write_text(f"spec:\n  - zlib:\n      version: {scalar}\n")
    code = main(["coverage", "--no-cache", "--format", fmt, str(spec), str(sample_path())])
    out, err = capsys.readouterr()
    assert (code, out) == (2, printed)
    assert err.splitlines() == [f"cachetui: {spec}: {BAD_SCALARS[scalar]}: not a Spack file"]


def test_a_bad_scalar_in_want_is_one_line_and_exit_2_before_the_browser_opens(capsys, tmp_path):
    spec = tmp_path / "zlib.spec.yaml"
    spec.write_text("spec:\n  - zlib:\n      version: !!int abc\n")
    assert main(["--want", str(spec), str(sample_path()), "--no-cache"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"cachetui: {spec}: a YAML int that is not an integer at line 3: not a Spack file"]


def test_a_json_integer_too_long_to_read_is_one_line_and_exit_2(capsys, tmp_path):
    lock = tmp_path / "spack.lock"
    lock.write_text('{"_meta": {"lockfile-version": ' + "9" * 5000 + '}, "concrete_specs": {}}')
    code, rows, err = run_coverage(capsys, str(lock), str(sample_path()))
    assert (code, rows) == (2, [])
    assert err.splitlines() == [f"cachetui: {lock}: a number of more than 4,300 digits: not a Spack file"]


# -- formats newer than the reader, and what an install database holds but has not installed -------------------


def test_a_lockfile_newer_than_the_reader_is_said_on_one_line(capsys, tmp_path):
    lock = write(tmp_path / "spack.lock", lockfile(version=99))
    code, rows, err = run_coverage(capsys, str(lock), str(write_mirror(tmp_path / "m", nodes())))
    assert err.splitlines() == [f"cachetui: warning: {lock}: lockfile version 99 is newer than this reader knows "
                                "(the newest it knows is 8); read as far as it is recognisable"]
    assert len(rows) == len(nodes()) and code == 0  # read as far as it is recognisable: all of it here


def test_a_specfile_and_an_install_database_newer_than_the_reader_say_so(tmp_path):
    spec = write(tmp_path / "zlib.spec.json", _specfile("zlib-ng", version=99))
    assert [p.reason for p in read_wanted(str(spec), MB).problems] == [
        "specfile version 99 is newer than this reader knows (the newest it knows is 6); "
        "read as far as it is recognisable"]
    installs = {n["hash"]: {"spec": n, "installed": True, "explicit": True} for n in nodes().values()}
    database = write(tmp_path / "index.json", {"database": {"version": "99", "installs": installs}})
    assert [p.reason for p in read_wanted(str(database), MB).problems] == [
        "install database version 99 is newer than this reader knows (the newest it knows is 9); "
        "read as far as it is recognisable"]


def test_a_mirror_database_newer_than_the_reader_names_the_newest_it_knows(tmp_path):
    from tests.mirrors import v3_mirror

    index = {"database": {"version": "99", "installs": {}}}
    mirror = tmp_path / "m"
    v3_mirror(mirror, json.dumps(index).encode())
    corpus = load_corpus([str(mirror)], LoadOptions(use_cache=False))
    assert any(p.reason == "database version 99 is newer than this reader knows (the newest it knows is 8); "
               "read as far as it is recognisable" for p in corpus.report.warnings)


def test_records_not_installed_are_not_wanted_but_resolve_the_edges_naming_them(tmp_path):
    """`spack gc` leaves a build dependency's record (installed: false) while installed specs still name it:
    it is not wanted, and the edges to it are the file's own, not dangling ones."""
    n = nodes()
    installs = {node["hash"]: {"spec": node, "ref_count": 1, "installed": name != "gmake", "explicit": name == "cmake",
                               "path": f"/opt/spack/{name}"} for name, node in n.items()}
    dag = read_wanted(str(write(tmp_path / "index.json", {"database": {"version": "8", "installs": installs}})), MB)
    assert hash_of("gmake") not in dag.nodes
    assert dag.problems == []  # no "cmake depends on gmake …, which the file does not hold"
    cmake = dag.nodes[hash_of("cmake")]
    assert [(e.name, e.hash) for e in cmake.edges if e.name == "gmake"] == [("gmake", hash_of("gmake"))]


# -- the nearest binary runs where the wanted spec runs -------------------------------------------------------


def _targeted(node: dict[str, Any], target: str, new_hash: str) -> dict[str, Any]:
    rebuilt = copy.deepcopy(node)
    rebuilt["arch"]["target"] = {"name": target}
    return changed(rebuilt, new_hash)


@pytest.mark.parametrize("others, expected", [
    (("power9le", "neoverse_v1", "haswell"), "haswell"),  # the wanted target's family (x86_64) first
    (("icelake", "haswell"), "haswell"),  # then a target the wanted skylake can run (icelake is newer)
    (("power9le", "icelake"), "icelake"),  # the family before whether it runs
])
def test_the_nearest_prefers_the_wanted_targets_family_then_what_it_can_run(capsys, tmp_path, others, expected):
    """zlib-ng wanted for skylake; the mirror holds it only for other targets, each one difference away, hashes
    in the order the targets are listed (hash order alone would take the first)."""
    n = nodes()
    wanted = _targeted(n["zlib-ng"], "skylake", hash_of("zlib-ng"))
    held = {k: v for k, v in n.items() if k != "zlib-ng"}
    for rank, target in enumerate(others):
        held[target] = _targeted(n["zlib-ng"], target, f"{'abcdefgh'[rank]}{target}".ljust(32, "q")[:32])
    lock = _one_node_lock(tmp_path, wanted, 6, *(n[k] for k in ("gcc", "gcc-runtime", "glibc", "compiler-wrapper")))
    _, rows, _ = run_coverage(capsys, str(lock), str(write_mirror(tmp_path / "m", held)))
    row = by_package(rows)["zlib-ng"]
    assert differences(row) == [("node_target", None, "skylake", expected)]


def test_warnings_repeated_at_every_root_are_capped_and_a_huge_name_is_cut(tmp_path):
    """100 roots the file does not hold: 20 named, one line counts the rest; a node named by 100,000 characters
    is said by its start and its length, never whole."""
    n = nodes()
    huge = changed(n["zlib-ng"], hash_of("huge"), name="z" * 100_000)
    lock = write(tmp_path / "spack.lock", {
        "_meta": {"lockfile-version": 6}, "roots": [{"hash": f"{k:032d}"} for k in range(100)],
        "concrete_specs": {huge["hash"]: huge}})
    reasons = [p.reason for p in read_wanted(str(lock), MB).problems]
    missing = [r for r in reasons if "is not among the concrete specs" in r]
    assert len(missing) == MAX_SAID
    assert f"{100 - MAX_SAID} more roots not among the concrete specs (not named one by one)" in reasons
    assert all(len(r) < 400 for r in reasons) and any("(100000 characters) depends on" in r for r in reasons)
