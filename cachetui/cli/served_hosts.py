"""Which requests `cachetui serve` answers: the hosts it serves, and the pages whose websockets it accepts.

A page on any site can send requests to any address, and a name its author controls can be made
to resolve to this server (DNS rebinding). Only the `Host` header says which name the browser
asked for, and only `Origin` which page opened a websocket. So the server answers a fixed set of
hosts, and starts a session only for a page of its own:
- with `--public-url`, that URL's host and port only (a reverse proxy must pass the browser's `Host`);
- else the address a request arrived at, on the port it arrived at, `localhost` too when that
  address is a loopback one, and the `--host` given when it is a name. Bound to 0.0.0.0 or ::, that
  is each address of this machine as typed (`http://192.0.2.7:8000`); a name needs `--public-url`.

Standard library only: `cachetui serve --help` reads `SERVED_HOSTS` without loading the web server.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from dataclasses import dataclass

SERVED_HOSTS = ("answers only requests for the host and port of --public-url when given, else for the address "
                "and port it listens on (and localhost, for a loopback address; with 0.0.0.0 or ::, each address "
                "of this machine, not its names)")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Origin:
    """A scheme, a host (lower case, an address in one spelling) and a port, as browsers compare them."""

    scheme: str
    host: str
    port: int


def public_origin(url: str) -> Origin:
    """The origin of `--public-url`; ValueError when it is not an http(s) URL with a host."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.username is not None:
        raise ValueError(url)
    return Origin(parts.scheme, _one_spelling(parts.hostname), parts.port or _DEFAULT_PORTS[parts.scheme])


class ServedHosts:
    """The hosts and origins one server answers, given where a request arrived (its local address and port)."""

    def __init__(self, listen_host: str, public_url: str | None) -> None:
        self.public = None if public_url is None else public_origin(public_url)
        listen = _one_spelling(listen_host.strip("[]"))
        self._listen_name = None if _address(listen) is not None else listen

    def origins(self, local_address: str, local_port: int) -> set[Origin]:
        if self.public is not None:
            return {self.public}
        address = _address(local_address)
        names = {_one_spelling(local_address)}
        if address is not None and address.is_loopback:
            names.add("localhost")
        if self._listen_name is not None:
            names.add(self._listen_name)
        return {Origin("http", name, local_port) for name in names}

    def serves_host(self, host: str | None, local_address: str, local_port: int) -> bool:
        """Whether a request with this `Host` header (None: absent) is for this server."""
        scheme = "http" if self.public is None else self.public.scheme  # the scheme a Host header leaves out
        asked = _authority(scheme, host or "")
        return asked is not None and asked in self.origins(local_address, local_port)

    def serves_origin(self, origin: str | None, local_address: str, local_port: int) -> bool:
        """Whether a websocket opened by a page of this `Origin` (None: absent) is one of this server's pages."""
        scheme, sep, authority = (origin or "").partition("://")
        asked = _authority(scheme, authority) if sep else None
        return asked is not None and asked in self.origins(local_address, local_port)


def _authority(scheme: str, authority: str) -> Origin | None:
    """`host[:port]` read as a browser writes it in `Host` and `Origin`; None when it is anything else."""
    if scheme not in _DEFAULT_PORTS or not authority or any(c in authority for c in "/?#@\\ \t"):
        return None
    parts = urllib.parse.urlsplit("//" + authority)
    try:
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return Origin(scheme, _one_spelling(parts.hostname), port if port is not None else _DEFAULT_PORTS[scheme])


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(host.partition("%")[0])  # a link-local address may carry `%zone`
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped  # a dual-stack socket sees an IPv4 visitor as ::ffff:a.b.c.d
    return address


def _one_spelling(host: str) -> str:
    """`::FFFF:127.0.0.1`, `127.0.0.1` -> `127.0.0.1`; `[::1]` -> `::1`; a name in lower case."""
    host = host.strip("[]").lower()
    address = _address(host)
    return host if address is None else str(address)
