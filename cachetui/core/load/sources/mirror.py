"""A Spack mirror's build-cache index: found by layout, verified against what the mirror published.

Layout v3 (Spack >= 1.0): `v3/manifests/index/index.manifest.json` names the index blob,
`blobs/<algorithm>/<first two>/<checksum>`, with its checksum, length and compression
(`none` or `gzip`); the checksum covers the stored bytes. Layout v2 (Spack <= 0.23):
`build_cache/index.json`, whose sha256 is published in `index.json.hash`.

Finding the checksum costs one small request; the index itself is read from the index
store when that checksum was verified before. A checksum that does not match, a truncated
or corrupt blob, or a missing index is a `MirrorError` that names the location and checksum.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from cachetui.core.load.progress import Progress
from cachetui.core.load.sources.index_store import IndexStore
from cachetui.core.load.sources.locator import (
    V2_INDEX,
    V3_MANIFEST,
    Named,
    blob_checksum,
    is_sha256,
    manifest_root,
    named,
)
from cachetui.core.load.sources.redact import redact
from cachetui.core.load.sources.transport import MAX_DOWNLOAD_BYTES as MAX_BLOB_BYTES  # as stored and served
from cachetui.core.load.sources.transport import MAX_DOWNLOAD_BYTES as MAX_INDEX_BYTES  # once inflated
from cachetui.core.load.sources.transport import FetchError, exists, fetch, join
from cachetui.core.model.problems import Problem, Severity
from cachetui.core.spack.words import counted

DB_MEDIA_TYPE = re.compile(r"application/vnd\.spack\.db\.v(\d+)\+json")
GZIP_MAGIC = b"\x1f\x8b"
INFLATE_CHUNK = 1 << 20  # bytes inflated at a time while counting: all a bomb ever costs


class MirrorError(Exception):
    """This index cannot be used: where (a URL or path) and why, in one line."""

    def __init__(self, location: str, reason: str) -> None:
        location, reason = redact(location), redact(" ".join(reason.split()))
        super().__init__(f"{location}: {reason}")
        self.location = location
        self.reason = reason


@dataclass(frozen=True)
class IndexRef:
    """Where an index's bytes are and what checksum the mirror published for them."""

    location: str
    checksum: str | None  # sha256 hex of the stored bytes; None when the mirror published none
    compression: str = "detect"  # none, gzip, or detect (gzip magic bytes)
    layout: str = "v3"
    length: int | None = None
    offline: str = ""  # "offline copy from <date>" when the mirror could not be reached: never current
    # Fetches the raw bytes where a plain GET of `location` will not do (a registry's authenticated blob).
    reader: Callable[[Net, str], bytes] | None = field(default=None, compare=False, repr=False)

    @property
    def said(self) -> str:
        """How a message names these bytes: by the sha256 the mirror published, or as unverified (never "None")."""
        return f"sha256 {self.checksum}" if self.checksum else "no checksum published"


@dataclass(frozen=True)
class OfflineCopy:
    """A downloaded copy of an index, already verified, for when its mirror cannot be reached."""

    data: bytes
    checksum: str
    saved_at: float  # seconds since the epoch
    layout: str
    where: str  # whose copy: cachetui's cache, or Spack's (`~/.spack/cache/indices`)


@dataclass
class Net:
    """How indexes are reached: timeouts, progress, and the store of verified indexes (None: no warm start)."""

    timeout: float = 30.0
    progress: Progress | None = None
    store: IndexStore | None = None
    now: Callable[[], float] = time.time
    problems: list[Problem] = field(default_factory=list)

    def fetch(self, location: str, *, what: str = "", max_bytes: int = MAX_BLOB_BYTES) -> bytes:
        """Fetch `location`; with `what`, report progress as downloading it (small requests stay quiet)."""
        progress = self.progress
        report = (lambda done, total: progress(done, total, what)) if progress and what else None
        return fetch(location, timeout=self.timeout, progress=report, max_bytes=max_bytes).data


