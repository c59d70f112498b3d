"""Shared fixtures: the bundled sample, and a way to write documents into a temporary tree."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from cachetui.core.load.sample import sample_path
from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from cachetui.core.model.corpus import Corpus

SEED_FILES = sorted(sample_path().glob("*.txt"))


def read_seed_specs(path: Path) -> tuple[str, list[dict[str, Any]]]:
    """Independent of the loader: the title and the spec_details list, by plain string handling."""
    title, specs = "", []
    for line in path.read_text().splitlines():
        if line.startswith("title:"):
            title = json.loads(line.partition(":")[2])
        if line.startswith("spec_details:"):
            specs = json.loads(line.partition(":")[2])
    return title, specs


@pytest.fixture(autouse=True)
def private_cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Tests never read or write the real user cache."""
    home = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def private_config_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Tests never read the user's own settings (config.toml): each starts with none."""
    home = tmp_path_factory.mktemp("xdg-config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def sample_corpus() -> Corpus:
    result = load_paths([sample_path()])
    return build_corpus(result.documents, result.report)


def front_matter(**keys: Any) -> str:
    """A document in the site's current shape; JSON values written on one line like the site does."""
    lines = ["---"]
    for key, value in keys.items():
        lines.append(f"{key}: {value if isinstance(value, str) else json.dumps(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def spec_entry(hash_: str, **overrides: Any) -> dict[str, Any]:
    entry = {
        "compiler": "gcc@13.2.0",
        "hash": hash_,
        "os": "ubuntu24.04",
        "platform": "linux",
        "size": "-",
        "stacks": ["e4s", "root"],
        "target": "x86_64_v3",
        "variants": ["+mpi", "~cuda", "cuda_arch=80,90"],
        "versions": ["1.2.3"],
    }
    entry.update(overrides)
    return entry


def listing(package: str, tag: str, specs: list[dict[str, Any]]) -> str:
    return front_matter(
        title=json.dumps(package),
        layout="cache",
        categories=f"[package, {tag}]",
        meta={"num_specs": len(specs)},
        spec_details=specs,
    )


WriteDoc = Callable[..., Path]


@pytest.fixture
def write_doc(tmp_path: Path) -> WriteDoc:
    def write(relative: str, content: str | bytes) -> Path:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        return path

    return write


# Hypothesis budgets: "ci" keeps `make test` bounded; `make fuzz` selects the long run.
settings.register_profile("ci", max_examples=150, deadline=None)
settings.register_profile("fuzz", max_examples=20_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def mirror_server(tmp_path: Path):  # noqa: ANN201 - Iterator[MirrorServer]
    """A loopback HTTP server over tmp_path/www: tests write mirrors there (see tests/mirrors.py)."""
    from tests.mirrors import serve

    root = tmp_path / "www"
    root.mkdir()
    yield from serve(root)


# -- shared trees: site documents (tests/spec_tree.py) and a mirror with an unheld DAG (tests/dag_mirror.py)


@pytest.fixture(scope="module")
def spec_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Site documents with hdf5, kokkos, zlib and friends (tests/spec_tree.py)."""
    from tests.spec_tree import write_tree  # it builds its documents with this module's helpers

    return write_tree(tmp_path_factory.mktemp("spec-tree"))


@pytest.fixture(scope="module")
def dag_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mirror whose DAG passes through records the cache does not hold (tests/dag_mirror.py)."""
    from tests import dag_mirror

    return dag_mirror.write_mirror(tmp_path_factory.mktemp("dag") / "develop")
