"""What cached results depend on: the loading code's source, the cache format, Python, numpy and PyYAML.

Only the modules a load imports count, so a change to query code (resolving, matching, explaining)
leaves users' caches valid; a change to a parser, the model or its builders does not. Finding those
modules means reading ~70 files, so the digest is remembered in the private cache directory beside
the stamp (size, mtime, ctime, inode) of every file it read and of every file whose absence it
relied on: any change to one of them and it is worked out again. The import statements are found
with a regular expression, not `ast`: parsing the files cost 0.1 s of every cold load, the scan
0.03 s, and where the two could differ (an import written in a docstring) the scan finds more
modules, never fewer: a digest over too many files only invalidates a cache more often.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import numpy as np

import cachetui.core
from cachetui.core.load.cache_file import CACHE_FORMAT
from cachetui.core.load.private_dir import NotPrivate, open_private, private_directory, write_private
from cachetui.core.load.sources.site.walk import stamp

# The modules a load runs: what they import (within the core), at any depth, shapes what is cached.
LOADING_ROOTS = ("load/pipeline.py",)
# Readers `cachetui.core.load` exports for a command that no load runs (a spack.yaml for `plan`): reached only through
# the package's export list, what they import (a spec parser) shapes no cache, so a change to it keeps caches valid.
NOT_LOADING = ("load/sources/environment.py",)
_MEMO = "code-digest.json"


_WORKED_OUT: list[str] = []  # this process's digest, once worked out
_WORKING = threading.Lock()  # held while it is worked out: asked again meanwhile (`digest_beside`), it is waited for


def code_digest(directory: Path) -> str:
    """The digest of this installation's loading code, remembered in `directory` (the cache's) when private.

    Worked out once per process, for whichever cache asks first: the code a process runs does not change
    under it, and a test's many cache directories each working it out again would cost every test a scan.
    """
    with _WORKING:
        if not _WORKED_OUT:
            _WORKED_OUT.append(remembered_digest(Path(cachetui.core.__file__).parent, directory))
        return _WORKED_OUT[0]


def digest_beside(directory: Path) -> threading.Thread | None:
    """`code_digest` worked out in a thread (None: it is known), for a load that writes a cache file once it is done.

    With nothing remembered (a first load, a new version), it reads ~70 modules: done beside the load, not when the
    file is written, when the parsers' processes have finished and only this one has work left.
    """
    if _WORKED_OUT:
        return None
    thread = threading.Thread(target=_worked_out, args=(directory,), name="code digest", daemon=True)
    thread.start()
    return thread


def _worked_out(directory: Path) -> None:
    try:
        code_digest(directory)
    except Exception:  # noqa: BLE001 - asked again where the file's key is made, and its failure handled there
        pass


def _base() -> str:
    return f"{CACHE_FORMAT}\0{sys.version}\0{np.__version__}\0{_yaml_version()}"


@lru_cache(maxsize=1)
def _yaml_version() -> str:
    """PyYAML's version, as its `__init__.py` states it: read, not imported (a warm start parses no YAML)."""
    spec = importlib.util.find_spec("yaml")
    try:
        source = Path(spec.origin).read_text(encoding="utf-8") if spec is not None and spec.origin else ""
    except OSError:
        source = ""
    found = next((line for line in source.splitlines() if line.startswith("__version__")), None)
    return found or f"unknown ({spec.origin if spec else None})"


def source_digest(core: Path) -> str:
    return _digest(core, loading_modules(core))


