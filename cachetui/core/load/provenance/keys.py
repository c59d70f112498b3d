"""The public keys a cache publishes, as Spack lays them out (`binary_distribution.py`, `url_buildcache.py`).

- layout v3: `v3/manifests/key/keys.manifest.json` names the key index blob
  (`application/vnd.spack.keyindex.v1+json`, `{"keys": {FINGERPRINT: {}}}`); each key's
  `v3/manifests/key/<FINGERPRINT>.key.manifest.json` names its `application/pgp-keys` blob;
  every blob is checked against the checksum and length its manifest gives;
- layout v2: `build_cache/_pgp/index.json` lists them, each at `build_cache/_pgp/<FINGERPRINT>.pub`.

A cache that publishes no key index publishes no key (a signed record is then `unknown-key`); one
whose index or a key cannot be read, or does not parse, or signs nothing (no valid binding
signature), is said once and costs only itself: the other keys still verify what they signed (a
record it might have signed is `unchecked`). At most MAX_KEYS keys are read, none past
MAX_KEY_BYTES and all of them together not past MAX_KEYS_BYTES; a local cache's keys are read
only from inside it (a published key that links out of the mirror is refused).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from cachetui.core.load.provenance.signature import (
    Keyring,
    KeyUnreadable,
    merge_into,
    publish,
    read_certs,
)
from cachetui.core.load.sources.clearsigned import cleartext, is_clearsigned
from cachetui.core.load.sources.transport import FetchError, fetch, join

MAX_KEY_BYTES = 1 << 20  # a key, a key index or a key manifest: an armoured 4096-bit key is ~3 KB
MAX_KEYS = 32  # keys read from one cache's index
MAX_KEYS_BYTES = 2 << 20  # every key file of one cache together: what a cache's keys may cost in parsing
KEY_INDEX_TYPE = "application/vnd.spack.keyindex.v1+json"
KEY_TYPE = "application/pgp-keys"
V3_KEYS = "v3/manifests/key"
V2_KEYS = "build_cache/_pgp"
_FINGERPRINT = re.compile(r"[0-9A-Fa-f]{40}|[0-9A-Fa-f]{64}")


class _Unreadable(Exception):
    """One line: what of the cache's keys could not be read."""


def published_keys(root: str, layout: str, timeout: float) -> Keyring:
    """The keys the cache at `root` publishes (layout v3 or v2)."""
    try:
        listed = _v3_index(root, timeout) if layout == "v3" else _v2_index(root, timeout)
    except _Unreadable as exc:
        return Keyring((), (str(exc),))
    if listed is None:
        return Keyring()
    certs: dict[str, Any] = {}  # every file's certificates, copies of one key merged wherever they are
    unreadable: list[str] = []
    budget = MAX_KEYS_BYTES
    for n, fingerprint in enumerate(listed[:MAX_KEYS]):
        if budget <= 0:
            unreadable.append(f"{len(listed[:MAX_KEYS]) - n} more keys not read: the keys read reach "
                              f"{MAX_KEYS_BYTES // 2**20} MB")
            break
        try:
            data = _v3_key(root, fingerprint, timeout) if layout == "v3" else \
                _get(root, join(root, V2_KEYS, f"{fingerprint}.pub"), timeout)
            budget -= len(data)
            found, problems = read_certs(data, f"the file of key {fingerprint}")
        except _Unreadable as exc:
            unreadable.append(str(exc))
            continue
        except KeyUnreadable as exc:
            unreadable.append(f"key {fingerprint} does not parse: {exc}")
            continue
        unreadable.extend(problems)
        for cert in found.values():
            if cert.fingerprint.upper() in certs or len(certs) < MAX_KEYS:
                merge_into(certs, cert, unreadable)
    if len(listed) > MAX_KEYS:
        unreadable.append(f"the key index lists {len(listed)} keys; only the first {MAX_KEYS} are read")
    keys, unusable = publish(certs, unreadable)
    return Keyring(tuple(keys), tuple(unusable))


def _v3_index(root: str, timeout: float) -> list[str] | None:
    manifest = _manifest(root, join(root, V3_KEYS, "keys.manifest.json"), timeout, missing_ok=True)
    if manifest is None:
        return None
    return _fingerprints(_blob(root, manifest, KEY_INDEX_TYPE, timeout), "the key index")


def _v2_index(root: str, timeout: float) -> list[str] | None:
    location = join(root, V2_KEYS, "index.json")
    try:
        data = fetch(location, timeout=timeout, max_bytes=MAX_KEY_BYTES, within=root).data
    except FetchError as exc:
        if exc.missing:
            return None
        raise _Unreadable(f"the key index: {exc}") from None
    return _fingerprints(data, location)


def _v3_key(root: str, fingerprint: str, timeout: float) -> bytes:
    manifest = _manifest(root, join(root, V3_KEYS, f"{fingerprint}.key.manifest.json"), timeout)
    assert manifest is not None  # missing_ok is False
    return _blob(root, manifest, KEY_TYPE, timeout)


def _fingerprints(data: bytes, where: str) -> list[str]:
    try:
        index = json.loads(data)
    except (ValueError, RecursionError):
        raise _Unreadable(f"{where} is not valid JSON") from None
    keys = index.get("keys") if isinstance(index, dict) else None
    if not isinstance(keys, dict):
        raise _Unreadable(f"{where} has no 'keys' object")
    # Names go into locations: only fingerprints, never a path.
    return [name.upper() for name in keys if isinstance(name, str) and _FINGERPRINT.fullmatch(name)]


def _get(root: str, location: str, timeout: float) -> bytes:
    try:
        return fetch(location, timeout=timeout, max_bytes=MAX_KEY_BYTES, within=root).data
    except FetchError as exc:
        raise _Unreadable(str(exc)) from None


def _manifest(root: str, location: str, timeout: float, *, missing_ok: bool = False) -> dict[str, Any] | None:
    try:
        data = fetch(location, timeout=timeout, max_bytes=MAX_KEY_BYTES, within=root).data
    except FetchError as exc:
        if exc.missing and missing_ok:
            return None
        raise _Unreadable(str(exc)) from None
    try:
        manifest = json.loads(cleartext(data) if is_clearsigned(data) else data)
    except (ValueError, RecursionError):
        raise _Unreadable(f"{location}: not valid JSON") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("data"), list):
        raise _Unreadable(f"{location}: no 'data' list")
    return manifest


def _blob(root: str, manifest: dict[str, Any], media_type: str, timeout: float) -> bytes:
    """The blob of `media_type` a manifest names, checked against its checksum and length."""
    entry = next((e for e in manifest["data"] if isinstance(e, dict) and e.get("mediaType") == media_type), None)
    checksum = entry.get("checksum") if entry is not None else None
    if entry is None or entry.get("checksumAlgorithm") != "sha256" or not isinstance(checksum, str) \
            or not re.fullmatch(r"[0-9a-f]{64}", checksum):
        raise _Unreadable(f"a key manifest names no {media_type} blob with a sha256 checksum")
    location = join(root, "blobs", "sha256", checksum[:2], checksum)
    data = _get(root, location, timeout)
    if hashlib.sha256(data).hexdigest() != checksum:
        raise _Unreadable(f"{location}: checksum mismatch (the manifest published sha256 {checksum})")
    return data