# -- finding an index ---------------------------------------------------------------------------------


def probe_root(root: str, net: Net) -> IndexRef:
    """The index of the mirror at `root` (v3 first, as Spack reads them), with one or two small requests."""
    try:
        manifest = net.fetch(join(root, V3_MANIFEST))
    except FetchError as exc:
        if not (exc.missing or exc.status == 403):  # S3 and CDNs answer 403 for a key that is not there
            raise
    else:
        return _from_manifest(root, join(root, V3_MANIFEST), manifest)
    try:
        return probe_v2_index(join(root, V2_INDEX), net, root=root)
    except FetchError as exc:
        if exc.missing:  # neither layout: one error that says where it looked
            raise MirrorError(root, f"no build-cache index here (neither {V3_MANIFEST} nor {V2_INDEX})") from None
        raise


def finder(location: str) -> Callable[[Net], IndexRef]:
    """How to find the index a location names (see `locator.named`): a manifest's blob, a v2 index.json, a blob
    named directly, else the index of the mirror whose root it is."""
    bare = location.rstrip("/")
    kind = named(bare)
    if kind is Named.MANIFEST:
        return lambda net: probe_manifest(bare, net)
    if kind is Named.V2_INDEX:
        return lambda net: probe_v2_index(bare, net)
    if kind is Named.BLOB:
        return lambda net: blob_ref(bare)
    return lambda net: probe_root(bare, net)


def probe_manifest(location: str, net: Net) -> IndexRef:
    """An index manifest named directly: its blob lives under the mirror root it belongs to."""
    return _from_manifest(manifest_root(location), location, net.fetch(location))


def probe_v2_index(location: str, net: Net, *, root: str | None = None) -> IndexRef:
    """A v2 `index.json`, checked against the `index.json.hash` beside it when there is one."""
    try:
        published = net.fetch(location + ".hash")
    except FetchError as exc:
        if not exc.missing:
            raise
        if not exists(location, timeout=net.timeout):
            raise FetchError(location, "no such index", missing=True) from None
        net.problems.append(Problem(root or location, "no index.json.hash beside the index: it cannot be verified",
                                    Severity.WARNING))
        return IndexRef(location, None, "none", "v2")
    checksum = published[:64].decode("ascii", "replace")  # as Spack reads it: a trailing newline is harmless
    if not is_sha256(checksum):
        raise MirrorError(f"{location}.hash", "not a sha256 hex digest")
    return IndexRef(location, checksum, "none", "v2")


def blob_ref(location: str) -> IndexRef:
    """An index blob named directly (as the index of indexes does): its name is its checksum."""
    checksum = blob_checksum(location)
    if checksum is None:
        raise MirrorError(location, "not a sha256 blob location")
    return IndexRef(location, checksum, "detect", "v3")


def _from_manifest(root: str, location: str, data: bytes) -> IndexRef:
    try:
        manifest = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise MirrorError(location, f"not valid JSON ({exc})") from None
    entries = manifest.get("data") if isinstance(manifest, dict) else None
    if not isinstance(entries, list):
        raise MirrorError(location, "no 'data' list: not an index manifest")
    for entry in entries:
        if isinstance(entry, dict) and DB_MEDIA_TYPE.fullmatch(str(entry.get("mediaType", ""))):
            return _entry_ref(root, location, entry)
    raise MirrorError(location, "names no database blob (mediaType application/vnd.spack.db.v*+json)")


def _entry_ref(root: str, location: str, entry: dict) -> IndexRef:
    algorithm, checksum = entry.get("checksumAlgorithm"), entry.get("checksum")
    compression = entry.get("compression", "none")
    if algorithm != "sha256" or not isinstance(checksum, str) or not is_sha256(checksum):
        raise MirrorError(location, "the index blob has no sha256 checksum")
    if compression not in ("none", "gzip"):
        raise MirrorError(location, f"unknown compression {str(compression)[:20]!r} (Spack writes none or gzip)")
    length = entry.get("contentLength")
    blob = join(root, "blobs", algorithm, checksum[:2], checksum)
    return IndexRef(blob, checksum, compression, "v3", length if isinstance(length, int) else None)


