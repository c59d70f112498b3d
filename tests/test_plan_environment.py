"""Reading a spack.yaml for a plan: every form of `specs:`, `definitions:`, `packages:`, `include:` and `mirrors:`,
and what is said as not evaluated. Expected roots are written out from Spack's documented expansion (the product of
a matrix's rows, joined by one space; `$^`/`$%` put the sigil first), never read off the reader."""

from __future__ import annotations

import os
from itertools import product
from pathlib import Path

import pytest

from cachetui.core.load import UnreadableEnvironment, read_environment
from cachetui.core.model.environment import ALL, ANY_OF, ONE_OF, REQUIRE
from cachetui.core.spack.arch import Arch, os_from_release, parse_arch
from cachetui.core.spack.conditions import NotEvaluated, evaluate
from tests.test_plan_support import write_env

LINUX = parse_arch("linux-ubuntu22.04-x86_64_v3")
MB = 2**20


def read(path: Path, arch: Arch = LINUX, max_bytes: int = 64 * MB):  # noqa: ANN201 - the Environment
    return read_environment(str(path), max_bytes, arch)


def specs_of(path: Path, arch: Arch = LINUX) -> list[str]:
    return [root.spec for root in read(path, arch).roots]


def test_roots_listed_plainly_are_read_as_written(tmp_path: Path) -> None:
    env = write_env(tmp_path, """\
        spack:
          specs:
          - zlib@1.3
          - 'hdf5 +mpi ^openmpi'
          -
          - curl  # a comment
        """)
    assert specs_of(env) == ["zlib@1.3", "hdf5 +mpi ^openmpi", "curl"]
    assert specs_of(tmp_path) == specs_of(env)  # the directory holding it reads the same


def test_a_matrix_is_the_product_of_its_rows_less_what_an_exclude_states(tmp_path: Path) -> None:
    packages, variants, compilers = ["hdf5", "netcdf-c"], ["+mpi", "~mpi"], ["%gcc@13", "%clang@17"]
    env = write_env(tmp_path, f"""\
        spack:
          specs:
          - matrix:
            - {packages}
            - {variants}
            - {compilers}
            exclude: ['netcdf-c ~mpi', '+mpi %clang@17']
        """)
    expected = [" ".join(row) for row in product(packages, variants, compilers)
                if not (row[0] == "netcdf-c" and row[1] == "~mpi") and not (row[2] == "%clang@17" and row[1] == "+mpi")]
    assert specs_of(env) == expected
    roots = read(env).roots
    assert all(root.parts == tuple(root.spec.split(" ")) for root in roots)


def test_an_exclude_states_a_range_a_row_lies_within(tmp_path: Path) -> None:
    env = write_env(tmp_path, """\
        spack:
          specs:
          - matrix:
            - [zlib@1.2.13, zlib@1.3.1, zlib@2.0]
            exclude: ['zlib@1.2:1.3']
        """)
    assert specs_of(env) == ["zlib@2.0"]


def test_an_exclude_states_a_target_range_a_row_lies_within(tmp_path: Path) -> None:
    env = write_env(tmp_path, """\
        spack:
          specs:
          - matrix:
            - [zlib]
            - [target=x86_64_v3, target=zen4, target=aarch64, target=notarget]
            exclude: ['target=x86_64:']
        """)
    assert specs_of(env) == ["zlib target=aarch64", "zlib target=notarget"]  # zen4 and x86_64_v3 are x86_64 or newer


def test_definitions_with_references_and_sigils(tmp_path: Path) -> None:
    env = write_env(tmp_path, """\
        spack:
          definitions:
          - packages: [hdf5, netcdf-c]
          - compilers: ['gcc@13']
          - mpis: [mpich, openmpi]
          - packages: [zlib]     # a later entry of a name appends
          specs:
          - $packages
          - matrix:
            - [$packages]
            - [$%compilers]
            - [$^mpis]
            exclude: ['zlib', 'netcdf-c ^openmpi']
        """)
    packages = ["hdf5", "netcdf-c", "zlib"]
    matrix = [f"{p} %gcc@13 ^{m}" for p, m in product(packages, ["mpich", "openmpi"])
              if p != "zlib" and not (p == "netcdf-c" and m == "openmpi")]
    assert specs_of(env) == packages + matrix


