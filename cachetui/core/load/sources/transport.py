"""Bytes from wherever a user points: a path, `file://`, `http(s)://`, or the public `s3://` bucket.

Network reads stream with a progress callback, connect and read timeouts, a stall check
(a server that trickles bytes is given up on too), and redirects: within http and https
only, never from https down to http, and never carrying an `Authorization` header to
another origin. Every failure is one `FetchError` of one line whose message names the URL
(its credentials redacted, see `redact.py`) and says what went wrong (404, refused, reset,
DNS, TLS, timeout, redirect loop, truncated, too large), never a traceback; a 401 or 403 says
"access refused", since the server answered (`FetchError.refused`). Nothing here writes anywhere.
"""

from __future__ import annotations

import io
import os
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import IO, TYPE_CHECKING, Any

from cachetui.core.load.options import DEFAULT_TIMEOUT_S
from cachetui.core.load.sources.redact import origin, redact, request_auth
from cachetui.core.load.sources.regular_file import NotRegular, open_regular
from cachetui.core.spack.tags import PUBLIC_MIRROR
from cachetui.core.spack.words import counted

if TYPE_CHECKING:
    import http.client
    import urllib.request

# http.client, ssl and urllib.request are imported only when something is fetched over the
# network: a warm start on local inputs never needs them, and they cost ~25 ms to import.

# The public build cache: `s3://spack-binaries/<path>` is served at `https://binaries.spack.io/<path>`.
PUBLIC_BUCKET = "spack-binaries"
CHUNK = 1 << 20
MIN_RATE = 1024  # bytes a second: slower than this for a whole timeout is a stalled download
MAX_DOWNLOAD_BYTES = 2 << 30  # one download; a whole-site index is 100-200 MB; refuse an endless stream
USER_AGENT = "cachetui (Spack build-cache browser)"

ByteProgress = Callable[[int, int | None], None]  # bytes so far, total when known


class FetchError(Exception):
    """One line: the URL and what went wrong. `missing` is True for a 404 or absent file."""

    def __init__(self, url: str, reason: str, *, missing: bool = False, status: int | None = None,
                 challenge: str | None = None, too_large: bool = False) -> None:
        url, reason = redact(url), redact(" ".join(reason.split()))  # one line, and no password in it
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason
        self.missing = missing
        self.status = status  # the HTTP status, when the server answered with an error
        self.challenge = challenge  # a 401's WWW-Authenticate header: what a registry client logs in with
        self.too_large = too_large  # refused for its size (max_bytes)

    @property
    def refused(self) -> bool:
        """The server answered and would not let this user read (401, 403): credentials, not reach."""
        return self.status in (401, 403)


@dataclass(frozen=True)
class Fetched:
    data: bytes
    url: str  # after redirects
    # When its storage says the content last changed, seconds since the epoch: a file's mtime, a server's
    # Last-Modified; None when it does not say (or says something that is not a date).
    modified: float | None = None


def is_url(text: str) -> bool:
    return urllib.parse.urlsplit(text).scheme in ("http", "https", "file", "s3")


def public_url(text: str) -> str:
    """`s3://spack-binaries/x` -> `https://binaries.spack.io/x`; other locations unchanged.

    Raises FetchError for another bucket: only the public one has an https front.
    """
    parts = urllib.parse.urlsplit(text)
    if parts.scheme != "s3":
        return text
    if parts.netloc != PUBLIC_BUCKET:
        raise FetchError(text, f"only s3://{PUBLIC_BUCKET} (served at {PUBLIC_MIRROR}) can be read without credentials")
    return f"{PUBLIC_MIRROR}/{parts.path.lstrip('/')}"


def join(base: str, *parts: str) -> str:
    """A location under `base`: a URL or a path, whichever `base` is."""
    if is_url(base):
        return base.rstrip("/") + "/" + "/".join(p.strip("/") for p in parts)
    return os.path.join(base, *parts)


def local_path(location: str) -> str | None:
    """The file-system path of a path or `file://` URL; None for a network URL."""
    parts = urllib.parse.urlsplit(location)
    if parts.scheme == "file":
        return urllib.parse.unquote(parts.path)
    return None if parts.scheme in ("http", "https", "s3") else location


def fetch(
    location: str,
    *,
    progress: ByteProgress | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
    headers: Mapping[str, str] | None = None,
    within: str | None = None,
) -> Fetched:
    """The whole content of `location`, or FetchError.

    `headers` (such as Authorization) go to `location` alone: a redirect never carries them on,
    so a registry's token never reaches the storage host its blobs redirect to. `within`: a local
    `location` must resolve (symlinks followed) to a file inside that directory, else it is refused
    unread; a mirror's files may be links, and one pointing out of it is not the mirror's to publish.
    """
    location = public_url(location)
    path = local_path(location)
    if path is not None:
        if within is not None:
            _inside(location, path, within)
        data, modified = _read_local(location, path, max_bytes)
        return Fetched(data, location, modified)
    return _read_http(location, progress, timeout, max_bytes, headers)