# -- reading and verifying it ------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexBytes:
    """An index's bytes, and `confirm`, which says whether they are what the mirror published.

    A big index's sha256 is worked out in C without the interpreter's lock, so it runs on another core while
    the bytes are decoded; nothing read from them is used before `confirm` has passed.
    """

    data: bytes
    confirm: Callable[[], None] = lambda: None  # raises MirrorError when they are not; else keeps them in the store


CHECKSUM_BESIDE_BYTES = 1 << 20  # a smaller index is checked before it is read, as every index once was


def read_index(ref: IndexRef, net: Net, key: str, what: str) -> IndexBytes:
    """The index JSON behind `ref`: from the store when this checksum was verified before, else fetched (and
    checked against it while it is read: see `IndexBytes`)."""
    if ref.offline and ref.reader is not None:
        return IndexBytes(ref.reader(net, what))  # verified when it was saved, and not saved again
    if ref.checksum and net.store is not None:
        stored = net.store.get(key, ref.checksum)
        if stored is not None:
            return IndexBytes(stored)
    # A blob is never read past the length its manifest gives: the checksum would refuse it anyway.
    limit = MAX_BLOB_BYTES if ref.length is None else min(ref.length, MAX_BLOB_BYTES)
    try:
        raw = ref.reader(net, what) if ref.reader is not None else net.fetch(ref.location, what=what, max_bytes=limit)
    except FetchError as exc:
        if exc.missing:
            raise MirrorError(exc.url, f"the index is missing ({exc.reason})") from None
        if exc.too_large and ref.length is not None and ref.length <= MAX_BLOB_BYTES:
            raise MirrorError(ref.location, f"longer than the {ref.length} bytes its manifest says "
                                            f"({ref.said}); not read") from None
        raise
    sum_checked = _checksum_beside(ref, raw)
    try:
        data = _as_read(ref, raw, MAX_INDEX_BYTES)
    except MirrorError:
        sum_checked()  # bytes the mirror did not publish are said to be so first, as `verified` says it
        raise

    def confirm() -> None:
        sum_checked()
        if ref.checksum and net.store is not None and not ref.offline:  # a copy keeps its own date, not today's
            net.store.put(key, ref.checksum, data, ref.layout)

    return IndexBytes(data, confirm)


def verified(ref: IndexRef, raw: bytes, limit: int | None = None) -> bytes:
    """`raw` checked against the published checksum and length, then decompressed (never past `limit`, an
    index's cap unless said)."""
    _check_checksum(ref, raw)
    return _as_read(ref, raw, MAX_INDEX_BYTES if limit is None else limit)


def _check_checksum(ref: IndexRef, raw: bytes) -> None:
    """`raw` checked against the published checksum now."""
    if ref.checksum is not None:
        _same_checksum(ref, hashlib.sha256(raw).hexdigest())


def _checksum_beside(ref: IndexRef, raw: bytes) -> Callable[[], None]:
    """What checks `raw` against the published checksum (`IndexBytes.confirm`): for a big index, its sha256 worked
    out in a thread from now, waited for and compared when called; a small one is checked now."""
    if ref.checksum is None or len(raw) < CHECKSUM_BESIDE_BYTES:
        _check_checksum(ref, raw)
        return lambda: None
    digest = hashlib.sha256()
    thread = threading.Thread(target=digest.update, args=(raw,), name="index checksum", daemon=True)
    thread.start()

    def confirm() -> None:
        thread.join()
        _same_checksum(ref, digest.hexdigest())

    return confirm


def _same_checksum(ref: IndexRef, actual: str) -> None:
    if actual != ref.checksum:
        raise MirrorError(ref.location, f"checksum mismatch: the mirror published sha256 {ref.checksum}, "
                                        f"the bytes served have sha256 {actual}")