def test_a_definitions_when_is_decided_for_the_platform_planned_for(tmp_path: Path) -> None:
    env = write_env(tmp_path, """\
        spack:
          definitions:
          - base: [zlib]
          - base: [openblas]
            when: platform == 'linux' and target in ['x86_64_v3', 'zen3']
          - base: [accelerate]
            when: platform == 'darwin'
          - base: [veclibfort]
            when: not os == 'ubuntu22.04'
          specs: [$base]
        """)
    assert specs_of(env) == ["zlib", "openblas"]
    assert specs_of(env, parse_arch("darwin-sonoma-m1")) == ["zlib", "accelerate", "veclibfort"]
    assert read(env).notes == ()


def test_a_reference_to_a_definition_only_written_under_a_false_when_says_so(tmp_path: Path) -> None:
    env = write_env(tmp_path, """\
        spack:
          definitions:
          - gpu: [cuda]
            when: target == 'zen4'
          specs: [zlib, $gpu, $cpu]
        """)
    assert specs_of(env, parse_arch("linux-ubuntu22.04-zen4")) == ["zlib", "cuda"]
    notes = read(env).notes  # for x86_64_v3: gpu is written, but not for this platform; cpu is not written at all
    assert specs_of(env) == ["zlib"] and len(notes) == 2
    assert "'$gpu' names only definitions whose when: is false for this platform" in notes[0]
    assert "'$cpu' names no definition before it" in notes[1]


def test_a_when_naming_more_than_the_platform_is_said_and_its_specs_kept(tmp_path: Path) -> None:
    env = write_env(tmp_path, """\
        spack:
          definitions:
          - base: [zlib]
          - extra: [cmake]
            when: arch.satisfies('platform=linux')
          - site: [mpich]
            when: env['SITE'] == 'x'
          specs: [$base, $extra, $site]
        """)
    environment = read(env)
    assert [root.spec for root in environment.roots] == ["zlib", "cmake", "mpich"]
    assert [n for n in environment.notes if "definition extra" in n and "not evaluated" in n and "arch" in n]
    assert [n for n in environment.notes if "definition site" in n and "'env'" in n]


def test_a_condition_is_never_run() -> None:
    names = {"platform": "linux", "os": "ubuntu22.04", "target": "zen3"}
    for condition in ("__import__('os').system('false')", "open('/etc/passwd')", "platform.upper() == 'LINUX'",
                      "1 == 1", "(" * 500 + "True" + ")" * 500, "platform == 'linux' or x"):
        with pytest.raises(NotEvaluated):
            evaluate(condition, names)
    assert evaluate("os != 'rhel8' and (target == 'zen3' or False)", names) is True
    assert evaluate("'zen' in target and platform not in ('darwin', 'windows')", names) is True


def test_an_undefined_reference_is_said_and_left_out(tmp_path: Path) -> None:
    env = write_env(tmp_path, "spack:\n  specs: [zlib, $nowhere]\n")
    environment = read(env)
    assert [root.spec for root in environment.roots] == ["zlib"]
    assert any("$nowhere" in note for note in environment.notes)


def test_requirement_forms_become_rules_with_their_file(tmp_path: Path) -> None:
    env = write_env(tmp_path, """\
        spack:
          specs: [zlib]
          packages:
            all:
              require: ['target=x86_64_v3', '~cuda']
              prefer: ['%gcc']
            zlib:
              require: '@1.3'
            hdf5:
              require:
              - one_of: ['+mpi', '~mpi +threadsafe']
              - any_of: ['@1.14:', '%gcc@13']
              - spec: '+hl'
                when: '@1.14'
                message: 'hl is needed'
              conflict: ['+cuda']
            mpi:
              require: openmpi
            cmake:
              buildable: false
              externals:
              - spec: cmake@3.27.7
                prefix: /usr
        """)
    packages = read(env).packages
    every = packages[ALL]
    assert [(r.policy, r.constraints) for r in every.require] == [(ONE_OF, ("target=x86_64_v3",)),
                                                                   (ONE_OF, ("~cuda",))]
    assert [r.constraints for r in every.prefer] == [("%gcc",)]
    assert [r.constraints for r in packages["zlib"].require] == [("@1.3",)]
    hdf5 = packages["hdf5"]
    assert [(r.policy, r.constraints, r.when, r.message) for r in hdf5.require] == [
        (ONE_OF, ("+mpi", "~mpi +threadsafe"), None, None), (ANY_OF, ("@1.14:", "%gcc@13"), None, None),
        (ONE_OF, ("+hl",), "@1.14", "hl is needed")]
    assert [r.constraints for r in hdf5.conflict] == [("+cuda",)]
    assert all(r.file == str(env) and r.section == REQUIRE for r in hdf5.require)
    assert [r.constraints for r in packages["mpi"].require] == [("openmpi",)]
    assert packages["cmake"].external_only and packages["cmake"].externals == ("cmake@3.27.7",)
    assert not packages["zlib"].external_only


