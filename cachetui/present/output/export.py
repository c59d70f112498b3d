"""Export specs to a file the user names: CSV or JSON by its extension, with the columns of `query`.

CSV is for spreadsheets: a cell that starts like a formula (`+mpi`) gets a leading `'`.
Both are written as `query` writes them (`write_specs`), so a file is as inert as the screen.

The file is written whole to a temporary file beside it, then moved into place, so a reader
never sees half a file. It never lands inside an input tree (inputs are others' data, never
written to), and never replaces an existing file unless the caller says the user agreed.
"""

from __future__ import annotations

import errno
import io
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from cachetui.core.model.corpus import Corpus
from cachetui.present.output.spec_output import write_specs


class ExportRefused(Exception):
    """The file cannot or must not be written; the message says why."""


class ExportExists(ExportRefused):
    """The file exists: ask before replacing it."""


FORMATS = ("csv", "json")  # csv first: a name with any other extension gets CSV


def export_format(path: Path) -> str:
    suffix = path.suffix.lower().removeprefix(".")
    return suffix if suffix in FORMATS else FORMATS[0]


def export_text(corpus: Corpus, indices: Sequence[int], fmt: str) -> str:
    """The specs as an export or a served download holds them."""
    out = io.StringIO()
    write_specs(out, corpus, indices, fmt, spreadsheet=True)
    return out.getvalue()


def resolve_target(typed: str, input_roots: Sequence[str]) -> Path:
    """Where `typed` points (relative to the working directory), refused if it lies in an input.

    `input_roots` are the local paths of the inputs (files or directories; URLs left out).
    """
    if not typed.strip():
        raise ExportRefused("type a file name")
    try:
        return _checked(Path(os.path.expanduser(typed.strip())).resolve(), input_roots)
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, an unsearchable directory, a NUL
        raise ExportRefused(f"cannot write there: {exc}") from None


def _checked(target: Path, input_roots: Sequence[str]) -> Path:
    for source in input_roots:
        local = Path(source).expanduser()
        if local.exists():
            root = local.resolve() if local.is_dir() else local.resolve().parent
            if target == root or root in target.parents:
                raise ExportRefused(f"{target} is inside an input ({root}): inputs are never written to")
    if target.is_dir():
        raise ExportRefused(f"{target} is a directory")
    if not target.parent.is_dir():
        raise ExportRefused(f"no such directory: {target.parent}")
    return target


def export_specs(target: Path, corpus: Corpus, indices: Sequence[int], *, replace: bool = False) -> int:
    """Write the specs to `target`; returns the bytes written. Raises ExportExists unless `replace`."""
    return write_whole(target, export_text(corpus, indices, export_format(target)).encode("utf-8"), replace=replace)


def write_whole(target: Path, data: bytes, *, replace: bool = False) -> int:
    """Write `data` to `target` whole: a temporary file beside it, then moved into place (the bytes written).

    Raises ExportExists when `target` exists, unless `replace`; ExportRefused when it cannot be written.
    """
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
        with os.fdopen(handle, "wb") as out:
            os.fchmod(out.fileno(), 0o666 & ~UMASK)  # as any new file of the user's (mkstemp makes it 0600)
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if replace:
            os.replace(temporary, target)
        else:
            _place_new(temporary, target)
    except OSError as exc:
        raise ExportRefused(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)
    return len(data)


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _read_umask()  # once, at import: setting it later from a worker thread would race other threads


def _place_new(temporary: str, target: Path) -> None:
    """Put the file in place only if nothing is there (no race): a hard link fails on an existing name.

    Where hard links are not supported (vfat, some network and FUSE file systems), the name is
    reserved with O_EXCL first and the finished file renamed over the empty reservation.
    """
    try:
        os.link(temporary, target)
    except FileExistsError:
        raise ExportExists(f"{target} exists") from None
    except OSError as exc:
        if exc.errno not in NO_HARD_LINKS:
            raise
        try:
            os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            raise ExportExists(f"{target} exists") from None
        os.replace(temporary, target)


NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EXDEV}