def _as_read(ref: IndexRef, raw: bytes, limit: int) -> bytes:
    """`raw` of the length the manifest says, decompressed (never past `limit`)."""
    if ref.length is not None and len(raw) != ref.length:
        raise MirrorError(ref.location, f"{len(raw)} bytes where the manifest says {ref.length} ({ref.said})")
    if ref.compression == "gzip" or (ref.compression == "detect" and raw.startswith(GZIP_MAGIC)):
        return _gunzip(ref, raw, limit)
    return raw


def _gunzip(ref: IndexRef, raw: bytes, limit: int) -> bytes:
    """Decompressed, but never past `limit`, and a bomb refused without holding what it inflates to.

    The stream is inflated twice: first a chunk at a time, only counting (a 2.5 GB bomb costs a
    chunk of memory and is refused once the count passes the limit), then into one buffer of
    the size now known, which is the only copy of the index ever held.
    """
    size = _inflated_size(ref, raw, limit)
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    return inflate.decompress(raw, size) if size else b""


def _inflated_size(ref: IndexRef, raw: bytes, limit: int) -> int:
    """How many bytes `raw` inflates to; MirrorError when corrupt, truncated, or past `limit`."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending: bytes = raw
    size = 0
    try:
        while not inflate.eof:
            chunk = inflate.decompress(pending, INFLATE_CHUNK)
            size += len(chunk)
            if size > limit:
                raise MirrorError(ref.location, f"expands past {limit / 2**20:.0f} MB ({ref.said}); not read")
            pending = inflate.unconsumed_tail
            if not chunk and not pending:
                break  # all input consumed before the end of the stream
    except zlib.error as exc:
        raise MirrorError(ref.location, f"corrupt gzip ({ref.said}): {exc}") from None
    if not inflate.eof:
        raise MirrorError(ref.location, f"truncated gzip ({ref.said}): the stream ends early")
    return size


def copy_may_stand_in(error: FetchError) -> bool:
    """Whether an offline copy may be shown for what failed: only when it could not be reached. A mirror that
    answered that it has no index (404) or that it refuses this user (401, 403) has spoken: a copy would hide it."""
    return not (error.missing or error.refused)


def offline_fallback(key: str, net: Net, error: FetchError,
                     others: Callable[[], list[OfflineCopy]] | None = None) -> IndexRef | None:
    """When the mirror cannot be reached: the newest downloaded copy of its index (cachetui's or Spack's),
    labelled with its date everywhere it shows, with a warning that says so. None when there is no copy,
    or when the mirror answered (see `copy_may_stand_in`)."""
    if not copy_may_stand_in(error):
        return None
    copies = list(others() if others is not None else [])
    stored = net.store.latest(key) if net.store is not None else None
    if stored is not None:
        copies.append(OfflineCopy(stored.data, stored.checksum, stored.stored_at, stored.layout or "v3",
                                  "cachetui's cache"))
    if not copies:
        return None
    copy = max(copies, key=lambda c: c.saved_at)
    label = f"offline copy from {dated(copy.saved_at)}"
    net.problems.append(Problem(key, f"cannot reach the mirror ({error.reason}); showing the {label} "
                                     f"({age(net.now() - copy.saved_at)} ago, in {copy.where}, "
                                     f"sha256 {copy.checksum})", Severity.WARNING, stale=True))
    return IndexRef(f"{key} ({label})", copy.checksum, "none", copy.layout, offline=label,
                    reader=lambda _net, _what: copy.data)


def dated(seconds: float) -> str:
    """A moment as people read it anywhere: UTC, to the minute."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds))


def age(seconds: float) -> str:
    """How long ago, in words a person reads at a glance."""
    minutes = max(0, int(seconds // 60))
    if minutes < 120:
        return counted(minutes, "minute")
    hours = minutes // 60
    return f"{hours} hours" if hours < 48 else f"{hours // 24} days"
