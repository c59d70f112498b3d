"""A binary's signed record, read as Spack lays it out, and what it says: signature, tarball size, push date.

- layout v3 (`url_buildcache.py`): `v3/manifests/spec/<name>/<name>-<version>-<hash>.spec.manifest.json`,
  clearsigned (plain JSON when unsigned); its `data` record of the tarball
  (`application/vnd.spack.install.v*`) gives the tarball's `contentLength`, and its record of the
  spec blob (`application/vnd.spack.spec.v*+json`, gzip) the checksum of the spec it is about;
- layout v2 (`binary_distribution.py` up to 0.23): `build_cache/<arch>-<compiler>-<ver>-<name>-<ver>-<hash>`
  `.spec.json.sig` (clearsigned) or `.spec.json` (unsigned); the tarball's size is that of the `.spack`
  file beside it (`build_cache/<arch>/<compiler>-<ver>/<name>-<ver>/…`): its size on disk, a HEAD over HTTP;
- OCI (`spack/oci/image.py`): the image tagged `<name>-<version>-<hash>.spack`, never signed (Spack
  forces it); the tarball is its last layer (that layer's `size`), and the config blob's
  `archive_timestamp`, where present, is its push date.

A v3 or v2 record's push date is its storage's date of the record file read: the file's modification
time on disk, the `Last-Modified` a server sends with it over HTTP (unknown when it sends none, or
not a date); the same date a load's walk of a local mirror gives (`sources/record_walk.py`).

Nothing here raises: a record that cannot be read is `unchecked` with the reason, never `unsigned`.
A record is never read past MAX_RECORD_BYTES, a spec blob never inflated past MAX_SPEC_BYTES, and
on disk neither is read from outside the mirror. A record whose spec is about another binary is
`bad`, naming that binary, and its size is not shown: it is the other binary's (`named.py`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cachetui.core.load.provenance.named import Named, named_by, names_other
from cachetui.core.load.provenance.signature import (
    BAD,
    UNCHECKED,
    UNKNOWN_KEY,
    UNSIGNED,
    VERIFIED,
    Keyring,
    Signature,
    first_line,
    iso,
    verify,
)
from cachetui.core.load.sources.clearsigned import cleartext, is_clearsigned
from cachetui.core.load.sources.locator import is_sha256
from cachetui.core.load.sources.mirror import IndexRef, MirrorError, Net, verified
from cachetui.core.load.sources.oci import registry_for
from cachetui.core.load.sources.record_walk import dated
from cachetui.core.load.sources.transport import FetchError, content_length, fetch, join

MAX_RECORD_BYTES = 4 << 20  # a spec manifest is ~1 KB, a v2 .spec.json.sig holds the whole DAG: tens of KB
MAX_SPEC_BYTES = 16 << 20  # a v3 spec blob once inflated: the whole DAG's specfile, tens of KB
TARBALL_TYPE = re.compile(r"application/vnd\.spack\.install\.v\d+\.tar\+gzip")
SPEC_TYPE = re.compile(r"application/vnd\.spack\.spec\.v\d+\+json")
OCI_MANIFEST_TYPES = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json"


@dataclass(frozen=True)
class Binary:
    """What names a binary's files: its package, version, hash, and (layout v2) its architecture and compiler."""

    package: str
    version: str
    hash: str
    platform: str = ""
    os: str = ""
    target: str = ""
    compiler: str = ""  # `gcc@13.2.0`; `none` or empty when it has none


@dataclass(frozen=True)
class Reading:
    """What a binary's record says, as far as it could be read."""

    signature: Signature
    size: int | None = None  # the tarball's bytes; None when nobody published it
    pushed: str | None = None  # ISO 8601 UTC: the record file's date (v3, v2), the image's archive_timestamp (OCI)
    record: str | None = None  # where the record was read (or looked for)


# What a name, version, hash, architecture or compiler may hold before it goes into a location: an index
# is others' text, and `../`, `?` or `#` in it must never point a request elsewhere.
_PATH_PART = re.compile(r"[A-Za-z0-9_+=@-][A-Za-z0-9_.+=@-]*")


