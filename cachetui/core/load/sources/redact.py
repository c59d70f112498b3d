"""Credentials in URLs: used for the host they were given for, never shown.

A URL with credentials (`https://user:secret@host/path`, typed on the command line or found in
an index of indexes) is split once, where it enters (`remember`): from then on cachetui knows
it as `https://user:***@host/path`, in errors, `check --json`, the status line, the problems
screen and the warm-start cache alike. The transport, asked for such a URL, finds the
credentials again by (scheme, host, port, user) and sends them as HTTP basic credentials to
that origin only (`request_auth`). A bare user part (`https://TOKEN@host/`) is as secret as a
password and is shown as `***@host`.

`redact` is the safety net for any text that may quote a URL (an exception's message).
"""

from __future__ import annotations

import base64
import re
import threading
import urllib.parse

REDACTED = "***"

# (scheme, host:port, the user part as shown) -> (user, password), unquoted
_known: dict[tuple[str, str, str], tuple[str, str]] = {}
_lock = threading.Lock()

# scheme://userinfo@ : the user part runs to the last `@` before the path (a password may hold an `@`)
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^\s/?#]*)@")


def _shown_userinfo(userinfo: str) -> str:
    user, colon, _ = userinfo.partition(":")
    return f"{user}:{REDACTED}" if colon else REDACTED


def redact(text: str) -> str:
    """`text` with the credentials of every URL in it replaced by `***` (a user name kept beside a password)."""
    if "@" not in text or "://" not in text:
        return text
    return _USERINFO.sub(lambda m: f"{m['scheme']}{_shown_userinfo(m['userinfo'])}@", text)


def _split_netloc(netloc: str) -> tuple[str | None, str]:
    userinfo, at, hostport = netloc.rpartition("@")
    return (userinfo, hostport) if at else (None, netloc)


def remember(url: str) -> str:
    """`url` as cachetui shows and keys it: credentials replaced by `***`, and kept for the transport."""
    parts = urllib.parse.urlsplit(url)
    userinfo, hostport = _split_netloc(parts.netloc)
    if userinfo is None:
        return url
    shown = _shown_userinfo(userinfo)
    if userinfo != shown:  # not already the redacted form: these are the credentials
        user, _, password = userinfo.partition(":")
        key = (parts.scheme.lower(), hostport.lower(), shown)
        with _lock:
            _known[key] = (urllib.parse.unquote(user), urllib.parse.unquote(password))
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{shown}@{hostport}"))


def request_auth(url: str) -> tuple[str, str | None]:
    """The URL to request (no user part: it is not a host name) and the `Authorization` value for it, if any.

    A redacted user part is looked up among the credentials remembered; literal credentials
    in a URL that was never remembered are used as they are.
    """
    parts = urllib.parse.urlsplit(url)
    userinfo, hostport = _split_netloc(parts.netloc)
    if userinfo is None:
        return url, None
    bare = urllib.parse.urlunsplit(parts._replace(netloc=hostport))
    with _lock:
        found = _known.get((parts.scheme.lower(), hostport.lower(), userinfo))
    if found is None:
        user, _, password = userinfo.partition(":")
        found = (urllib.parse.unquote(user), urllib.parse.unquote(password))
    return bare, basic_auth(*found)


def basic_auth(user: str, password: str) -> str:
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return f"Basic {token}"


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the default port filled in: credentials are sent to one origin only."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)
