"""Push dates of a mirror named by its `s3://` location: the `LastModified` of its records in the bucket's listing.

S3's ListObjectsV2 (`GET https://<bucket>.s3.amazonaws.com/?list-type=2&prefix=…`) answers up to
1,000 keys a page, each with its `LastModified`, and a `NextContinuationToken` while there are
more: a page per 1,000 records, never a request per binary. Layout v3's records are listed under
`<prefix>/v3/manifests/spec/`; v2's under `<prefix>/build_cache/` one level deep (`delimiter=/`),
leaving out the tarballs' directories.

The answer is the bucket's text, not ours: a page is read up to MAX_PAGE_BYTES, one that declares a
DTD or an entity is refused unread, and at most MAX_PAGES pages are read (the rest said to be
unknown). Many buckets refuse listing (403): that, or any failure, is one warning, and the mirror
loads as it would without dates.
"""

from __future__ import annotations

import datetime as dt
import re
import urllib.parse
import xml.etree.ElementTree as ET  # this module is imported only where a bucket is listed

from cachetui.core.load.sources.locator import store_root
from cachetui.core.load.sources.record_walk import V2_RECORDS, V3_RECORDS, dated, record_hash
from cachetui.core.load.sources.redact import redact
from cachetui.core.load.sources.transport import FetchError, fetch
from cachetui.core.model.problems import Problem, Severity
from cachetui.core.spack.words import counted

# Where a bucket's listing is asked for; `{bucket}` is the bucket's name. Tests point it at a loopback server.
S3_ENDPOINT = "https://{bucket}.s3.amazonaws.com/"
MAX_PAGE_BYTES = 4 << 20  # a page of 1,000 keys is about 300 KB
MAX_PAGES = 500  # 500,000 records: the largest public tag holds a few hundred thousand
_DECLARATION = re.compile(rb"<!\s*(?:DOCTYPE|ENTITY)", re.IGNORECASE)


class _Refused(Exception):
    """A page that is not a listing cachetui reads, in one line."""


class _Dates:
    """Per binary hash, the `LastModified` of its record (the one Spack reads first, where it has several)."""

    def __init__(self) -> None:
        self.dates: dict[str, int] = {}
        self._ranks: dict[str, int] = {}

    def add(self, key: str, layout: str, modified: str) -> None:
        found = record_hash(key.rpartition("/")[2], layout)
        when = _moment(modified)
        if found is None or when is None:
            return
        hash_, rank = found
        if hash_ not in self.dates or rank < self._ranks[hash_]:
            self.dates[hash_], self._ranks[hash_] = when, rank


def listed_dates(location: str, layout: str, timeout: float) -> tuple[dict[str, int], list[Problem], bool]:
    """The push dates of the records of the mirror at the s3:// `location`, from its bucket's listing, by binary
    hash; the warning that says why some or all are unknown; and whether that may pass (a listing that failed
    rather than one refused or unreadable: the next load tries again)."""
    found = _Dates()
    root = urllib.parse.urlsplit(store_root(location))
    bucket, prefix = root.netloc, root.path.strip("/")
    records = "/".join(filter(None, [prefix, V3_RECORDS if layout == "v3" else V2_RECORDS])) + "/"
    query = {"list-type": "2", "prefix": records} | ({"delimiter": "/"} if layout == "v2" else {})
    endpoint = S3_ENDPOINT.format(bucket=urllib.parse.quote(bucket, safe=""))
    shown = redact(location)
    token: str | None = None
    for page in range(MAX_PAGES):
        url = endpoint + "?" + urllib.parse.urlencode(query | ({"continuation-token": token} if token else {}))
        try:
            data = fetch(url, timeout=timeout, max_bytes=MAX_PAGE_BYTES).data
            token = _read_page(data, layout, found)
        except (FetchError, _Refused) as exc:
            passing = isinstance(exc, FetchError) and not (exc.refused or exc.missing)
            return found.dates, [Problem(shown, _failed(exc, page), Severity.WARNING)], passing
        if token is None:
            return found.dates, [], False
    return found.dates, [Problem(shown, f"push dates: the bucket's listing stopped after {counted(MAX_PAGES, 'page')} "
                                        f"({len(found.dates):,} records dated); the others are unknown",
                                 Severity.WARNING)], False


def _failed(exc: Exception, page: int) -> str:
    if isinstance(exc, FetchError):
        why = "the bucket refuses to list it" if exc.refused else "the bucket's listing failed"
        said = f"{why} ({exc.reason})"
    else:
        said = f"the bucket's listing is not one cachetui reads ({exc})"
    if page:
        return f"push dates: {said} after {counted(page, 'page')}; the other dates are unknown"
    return f"push dates unknown: {said}"


def _read_page(data: bytes, layout: str, found: _Dates) -> str | None:
    """The page's records into `found`; the token of the next page, None when this is the last."""
    try:  # S3 writes UTF-8: another encoding (UTF-16) would hide a declaration from the search below
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Refused("not UTF-8") from None
    if _DECLARATION.search(data):
        raise _Refused("it declares a DTD or an entity")
    try:
        result = ET.fromstring(data)
    except ET.ParseError as exc:
        raise _Refused(f"not XML: {exc}") from None
    if _local(result.tag) != "ListBucketResult":
        raise _Refused(f"a {_local(result.tag)[:40]!r} document, not a ListBucketResult")
    truncated, token = False, None
    for child in result:
        tag = _local(child.tag)
        if tag == "Contents":
            key, modified = _field(child, "Key"), _field(child, "LastModified")
            if key is not None and modified is not None:
                found.add(key, layout, modified)
        elif tag == "IsTruncated":
            truncated = (child.text or "").strip() == "true"
        elif tag == "NextContinuationToken":
            token = (child.text or "").strip() or None
    if truncated and token is None:
        raise _Refused("it says there is more, and gives no continuation token")
    return token if truncated else None


def _local(tag: str) -> str:
    """An element's name without its namespace (`{http://s3.amazonaws.com/doc/2006-03-01/}Key` -> Key)."""
    return tag.rpartition("}")[2]


def _field(element: ET.Element, name: str) -> str | None:
    return next((child.text for child in element if _local(child.tag) == name), None)


def _moment(text: str) -> int | None:
    """S3's `LastModified` (`2026-11-02T17:50:30.000Z`) as seconds since the epoch; None for anything else."""
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return dated(moment.timestamp()) if moment.tzinfo is not None else None