def test_include_merges_packages_below_the_environments_own(tmp_path: Path) -> None:
    write_env(tmp_path / "site", """\
        packages:
          zlib:
            require: ['+shared']
            buildable: false
          curl:
            require: '@8:'
        mirrors:
          site: ../mirror
        """, name="packages.yaml")
    env = write_env(tmp_path / "env", """\
        spack:
          include: [../site/packages.yaml]
          specs: [zlib]
          packages:
            zlib:
              require: ['@1.3']
              buildable: true
        """)
    environment = read(env)
    included = str(tmp_path / "site" / "packages.yaml")
    zlib = environment.packages["zlib"]
    assert [(r.constraints, r.file) for r in zlib.require] == [(("@1.3",), str(env)), (("+shared",), included)]
    assert zlib.buildable  # the environment's own value wins
    assert [(r.constraints, r.file) for r in environment.packages["curl"].require] == [(("@8:",), included)]
    assert [(m.name, m.url) for m in environment.mirrors] == [("site", os.path.normpath(tmp_path / "mirror"))]
    assert len(environment.files) == 2


def test_a_double_colon_replaces_what_is_included_below(tmp_path: Path) -> None:
    write_env(tmp_path, "packages:\n  zlib:\n    require: ['+shared']\n", name="inc.yaml")
    env = write_env(tmp_path, """\
        spack:
          include: [inc.yaml]
          specs: [zlib]
          packages:
            zlib:
              require:: ['@1.3']
        """)
    assert [r.constraints for r in read(env).packages["zlib"].require] == [("@1.3",)]


def test_an_include_directory_and_an_optional_missing_one(tmp_path: Path) -> None:
    write_env(tmp_path / "conf", "packages:\n  zlib:\n    require: '@1.3'\n", name="packages.yaml")
    env = write_env(tmp_path, """\
        spack:
          include:
          - conf
          - path: absent.yaml
            optional: true
          - path: https://example.org/packages.yaml
          specs: [zlib]
        """)
    environment = read(env)
    assert [r.constraints for r in environment.packages["zlib"].require] == [("@1.3",)]
    assert any("remote include" in note for note in environment.notes)


def test_a_missing_include_is_one_line(tmp_path: Path) -> None:
    env = write_env(tmp_path, "spack:\n  include: [nowhere.yaml]\n  specs: [zlib]\n")
    with pytest.raises(UnreadableEnvironment, match="nowhere.yaml.*no such file"):
        read(env)


def test_what_is_not_evaluated_is_said_once(tmp_path: Path) -> None:
    env = write_env(tmp_path, """\
        spack:
          specs: [zlib]
          concretizer:
            unify: true
          toolchains:
            gnu: ['%gcc']
          packages:
            zlib:
              variants: +shared
              version: [1.3]
            hdf5:
              variants: +mpi
            openblas:
              providers: {}
        """)
    notes = read(env).notes
    assert len(notes) == len(set(notes))
    variants = [n for n in notes if "'variants'" in n]
    assert len(variants) == 1 and "zlib" in variants[0] and "hdf5" in variants[0]
    assert any("'version'" in n for n in notes) and any("'providers'" in n for n in notes)
    assert any(n.startswith("toolchains") for n in notes) and any("concretizer" in n for n in notes)


def test_mirrors_strings_and_mappings(tmp_path: Path) -> None:
    env = write_env(tmp_path, """\
        spack:
          specs: [zlib]
          mirrors:
            local: ./cache
            oci: {url: oci://ghcr.io/x/y, access_pair: {id_variable: U, secret_variable: P}}
            sources: {url: https://mirror.spack.io, binary: false}
            fetched: {fetch: {url: 'file:///srv/m'}, push: 'file:///srv/p'}
        """)
    environment = read(env)
    assert [(m.name, m.url) for m in environment.mirrors] == [
        ("local", str(tmp_path / "cache")), ("oci", "oci://ghcr.io/x/y"), ("fetched", "file:///srv/m")]
    assert any("access_pair" in note for note in environment.notes)


