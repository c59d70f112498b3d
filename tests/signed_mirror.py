"""Signed build caches for tests, laid out as Spack lays them out, with keys made here (pysequoia).

One DAG, written as a layout-v3 or a layout-v2 mirror: `app` links `zlib` and `libc3` and runs
`tool` (three held dependencies) and builds with `cmake` (not held, build only); every other
binary stands for one outcome:

- `app`, `zlib`, `libc3`, `tool`: signed by the published key's signing subkey (`verified`);
- `plain`: unsigned; `tampered`: signed, then its text changed (`bad`); `foreign`: signed by a key
  the cache does not publish (`unknown-key`); `gone`: no record at all (`unchecked`);
- `old`: signed by a key that has since expired (`verified`, expired). A key cannot sign after it
  expires, so its records (v3 and v2) and key are committed (`tests/fixtures/provenance/`), made by
  `tests/fixtures/provenance/make_expired.py` from `old_manifest()` and `old_v2_spec()` below;
- `lacks`: links a record the cache does not hold;
- `swapped`: its record is zlib's, validly signed, copied over its own (`bad`: a signed record of zlib).

Paths and sizes are spelled here from Spack's rules, independently of the project's code.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pysequoia

from tests.dag_mirror import hash_of
from tests.dag_mirror import index as dag_index
from tests.mirrors import v3_mirror

EXPIRED = Path(__file__).parent / "fixtures" / "provenance"
TARBALL_TYPE = "application/vnd.spack.install.v2.tar+gzip"
SPEC_TYPE = "application/vnd.spack.spec.v5+json"
ARCH, COMPILER = "linux-ubuntu22.04-x86_64_v3", "gcc-13.2.0"  # as the DAG's nodes say

# name: (version, in the cache, external, [(dependency, deptypes)])
RECORDS: dict[str, tuple[str, bool, bool, list[tuple[str, list[str]]]]] = {
    "gcc": ("13.2.0", False, True, []),
    "cmake": ("3.27.7", False, False, []),
    "zlib": ("1.3", True, False, []),
    "libc3": ("3.0", True, False, [("zlib", ["build", "link"])]),
    "tool": ("2.1", True, False, []),
    "app": ("1.0", True, False, [("zlib", ["build", "link"]), ("libc3", ["link"]), ("tool", ["run"]),
                                 ("cmake", ["build"])]),
    "plain": ("1.0", True, False, []),
    "tampered": ("1.0", True, False, []),
    "foreign": ("1.0", True, False, []),
    "gone": ("1.0", True, False, []),
    "old": ("1.0", True, False, []),
    "unheld": ("0.1", False, False, []),
    "lacks": ("1.0", True, False, [("unheld", ["link"])]),
    "swapped": ("2.0", True, False, []),
}
SIGNED = ("app", "zlib", "libc3", "tool", "lacks")


def tarball(name: str) -> bytes:
    """A stand-in tarball of a size of its own (distinct sizes make sums tell)."""
    size = 1000 + 97 * sorted(RECORDS).index(name)
    return (name.encode() * size)[:size]


def spec_json(name: str) -> dict[str, Any]:
    """The specfile a binary's record carries, as Spack writes it: its root node first."""
    version = RECORDS[name][0]
    root = {"name": name, "version": version, "arch": {"platform": "linux", "platform_os": "ubuntu22.04",
                                                        "target": "x86_64_v3"}, "hash": hash_of(name)}
    return {"spec": {"_meta": {"version": 5}, "nodes": [root]}, "buildcache_layout_version": 2,
            "binary_cache_checksum": {"hash_algorithm": "sha256", "hash": hashlib.sha256(tarball(name)).hexdigest()}}


def spec_blob(name: str) -> bytes:
    """The v3 spec blob: the specfile, gzipped (with no timestamp, so the bytes and their checksum are fixed)."""
    return gzip.compress(json.dumps(spec_json(name), indent=0).encode(), mtime=0)


def manifest(name: str) -> bytes:
    """A spec manifest as Spack >= 1.0 writes it (indent 0): the tarball's and the spec blob's records."""
    data, spec = tarball(name), spec_blob(name)
    entries = [{"contentLength": len(data), "mediaType": TARBALL_TYPE, "compression": "gzip",
                "checksumAlgorithm": "sha256", "checksum": hashlib.sha256(data).hexdigest()},
               {"contentLength": len(spec), "mediaType": SPEC_TYPE, "compression": "gzip",
                "checksumAlgorithm": "sha256", "checksum": hashlib.sha256(spec).hexdigest()}]
    return json.dumps({"version": 3, "data": entries}, indent=0, separators=(",", ":")).encode()


def v2_spec(name: str) -> bytes:
    """A layout-v2 `.spec.json`: the specfile with the tarball's checksum, as Spack <= 0.23 writes it."""
    return json.dumps({**spec_json(name), "buildcache_layout_version": 1}, indent=0).encode()


def old_manifest() -> bytes:
    return manifest("old")


def old_v2_spec() -> bytes:
    return v2_spec("old")