def read_record(binary: Binary, root: str, layout: str, keyring: Callable[[], Keyring], timeout: float) -> Reading:
    """What `binary`'s record says. One record's failure of any kind costs only that record: what the readers
    below do not foresee (Sequoia raises RuntimeError for a field it cannot read, and a Rust panic arrives as
    pyo3's PanicException, a BaseException) is `unchecked` with its first line, never the end of the run."""
    try:
        return _read_record(binary, root, layout, keyring, timeout)
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - see the docstring: one record, one reason
        return Reading(Signature.unchecked(f"the record could not be read: {first_line(exc)}"))


def _read_record(binary: Binary, root: str, layout: str, keyring: Callable[[], Keyring], timeout: float) -> Reading:
    parts = [binary.package, binary.version, binary.hash] + \
        ([binary.platform, binary.os, binary.target, binary.compiler or "none"] if layout == "v2" else [])
    if not all(_PATH_PART.fullmatch(part) and ".." not in part for part in parts):
        return Reading(Signature.unchecked("the index names this binary with characters no Spack file name has; "
                                           "its record is not looked for"))
    if layout == "v3":
        return _v3(binary, root, keyring, timeout)
    if layout == "v2":
        return _v2(binary, root, keyring, timeout)
    if layout == "oci":
        return _oci(binary, root, timeout)
    return Reading(Signature.unchecked(f"a {layout} source has no signed records cachetui reads"))


# -- layout v3 -------------------------------------------------------------------------------------------


def v3_record(root: str, binary: Binary) -> str:
    name = binary.package
    return join(root, "v3", "manifests", "spec", name, f"{name}-{binary.version}-{binary.hash}.spec.manifest.json")


def _v3(binary: Binary, root: str, keyring: Callable[[], Keyring], timeout: float) -> Reading:
    location = v3_record(root, binary)
    try:
        fetched = fetch(location, timeout=timeout, max_bytes=MAX_RECORD_BYTES, within=root)
    except FetchError as exc:
        return Reading(Signature.unchecked(_unfetched(exc)), record=location)
    pushed = _file_date(fetched.modified)
    signature, text = _signed(fetched.data, keyring)
    if text is None:
        return Reading(signature, pushed=pushed, record=location)
    try:
        named = named_by(_v3_spec(root, _json(text), timeout))
    except _SpecUnread as exc:  # which binary it is about is unknown: so is whose size it gives
        return Reading(_unconfirmed(signature, str(exc)), pushed=pushed, record=location)
    signature = _about(binary, signature, named)
    return Reading(signature, _manifest_size(text) if signature.outcome != BAD else None, pushed, location)


class _SpecUnread(Exception):
    """Why the spec a v3 record names could not be read, in one line."""


def _v3_spec(root: str, manifest: Any, timeout: float) -> bytes:
    """The spec blob a spec manifest names, checked against its checksum and length, inflated (bounded)."""
    entries = manifest.get("data") if isinstance(manifest, dict) else None
    entry = next((e for e in (entries if isinstance(entries, list) else ())
                  if isinstance(e, dict) and SPEC_TYPE.fullmatch(str(e.get("mediaType", "")))), None)
    checksum = entry.get("checksum") if entry is not None else None
    if entry is None or entry.get("checksumAlgorithm") != "sha256" or not isinstance(checksum, str) \
            or not is_sha256(checksum):
        raise _SpecUnread("it names no spec blob with a sha256 checksum")
    compression = entry.get("compression", "none")
    length = entry.get("contentLength")
    location = join(root, "blobs", "sha256", checksum[:2], checksum)
    ref = IndexRef(location, checksum, compression if compression in ("none", "gzip") else "detect", "v3",
                   length if isinstance(length, int) and not isinstance(length, bool) else None)
    try:
        return verified(ref, fetch(location, timeout=timeout, max_bytes=MAX_RECORD_BYTES, within=root).data,
                        MAX_SPEC_BYTES)
    except FetchError as exc:
        raise _SpecUnread(f"its spec blob: {exc}") from None
    except MirrorError as exc:
        raise _SpecUnread(f"its spec blob: {exc.reason}") from None