@pytest.mark.parametrize("text, said", [
    ("spack:\n  specs: [zlib\n", "not valid YAML at line"),
    ("[]\n", "not a Spack environment"),
    ("spack: 3\n", "not a Spack environment"),
    ("spack:\n  specs: [!!int abc]\n", "a YAML int that cannot be read"),
    ("spack:\n  specs: [" + "[" * 5000 + "]" * 5000 + "]\n", "nested too deeply|not valid YAML"),
], ids=["truncated", "a list", "a number", "a bad int", "deep"])
def test_malformed_yaml_is_one_line(tmp_path: Path, text: str, said: str) -> None:
    env = tmp_path / "spack.yaml"
    env.write_text(text)
    with pytest.raises(UnreadableEnvironment, match=said) as raised:
        read(env)
    assert "\n" not in str(raised.value)


def test_hostile_files_are_refused_before_they_are_expanded(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb" / "spack.yaml"
    bomb.parent.mkdir()
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"] + [f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]"
                                                    for p, c in zip("abcdefgh", "bcdefghi")]
    bomb.write_text("\n".join(lines) + "\nspack:\n  specs: *i\n")
    with pytest.raises(UnreadableEnvironment, match="alias at line 2: refused"):
        read(bomb)
    big = write_env(tmp_path / "big", "spack:\n  specs: [" + "zlib, " * 50_000 + "zlib]\n")
    with pytest.raises(UnreadableEnvironment, match="larger than 0 MB"):
        read(big, max_bytes=100_000)
    directory = tmp_path / "dir"
    (directory / "spack.yaml").mkdir(parents=True)
    with pytest.raises(UnreadableEnvironment, match="not a regular file: a directory"):
        read(directory)
    fifo = tmp_path / "fifo" / "spack.yaml"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    with pytest.raises(UnreadableEnvironment, match="not a regular file: a FIFO"):
        read(fifo)  # never opened for reading: no writer would ever come
    product_bomb = write_env(tmp_path / "product", "spack:\n  specs:\n  - matrix:\n" +
                             "".join(f"    - [a{i}, b{i}, c{i}, d{i}, e{i}, f{i}, g{i}, h{i}, i{i}, j{i}]\n"
                                     for i in range(12)))
    with pytest.raises(UnreadableEnvironment, match="more than 100,000"):
        read(product_bomb)
    loop = write_env(tmp_path / "loop", "packages: {}\ninclude: [spack.yaml]\nspack:\n  include: [spack.yaml]\n"
                     "  specs: [zlib]\n")
    assert specs_of(loop) == ["zlib"]  # a file that includes itself is read once


def test_an_os_is_named_as_spack_names_it() -> None:
    assert os_from_release('ID=ubuntu\nVERSION_ID="22.04"\n') == "ubuntu22.04"
    assert os_from_release("ID=debian\nVERSION_ID=\"12\"\n") == "debian12"
    assert os_from_release('ID="rhel"\nVERSION_ID="8.9"\n') == "rhel8"
    assert os_from_release('ID=opensuse-leap\nVERSION_ID="15.5"\n') == "opensuse_leap15"
    assert os_from_release("NAME=nothing\n") is None


def test_a_requirement_written_as_one_string_replaces_what_is_included_below_as_spack_merges_scopes(
        tmp_path: Path) -> None:
    # Spack's merge_yaml joins two lists; a string (or any other type) in the higher scope replaces the lower.
    write_env(tmp_path / "env", """\
        packages:
          zlib: {require: 'target=aarch64'}
          curl: {require: ['@8:']}
          hdf5: {require: '+mpi'}
        """, name="inc.yaml")
    env = write_env(tmp_path / "env", """\
        spack:
          include: [inc.yaml]
          specs: [zlib]
          packages:
            zlib: {require: 'target=x86_64_v3'}
            curl: {require: ['~ssl']}
            hdf5: {require: ['~cuda']}
        """)
    packages = read(env).packages
    assert [r.constraints for r in packages["zlib"].require] == [("target=x86_64_v3",)]  # a string replaces
    assert [r.constraints for r in packages["curl"].require] == [("~ssl",), ("@8:",)]  # two lists join
    assert [r.constraints for r in packages["hdf5"].require] == [("~cuda",)]  # a list above a string replaces it


def test_matrices_nested_hundreds_deep_are_one_line_and_exit_2(tmp_path: Path) -> None:
    nested = '{"matrix": [[' * 250 + '"zlib"' + "]]}" * 250  # JSON is YAML: 4 KB, 750 levels deep
    env = tmp_path / "spack.yaml"
    env.write_text('{"spack": {"specs": [' + nested + "]}}")
    with pytest.raises(UnreadableEnvironment, match=r"spack\.yaml: nested too deeply"):  # not the YAML parser's
        read(env)