def exists(location: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> bool:
    """Whether `location` is there (a HEAD request for a URL); any failure other than 404 raises FetchError."""
    location = public_url(location)
    path = local_path(location)
    if path is not None:
        return os.path.isfile(path)
    try:
        _head(location, timeout)
    except FetchError as exc:
        if exc.missing:
            return False
        if exc.status in (405, 501):  # the server does not answer HEAD: assume it is there, the GET will tell
            return True
        raise
    return True


def content_length(location: str, *, timeout: float = DEFAULT_TIMEOUT_S, within: str | None = None) -> int | None:
    """How many bytes `location` holds, without reading them (a file's size; a HEAD request's Content-Length);
    None when a server does not say. FetchError (`missing` for a 404) when it cannot be told. `within`: as `fetch`."""
    location = public_url(location)
    path = local_path(location)
    if path is not None:
        if within is not None:
            _inside(location, path, within)
        try:
            info = os.stat(path)
        except FileNotFoundError:
            raise FetchError(location, "no such file", missing=True) from None
        except OSError as exc:
            raise FetchError(location, f"cannot read: {exc.strerror or exc}") from None
        if not os.path.isfile(path):
            raise FetchError(location, "not a regular file", missing=True)
        return info.st_size
    return _head(location, timeout)


def _head(location: str, timeout: float) -> int | None:
    """A HEAD request's Content-Length (None when not said); FetchError (`missing` for a 404 or 410) otherwise."""
    import http.client
    import urllib.error

    try:
        with _opener().open(_request(location, method="HEAD"), timeout=timeout) as response:
            return _content_length(response)
    except urllib.error.HTTPError as exc:
        raise FetchError(location, _http_reason(exc.code, exc.reason), missing=exc.code in (404, 410),
                         status=exc.code) from None
    except _RedirectLoop as exc:
        raise FetchError(location, str(exc)) from None
    except urllib.error.URLError as exc:
        raise FetchError(location, _reason(exc.reason, timeout)) from None
    except (http.client.HTTPException, OSError, ValueError) as exc:
        raise FetchError(location, _reason(exc, timeout)) from None


def _request(url: str, *, method: str = "GET", headers: dict[str, str] | None = None) -> urllib.request.Request:
    """A request for `url`: its user part (never a host name) taken out and sent as basic credentials."""
    import urllib.request

    bare, auth = request_auth(url)
    request = urllib.request.Request(bare, method=method, headers={"User-Agent": USER_AGENT, **(headers or {})})
    if auth is not None:
        request.add_header("Authorization", auth)
    return request


class _RedirectLoop(Exception):
    """Redirects that go round (or on and on): one line, with the number of hops."""


def _inside(location: str, path: str, within: str) -> None:
    top = local_path(within)
    if top is None:
        return  # a network source: what its server answers is what it publishes
    top = os.path.realpath(top)
    if os.path.commonpath([top, os.path.realpath(path)]) != top:
        raise FetchError(location, "a link out of the source; not read")


def _read_local(location: str, path: str, max_bytes: int) -> tuple[bytes, float]:
    """The file's bytes, and its modification time (from the descriptor read, never a second look)."""
    try:
        handle, info = open_regular(path)  # never a FIFO: opening one would wait for a writer for ever
        with handle:
            data = handle.read(max_bytes + 1)
    except NotRegular as exc:
        if exc.kind == "a directory":
            raise FetchError(location, "is a directory", missing=True) from None
        raise FetchError(location, f"not a regular file ({exc.kind}); not opened") from None
    except FileNotFoundError:
        raise FetchError(location, "no such file", missing=True) from None
    except PermissionError:
        raise FetchError(location, "permission denied") from None
    except OSError as exc:
        raise FetchError(location, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise FetchError(location, f"larger than {_size(max_bytes)}; not read", too_large=True)
    return data, info.st_mtime


@cache
def _opener() -> urllib.request.OpenerDirector:
    """An opener for http and https only (no file:, ftp: or data:), following safe redirects."""
    import urllib.error
    import urllib.request

    class SafeRedirects(urllib.request.HTTPRedirectHandler):
        max_redirections = 10

        def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                             headers: http.client.HTTPMessage, newurl: str) -> urllib.request.Request | None:
            old, new = urllib.parse.urlsplit(req.full_url).scheme, urllib.parse.urlsplit(newurl).scheme
            if new not in ("http", "https") or (old == "https" and new == "http"):
                raise urllib.error.HTTPError(newurl, code, f"refused redirect from {old} to {new}", headers, fp)
            newurl, _ = request_auth(newurl)  # credentials a server puts in a Location are never used
            redirected = super().redirect_request(req, fp, code, msg, headers, newurl)
            if redirected is not None and origin(newurl) != origin(req.full_url):
                # urllib copies every header to the next request, wherever it goes: a password or
                # token given for one host must not reach another.
                for name in ("Authorization", "Proxy-authorization", "Cookie"):
                    redirected.remove_header(name)
            return redirected

        def http_error_302(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                           headers: http.client.HTTPMessage) -> Any:  # Any: what urllib's opener returns
            try:
                return super().http_error_302(req, fp, code, msg, headers)
            except urllib.error.HTTPError as exc:
                if not str(exc.msg).startswith(self.inf_msg):
                    raise
                hops = sum(getattr(req, "redirect_dict", {}).values()) + 1
                raise _RedirectLoop(f"redirect loop after {counted(hops, 'hop')}") from None

        http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.HTTPHandler(), urllib.request.HTTPSHandler(), SafeRedirects(),
                    urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    return opener


def _read_http(url: str, progress: ByteProgress | None, timeout: float, max_bytes: int,
               headers: Mapping[str, str] | None = None) -> Fetched:
    import http.client
    import socket
    import urllib.error
    import urllib.request

    request = _request(url, headers={"Accept-Encoding": "identity"})
    for name, value in (headers or {}).items():
        request.add_unredirected_header(name, value)  # urllib copies only the redirectable ones on a redirect
    try:
        with _opener().open(request, timeout=timeout) as response:
            total = _content_length(response)
            if total is not None and total > max_bytes:
                raise FetchError(url, f"is {_size(total)}, over the {_size(max_bytes)} limit", too_large=True)
            data = _stream(url, response, total, progress, max_bytes, timeout)
            return Fetched(data, response.geturl(), http_date(response.headers.get("Last-Modified")))
    except FetchError:
        raise
    except urllib.error.HTTPError as exc:
        challenge = exc.headers.get("WWW-Authenticate") if exc.code == 401 and exc.headers else None
        raise FetchError(url, _http_reason(exc.code, exc.reason), missing=exc.code in (404, 410), status=exc.code,
                         challenge=challenge) from None
    except _RedirectLoop as exc:
        raise FetchError(url, str(exc)) from None
    except urllib.error.URLError as exc:
        raise FetchError(url, _reason(exc.reason, timeout)) from None
    except (TimeoutError, socket.timeout):
        raise FetchError(url, f"timed out after {timeout:g} s") from None
    except http.client.IncompleteRead as exc:
        raise FetchError(url, f"truncated: the connection closed after {counted(len(exc.partial), 'byte')}") from None
    except (http.client.HTTPException, OSError, ValueError) as exc:
        raise FetchError(url, _reason(exc, timeout)) from None


def http_date(value: str | None) -> float | None:
    """An HTTP date header (`Last-Modified`) as seconds since the epoch; None when absent or not a date with a zone.

    A server's header is its text, not ours: anything `parsedate_to_datetime` refuses, or a date without a zone
    (which it returns naive, and which would otherwise be read as this machine's local time), is unknown."""
    from email.utils import parsedate_to_datetime

    if not value:
        return None
    try:
        moment = parsedate_to_datetime(value)
        return None if moment.tzinfo is None else moment.timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _content_length(response: http.client.HTTPResponse) -> int | None:
    value = response.headers.get("Content-Length")
    return int(value) if value and value.isdigit() else None


def _stream(url: str, response: http.client.HTTPResponse, total: int | None, progress: ByteProgress | None,
            max_bytes: int, timeout: float) -> bytes:
    """The body, in chunks; a server that sends under MIN_RATE bytes a second for `timeout` seconds is stalled."""
    # BytesIO hands its buffer over in getvalue() without a copy: the body is held once, not twice.
    buffer = io.BytesIO()
    size = 0
    window_start, window_bytes = time.monotonic(), 0
    while chunk := response.read1(CHUNK):
        size += len(chunk)
        if size > max_bytes:
            raise FetchError(url, f"more than {_size(max_bytes)}; stopped", too_large=True)
        buffer.write(chunk)
        window_bytes += len(chunk)
        if time.monotonic() - window_start >= timeout:
            if window_bytes < MIN_RATE * timeout:
                raise FetchError(url, f"stalled: {counted(window_bytes, 'byte')} in the last {timeout:g} s")
            window_start, window_bytes = time.monotonic(), 0
        if progress is not None:
            progress(size, total)
    if total is not None and size != total:
        raise FetchError(url, f"truncated: got {size} of {total} bytes")
    return buffer.getvalue()


def _http_reason(code: int, reason: object) -> str:
    """An HTTP error in words; a refusal says it is one, so it is never read as a mirror out of reach."""
    said = f"HTTP {code} {reason}"
    if code == 401:
        return f"{said}: access refused (credentials wrong or missing)"
    return f"{said}: access refused" if code == 403 else said


def _size(n: int) -> str:
    return counted(n, "byte") if n < 2**20 else f"{n / 2**20:.0f} MB"


def _reason(error: object, timeout: float) -> str:
    """What a person needs to know, in words: DNS, refused, TLS or timeout."""
    import socket
    import ssl

    if isinstance(error, (TimeoutError, socket.timeout)):
        return f"timed out after {timeout:g} s"
    if isinstance(error, socket.gaierror):
        return "cannot resolve the host name (DNS)"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"TLS certificate not trusted: {getattr(error, 'verify_message', None) or error}"
    if isinstance(error, ssl.SSLError):
        return f"TLS error: {getattr(error, 'reason', None) or error}"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