def _manifest_size(text: bytes | None) -> int | None:
    """The tarball's `contentLength` in a spec manifest; None when it names none."""
    manifest = _json(text)
    entries = manifest.get("data") if isinstance(manifest, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and TARBALL_TYPE.fullmatch(str(entry.get("mediaType", ""))):
            return _count(entry.get("contentLength"))
    return None


# -- layout v2 -------------------------------------------------------------------------------------------


def v2_name(binary: Binary) -> str:
    """`<arch>-<compiler>-<ver>-<name>-<ver>-<hash>`, as Spack's `tarball_name` spells it."""
    return f"{_v2_arch(binary)}-{_v2_compiler(binary)}-{binary.package}-{binary.version}-{binary.hash}"


def v2_tarball(root: str, binary: Binary) -> str:
    """`build_cache/<arch>/<compiler>-<ver>/<name>-<ver>/<name>.spack`, as `tarball_directory_name` spells it."""
    return join(root, "build_cache", _v2_arch(binary), _v2_compiler(binary), f"{binary.package}-{binary.version}",
                f"{v2_name(binary)}.spack")


def _v2_arch(binary: Binary) -> str:
    return f"{binary.platform}-{binary.os}-{binary.target}"


def _v2_compiler(binary: Binary) -> str:
    name, _, version = binary.compiler.partition("@")
    return f"{name or 'none'}-{version.lstrip('=') or 'none'}"


def _v2(binary: Binary, root: str, keyring: Callable[[], Keyring], timeout: float) -> Reading:
    signed = join(root, "build_cache", f"{v2_name(binary)}.spec.json.sig")
    try:
        fetched, location = fetch(signed, timeout=timeout, max_bytes=MAX_RECORD_BYTES, within=root), signed
    except FetchError as exc:
        if not exc.missing:
            return Reading(Signature.unchecked(_unfetched(exc)), record=signed)
        plain = signed.removesuffix(".sig")
        try:
            fetched, location = fetch(plain, timeout=timeout, max_bytes=MAX_RECORD_BYTES, within=root), plain
        except FetchError as again:
            reason = f"no signed record: neither {signed} nor {plain} is there" if again.missing else _unfetched(again)
            return Reading(Signature.unchecked(reason), record=signed)
    signature, text = _signed(fetched.data, keyring)
    if text is not None:
        signature = _about(binary, signature, named_by(text))
    return Reading(signature, None if signature.outcome == BAD else _tarball_size(root, binary, timeout),
                   _file_date(fetched.modified), location)


def _tarball_size(root: str, binary: Binary, timeout: float) -> int | None:
    try:
        return content_length(v2_tarball(root, binary), timeout=timeout, within=root)
    except FetchError:
        return None  # no tarball where Spack puts it: its size is unknown, never 0


# -- OCI -------------------------------------------------------------------------------------------------


def oci_tag(binary: Binary) -> str:
    """The image tag Spack pushes a binary as (`spack.oci.image.default_tag`)."""
    tag = re.sub(r"[^\w.-]", "_", f"{binary.package}-{binary.version}-{binary.hash}.spack")
    return tag[:64] + tag[-64:] if len(tag) > 128 else tag


def _oci(binary: Binary, root: str, timeout: float) -> Reading:
    try:
        registry = registry_for(root)
    except ValueError as exc:
        return Reading(Signature.unchecked(str(exc)))
    net = Net(timeout=timeout)
    location = registry.repository.manifest_url(oci_tag(binary))
    try:
        manifest = _json(registry.get(location, net, accept=OCI_MANIFEST_TYPES, max_bytes=MAX_RECORD_BYTES))
    except (FetchError, MirrorError) as exc:
        return Reading(Signature.unchecked(f"no image for this binary: {exc}"), record=location)
    layers = manifest.get("layers") if isinstance(manifest, dict) else None
    size = _count(layers[-1].get("size")) if isinstance(layers, list) and layers and isinstance(layers[-1], dict) \
        else None
    unsigned = Signature(UNSIGNED, reason="OCI build caches are never signed")
    config = manifest.get("config") if isinstance(manifest, dict) else None
    digest = config.get("digest") if isinstance(config, dict) else None
    if not isinstance(digest, str) or not re.fullmatch(r"sha256:[0-9a-f]{64}", digest):
        return Reading(unsigned, size, record=location)
    try:
        data = registry.get(registry.repository.blob_url(digest), net, accept="application/json",
                            max_bytes=MAX_RECORD_BYTES)
    except (FetchError, MirrorError):
        return Reading(unsigned, size, record=location)  # the push date is unknown; the rest stands
    if hashlib.sha256(data).hexdigest() != digest.removeprefix("sha256:"):
        return Reading(unsigned, size, record=location)
    config_json = _json(data)
    pushed = _moment(config_json.get("archive_timestamp")) if isinstance(config_json, dict) else None
    return Reading(unsigned, size, pushed, location)


def _moment(value: object) -> str | None:
    """A push date as ISO 8601: Spack writes it as ISO text; a number is read as seconds since the epoch."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float)):
            return iso(dt.datetime.fromtimestamp(value, dt.timezone.utc))
        if isinstance(value, str):
            moment = dt.datetime.fromisoformat(value.strip())
            return iso(moment) if moment.tzinfo is not None else moment.isoformat()  # a zone not said is not guessed
    except (OverflowError, OSError, ValueError):
        return None
    return None


# -- shared --------------------------------------------------------------------------------------------------


def _file_date(modified: float | None) -> str | None:
    """A record file's date (its mtime, a server's Last-Modified) as its push date: ISO 8601 UTC, as `_moment`
    writes OCI's. The date is of the file slot the binary is filed under, whatever the record inside says: so it
    stands for a `bad` record too, as a load's walk of the same files gives it."""
    when = None if modified is None else dated(modified)
    return None if when is None else iso(dt.datetime.fromtimestamp(when, dt.timezone.utc))