def _digest(core: Path, modules: set[Path]) -> str:
    digest = hashlib.sha256(_base().encode())
    for source in sorted(modules):
        digest.update(source.relative_to(core).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def _stamp(path: Path) -> list[int] | None:
    """A file's stamp as the warm cache takes it (`walk.stamp`), as the memo's JSON holds it."""
    found = stamp(str(path))
    return None if found is None else list(found)


def remembered_digest(core: Path, directory: Path) -> str:
    """`source_digest(core)`, from the memo in `directory` when every file it names is as it was."""
    key = {"base": _base(), "core": str(core)}
    try:
        with private_directory(directory, create=False) as dir_fd:
            memo = _read(dir_fd) if dir_fd is not None else None
    except NotPrivate:
        memo = None
    if memo is not None and all(memo.get(k) == v for k, v in key.items()) and isinstance(memo.get("files"), dict) \
            and isinstance(memo.get("digest"), str) \
            and all(_stamp(core / name) == then for name, then in memo["files"].items()):
        return str(memo["digest"])
    modules, absent = _loading_files(core)
    stamps = {os.path.relpath(path, core): _stamp(path) for path in sorted(modules | absent)}
    digest = _digest(core, modules)  # after the stamps: a file changed meanwhile is read again next time
    _write(directory, {**key, "files": stamps, "digest": digest})
    return digest


def _read(dir_fd: int) -> dict | None:
    try:
        with open_private(dir_fd, _MEMO) as handle:
            found = json.load(handle) if handle is not None else None
    except (NotPrivate, OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def _write(directory: Path, memo: dict) -> None:
    try:
        with private_directory(directory, create=True) as dir_fd:
            assert dir_fd is not None
            write_private(dir_fd, _MEMO, lambda handle: handle.writelines([json.dumps(memo).encode()]))
    except (NotPrivate, OSError):
        pass  # not remembered: worked out again next time


def loading_modules(core: Path) -> set[Path]:
    """The core modules a load imports, at any depth, read from their import statements (nothing runs)."""
    return _loading_files(core)[0]


def _loading_files(core: Path) -> tuple[set[Path], set[Path]]:
    """The modules a load imports, and the files an import could have named that do not exist."""
    # Plain strings, and each imported name resolved once: most modules import the same few, and the
    # paths built for them with pathlib were most of a cold load's digest.
    root = str(core)
    found: set[str] = set()
    absent: set[str] = set()
    resolved: set[str] = set()
    waiting = [os.path.join(root, name) for name in LOADING_ROOTS]
    skipped = {os.path.join(root, name) for name in NOT_LOADING}
    while waiting:
        module = waiting.pop()
        if module in found or module in absent or module in skipped:
            continue
        if not os.path.isfile(module):
            absent.add(module)
            continue
        found.add(module)
        with open(module, "rb") as handle:
            names = set(imported_names(handle.read())) - resolved
        resolved |= names
        waiting += [path for name in names for path in _module_paths(root, name)]
    return set(map(Path, found)), set(map(Path, absent))


# An import statement at any depth (one inside a function runs on a miss), where a statement may start (a
# line, or after `;` or `if x:`): `from M import a, b` (or a parenthesised list over lines), `import a.b, c as d`.
_IMPORT = re.compile(rb"(?:^|[;:])[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)"
                     rb"|import[ \t]+([^\n#;]*))", re.MULTILINE)


def imported_names(source: bytes) -> Iterator[str]:
    """Every module an import statement in `source` may load: `from M import y` names M and M.y (y may be a
    module). Relative imports name nothing (the core imports absolutely)."""
    for match in _IMPORT.finditer(source.replace(b"\\\n", b" ")):
        module, imported, plain = (g.decode("utf-8", "replace") if g is not None else "" for g in match.groups())
        if module:
            yield module
            yield from (f"{module}.{word}" for word in _first_words(imported.strip("()")))
        else:
            yield from _first_words(plain)


def _first_words(names: str) -> Iterator[str]:
    """`a as b, c` -> a, c."""
    for item in names.split(","):
        words = item.split()
        if words:
            yield words[0]


def _module_paths(root: str, name: str) -> list[str]:
    if not name.startswith("cachetui.core"):
        return []
    parts = name.split(".")[2:]
    base = os.path.join(root, *parts)
    # Importing a module runs every package above it too.
    packages = [os.path.join(root, *parts[:depth], "__init__.py") for depth in range(len(parts))]
    return [base + ".py", os.path.join(base, "__init__.py"), *packages]
