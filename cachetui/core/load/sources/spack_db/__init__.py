"""Read a Spack build-cache database (DB 6, 7, 8) into normalised records, as the site renders them.

`{"database": {"version": "8", "installs": {<hash>: {"spec": <node>, "in_buildcache": bool, ...}}}}`:

- a record is a binary only when `in_buildcache` is true; its hash is the `installs` key;
- its node is read as `spack_node` says (target, variants, its own compiler, external);
- compiler: the node's own (DB 6/7); for DB 8 the build dependency that provides `c`, else
  `cxx`, else `fortran` (`name@version` of that dependency's record), else
  `annotations.compiler`, else `none` (`core.spack.compilers.node_compiler`);
- every dependency edge is kept: name, hash, deptypes, virtuals, and the version of the
  dependency's own record when the index has it.

Key order is never relied on (the DB 6 fixture puts `version` after `installs`). A typed
msgspec decode reads big indexes fast and keeps only these fields (`typed`); when a document
does not fit those types, a tolerant reading goes record by record and reports what it
skipped (`tolerant`).

A record the typed decode refuses is read on its own, as Spack's reader (Python's `json`)
would, while the rest stay on the fast path: a record it cannot use (bytes that are not
UTF-8, a record that is not an object, a spec without a name) is one problem naming its
hash, and one with fields of the wrong type loads with those fields empty and a warning.
What the typed decode cannot even skip (`NaN`, `Infinity`, a bad byte in a key) sends the
whole index to the tolerant reading, which reads what Spack's reader reads, record by record.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from cachetui.core.load.sources.spack_db.faults import (
    MAX_RECORD_PROBLEMS,
    Faults,
    IndexFormatError,
    version_problems,
)
from cachetui.core.load.sources.spack_db.shape import INDEX_DECODER, MEMBERSHIP_DECODER
from cachetui.core.load.sources.spack_db.tolerant import read_tolerantly, tolerant_membership
from cachetui.core.load.sources.spack_db.typed import DatabaseContent, NotTyped, documents, typed_rows

__all__ = ["MAX_RECORD_PROBLEMS", "DatabaseContent", "IndexFormatError", "read_database", "read_membership"]


def read_database(data: bytes, origin: str, tag: str, generation: str,
                  progress: Callable[[int, int], None] | None = None) -> DatabaseContent:
    """The binaries of one index, grouped per package into ParsedDocuments. Raises IndexFormatError.

    `progress` hears how many of the index's records are read, of how many (a big index takes seconds)."""
    faults = Faults(origin)
    try:
        database = INDEX_DECODER.decode(data).database
        rows = typed_rows(database.installs, faults, progress)
    except (msgspec.ValidationError, NotTyped, RecursionError, UnicodeDecodeError):  # record by record
        return read_tolerantly(data, origin, tag, generation)
    except msgspec.DecodeError:  # perhaps what Spack's reader accepts and msgspec does not (NaN, Infinity)
        return read_tolerantly(data, origin, tag, generation)
    version = str(database.version)
    problems = version_problems(version, origin) + faults.report()
    return DatabaseContent(version, documents(rows, origin, tag, generation), problems)


def read_membership(data: bytes) -> set[str]:
    """Only the hashes in the build cache (a stack's index, when its tag's root gives the records)."""
    try:
        database = MEMBERSHIP_DECODER.decode(data).database
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError, UnicodeDecodeError):
        return tolerant_membership(data)
    return {hash_ for hash_, record in database.installs.items() if record.in_buildcache}