@dataclass
class Keys:
    """The cache's key (published), a stranger's (not), and the committed expired one (published)."""

    published: Any = field(default_factory=lambda: pysequoia.Tsk.generate("Test Cache <cache@example.org>"))
    stranger: Any = field(default_factory=lambda: pysequoia.Tsk.generate("Someone Else <else@example.org>"))

    @property
    def cert(self) -> Any:
        return self.published.extract_certificate()

    @property
    def expired_cert(self) -> Any:
        return pysequoia.Cert.from_bytes((EXPIRED / "expired-key.asc").read_bytes())


def clearsign(key: Any, text: bytes) -> bytes:
    return bytes(pysequoia.sign(key.signer(), text, mode=pysequoia.SignatureMode.CLEAR))


def record(name: str, keys: Keys, layout: str = "v3") -> bytes | None:
    """The record of `name` as its outcome needs it, in `layout` (None: no record)."""
    text = (manifest if layout == "v3" else v2_spec)("zlib" if name == "swapped" else name)
    if name in SIGNED or name == "swapped":
        return clearsign(keys.published, text)
    if name == "plain":
        return text
    if name == "tampered":
        return clearsign(keys.published, text).replace(b'"sha256"', b'"sha512"', 1)
    if name == "foreign":
        return clearsign(keys.stranger, text)
    if name == "old":
        return (EXPIRED / ("old.spec.manifest.json" if layout == "v3" else "old.spec.json.sig")).read_bytes()
    return None  # gone


def write_v3(root: Path, keys: Keys) -> Path:
    """The DAG as a layout-v3 mirror with its spec manifests, tarballs and published keys."""
    data = dag_index(RECORDS)
    v3_mirror(root, json.dumps(data).encode())
    for name, (version, cached, _, _) in RECORDS.items():
        if not cached:
            continue
        _blob(root, tarball(name))
        _blob(root, spec_blob(name))
        signed = record(name, keys)
        if signed is not None:
            path = root / "v3" / "manifests" / "spec" / name / f"{name}-{version}-{hash_of(name)}.spec.manifest.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(signed)
    keys_dir = root / "v3" / "manifests" / "key"
    keys_dir.mkdir(parents=True, exist_ok=True)
    published = {cert.fingerprint.upper(): cert for cert in (keys.cert, keys.expired_cert)}
    for fingerprint, cert in published.items():
        _manifest_of(keys_dir / f"{fingerprint}.key.manifest.json", _blob(root, str(cert).encode()),
                     "application/pgp-keys")
    index = json.dumps({"keys": dict.fromkeys(published, {})}).encode()
    _manifest_of(keys_dir / "keys.manifest.json", _blob(root, index), "application/vnd.spack.keyindex.v1+json")
    return root


def write_v2(root: Path, keys: Keys) -> Path:
    """The DAG as a layout-v2 mirror: `.spec.json.sig` (or `.spec.json`), `.spack` tarballs, `_pgp/` keys."""
    data = json.dumps(dag_index(RECORDS)).encode()
    cache = root / "build_cache"
    cache.mkdir(parents=True)
    (cache / "index.json").write_bytes(data)
    (cache / "index.json.hash").write_text(hashlib.sha256(data).hexdigest())
    for name, (version, cached, _, _) in RECORDS.items():
        if not cached:
            continue
        stem = f"{ARCH}-{COMPILER}-{name}-{version}-{hash_of(name)}"
        spack = cache / ARCH / COMPILER / f"{name}-{version}" / f"{stem}.spack"
        spack.parent.mkdir(parents=True, exist_ok=True)
        spack.write_bytes(tarball(name))
        signed = record(name, keys, "v2")
        if signed is None:
            continue
        (cache / f"{stem}.spec.json{'' if name == 'plain' else '.sig'}").write_bytes(signed)
    pgp = cache / "_pgp"
    pgp.mkdir()
    published = {cert.fingerprint.upper(): cert for cert in (keys.cert, keys.expired_cert)}
    for fingerprint, cert in published.items():
        (pgp / f"{fingerprint}.pub").write_text(str(cert))
    (pgp / "index.json").write_text(json.dumps({"keys": dict.fromkeys(published, {})}))
    return root


def write_both(root: Path, keys: Keys) -> dict[str, Path]:
    """The DAG as a layout-v3 and a layout-v2 mirror, in `root`/v3 and `root`/v2."""
    built = {}
    for layout, write in (("v3", write_v3), ("v2", write_v2)):
        (root / layout).mkdir()
        built[layout] = write(root / layout, keys)
    return built


def tarball_sizes(*names: str) -> int:
    return sum(len(tarball(name)) for name in names)


def _blob(root: Path, data: bytes) -> str:
    checksum = hashlib.sha256(data).hexdigest()
    path = root / "blobs" / "sha256" / checksum[:2] / checksum
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return checksum


def _manifest_of(path: Path, checksum: str, media_type: str) -> None:
    size = (path.parents[3] / "blobs" / "sha256" / checksum[:2] / checksum).stat().st_size
    entry = {"contentLength": size, "mediaType": media_type, "compression": "none", "checksumAlgorithm": "sha256",
             "checksum": checksum}
    path.write_text(json.dumps({"version": 3, "data": [entry]}, indent=0, separators=(",", ":")))


def copy_without(root: Path, into: Path, relative: str) -> Path:
    """A copy of a mirror with one file taken out."""
    shutil.copytree(root, into)
    (into / relative).unlink()
    return into