def _signed(data: bytes, keyring: Callable[[], Keyring]) -> tuple[Signature, bytes | None]:
    """A record's outcome and the text to read sizes from (none when it does not verify)."""
    if is_clearsigned(data):
        signature, text = verify(data, keyring())
        if signature.outcome == UNKNOWN_KEY:
            text = cleartext(data)  # what the mirror says, as an unsigned record is read
        return signature, text
    if b"-----BEGIN PGP" in data[:4096]:
        return Signature(BAD, reason="the armour is malformed"), None
    if _json(data) is None:
        return Signature.unchecked("the record is neither JSON nor clearsigned"), None
    return Signature(UNSIGNED), data


def _about(binary: Binary, signature: Signature, named: Named | None) -> Signature:
    """`signature`, unless the record is about another binary than `binary` (or says of none which it is):
    then `bad`, naming the binary it is about. A signature vouches for a text, never for a file name."""
    if signature.outcome == UNCHECKED:
        return signature
    signed = "an unsigned record" if signature.outcome == UNSIGNED else "a signed record"
    if named is None:
        return Signature(BAD, signer=signature.signer, reason=f"{signed} that names no binary (it holds no spec "
                                                              f"with a root node)")
    if names_other(binary.package, binary.version, binary.hash, named):
        return Signature(BAD, signer=signature.signer, reason=f"{signed} of {named}")
    return signature


def _unconfirmed(signature: Signature, why: str) -> Signature:
    """A record whose spec could not be read: its signature cannot be said to be this binary's."""
    if signature.outcome != VERIFIED:
        return signature  # nothing was vouched for; what the record says stands as unverified as it was
    return Signature.unchecked(f"which binary the signed record is about cannot be read: {why}")


def _json(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _unfetched(exc: FetchError) -> str:
    if exc.too_large:
        return f"the record is over the {MAX_RECORD_BYTES // 2**20} MB cap; not read ({exc.url})"
    if exc.missing:
        return f"no signed record: {exc}"
    return f"the record cannot be fetched: {exc}"
