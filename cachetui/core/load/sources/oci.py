"""Build caches in OCI registries (Spack >= 0.21): `oci://HOST/NAME` (HTTPS) and `oci+http://HOST/NAME`.

The index is the image tagged `index.spack`; its one layer is the database JSON (labelled
tar+gzip, written plain; gzip is accepted too), checked against the layer's sha256 digest.
References are read as Spack reads them (`spack/oci/image.py`): Docker's grammar, a first
component without a dot, a colon or `localhost` is a Docker Hub user, and names are
lowercased.

The distribution API is spoken as registries expect (`spack/oci/opener.py`): a 401 carries a
`WWW-Authenticate` challenge; `Bearer realm=…,service=…,scope=…` is answered by a token from
the realm (anonymously, or with the configured user name and password), `Basic` by sending
them directly; the header is then kept for the registry's host and sent to nothing else. A
blob that redirects to a storage host gets no Authorization there (the transport never
carries these headers across a redirect). Credentials and tokens never appear in a message.

Everything goes through `transport.fetch`, so size caps, stall timeouts, the redirect policy
and one-line errors are the same as for any mirror; errors here name the repository.
"""

from __future__ import annotations

import base64
import json
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field

from cachetui.core.load.sources.indexes import IndexGroup, Member
from cachetui.core.load.sources.locator import OCI_PREFIXES
from cachetui.core.load.sources.mirror import MAX_INDEX_BYTES, IndexRef, MirrorError, Net, OfflineCopy
from cachetui.core.load.sources.transport import FetchError, fetch
from cachetui.core.model.records import MirrorOrigin

INDEX_TAG = "index.spack"
MANIFEST_TYPES = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json"
LAYER_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip"
_LISTS = ("application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json")
MAX_MANIFEST_BYTES = 4 << 20  # a manifest of one layer is well under a kilobyte
MAX_TOKEN_BYTES = 1 << 20
CLIENT_ID = "cachetui"

# Docker's reference grammar, as Spack writes it (uppercase accepted, then the name lowercased).
_COMPONENT = r"[a-zA-Z0-9]+(?:(?:[._]|__|[-]+)[a-zA-Z0-9]+)*"
_DOMAIN_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_NAME = rf"{_COMPONENT}(?:/{_COMPONENT})*"
_REFERENCE = re.compile(rf"(?:(?P<domain>{_DOMAIN})/)?(?P<name>{_NAME})(?::[\w][\w.-]{{0,127}})?"
                        r"(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?")
_DIGEST = re.compile(r"sha256:(?P<hex>[0-9a-f]{64})")
_TOKEN_TEXT = re.compile(r"[\x21-\x7e]{1,16384}")  # goes into a header: no space, CR or LF
_HTTP_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


@dataclass(frozen=True)
class Repository:
    """One repository of one registry: where its manifests and blobs are."""

    scheme: str  # https, or http for oci+http
    domain: str  # host[:port]
    name: str  # lowercased path

    @property
    def url(self) -> str:
        """As Spack's configuration writes it."""
        return f"{'oci' if self.scheme == 'https' else 'oci+http'}://{self.domain}/{self.name}"

    @property
    def api(self) -> str:
        return f"{self.scheme}://{self.domain}/v2/{self.name}"

    def manifest_url(self, tag: str) -> str:
        return f"{self.api}/manifests/{tag}"

    def blob_url(self, digest: str) -> str:
        return f"{self.api}/blobs/{digest}"


def parse_reference(url: str) -> Repository:
    """`oci://ghcr.io/Owner/Name` -> https, ghcr.io, owner/name. Raises ValueError for what is not a reference.

    A tag or digest in the URL is ignored: the index is always the `index.spack` tag.
    """
    prefix = next((p for p in OCI_PREFIXES if url.startswith(p)), None)
    if prefix is None:
        raise ValueError("not an oci:// or oci+http:// URL")
    reference = url[len(prefix):]
    if reference.endswith("/") and "/" in reference.rstrip("/"):  # `HOST/NAME/` is HOST/NAME; `HOST/` is nothing
        reference = reference.rstrip("/")
    match = _REFERENCE.fullmatch(reference)
    if match is None:
        # The URL is not repeated: a mistyped `user:password@host` must not end up on the screen.
        raise ValueError(f"not an image reference: expected {prefix}HOST/NAME, as Spack reads them")
    domain, name = match.group("domain"), match.group("name")
    if not domain:
        domain, name = "index.docker.io", f"library/{name}"
    elif "." not in domain and ":" not in domain and domain != "localhost" and domain == domain.lower():
        domain, name = "index.docker.io", f"{domain}/{name}"  # `user/image` is Docker Hub, as Docker reads it
    return Repository(OCI_PREFIXES[prefix], domain, name.lower())


@dataclass(frozen=True)
class Credentials:
    """A user name and password (or token) for a registry. Never shown: not in repr, not in any message."""

    username: str
    password: str = field(repr=False)

    def basic(self) -> str:
        return "Basic " + base64.b64encode(f"{self.username}:{self.password}".encode()).decode("ascii")


def parse_challenges(header: str) -> dict[str, dict[str, str]]:
    """`Bearer realm="…",service="…"` -> {"bearer": {"realm": …, "service": …}} (RFC 7235; no token68)."""
    challenges: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    position, end = 0, len(header)
    while position < end:
        while position < end and header[position] in " \t,":
            position += 1
        token = _HTTP_TOKEN.match(header, position)
        if token is None:
            break
        position = token.end()
        after = position
        while after < end and header[after] in " \t":
            after += 1
        if after < end and header[after] == "=" and current is not None:
            value, position = _param_value(header, after + 1)
            current[token.group().lower()] = value
        else:
            current = challenges.setdefault(token.group().lower(), {})
    return challenges


def _param_value(header: str, position: int) -> tuple[str, int]:
    while position < len(header) and header[position] in " \t":
        position += 1
    if position < len(header) and header[position] == '"':
        value, position = [], position + 1
        while position < len(header) and header[position] != '"':
            if header[position] == "\\" and position + 1 < len(header):
                position += 1
            value.append(header[position])
            position += 1
        return "".join(value), position + 1
    token = _HTTP_TOKEN.match(header, position)
    return (token.group(), token.end()) if token else ("", position)


class Registry:
    """A client for one repository: logs in when the registry asks, and keeps the header for its host."""

    def __init__(self, repository: Repository, credentials: Credentials | None = None) -> None:
        self.repository = repository
        self.credentials = credentials
        self._authorization: str | None = None  # for the registry's own host, and nothing else

    def __repr__(self) -> str:
        return f"<Registry {self.repository.url}>"

    # -- the index -------------------------------------------------------------------------------------

    def locate(self, net: Net) -> IndexRef:
        """The `index.spack` manifest's one layer: where it is and its digest (one small request)."""
        repo = self.repository
        try:
            data = self.get(repo.manifest_url(INDEX_TAG), net, accept=MANIFEST_TYPES, max_bytes=MAX_MANIFEST_BYTES)
        except FetchError as exc:
            if exc.missing:
                raise self._missing_index(net) from None
            raise self._named(exc) from None
        digest, size = self._layer(data)
        limit = size if size is not None else MAX_INDEX_BYTES
        return IndexRef(f"{repo.url}@sha256:{digest}", digest, "detect", "oci", size,
                        reader=lambda net, what: self._blob(f"sha256:{digest}", net, what, limit))

    def _layer(self, data: bytes) -> tuple[str, int | None]:
        where = f"{INDEX_TAG} manifest"
        try:
            manifest = json.loads(data)
        except (ValueError, RecursionError):
            raise self._error(f"the {where} is not valid JSON") from None
        if not isinstance(manifest, dict):
            raise self._error(f"the {where} is not a JSON object")
        if manifest.get("mediaType") in _LISTS or "manifests" in manifest:
            raise self._error(f"{INDEX_TAG} is an image index, not a manifest: Spack pushes a plain manifest")
        layers = manifest.get("layers")
        if not isinstance(layers, list) or not layers or not isinstance(layers[0], dict):
            raise self._error(f"the {where} has no layers: not a Spack build-cache index")
        digest = _DIGEST.fullmatch(str(layers[0].get("digest", "")))
        if digest is None:
            raise self._error(f"the {where}'s layer has no sha256 digest")
        size = layers[0].get("size")
        size = size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None
        if size is not None and size > MAX_INDEX_BYTES:
            raise self._error(f"the index layer is {size / 2**20:.0f} MB, over the "
                              f"{MAX_INDEX_BYTES / 2**20:.0f} MB limit; not read")
        return digest.group("hex"), size

    def _blob(self, digest: str, net: Net, what: str, limit: int) -> bytes:
        try:
            return self.get(self.repository.blob_url(digest), net, accept=LAYER_TYPE, max_bytes=limit, what=what)
        except FetchError as exc:
            raise self._named(exc, "the index layer") from None

    def _missing_index(self, net: Net) -> MirrorError:
        """A 404 for the manifest: no such repository, or no `index.spack` in it (its tag list tells)."""
        try:
            self.get(f"{self.repository.api}/tags/list?n=1", net, accept="application/json",
                     max_bytes=MAX_MANIFEST_BYTES)
        except FetchError as exc:
            if exc.missing:
                return self._no_repository()
            raise self._named(exc) from None
        return self._error(f"no {INDEX_TAG} tag: the repository has no build-cache index "
                           "(Spack writes one with `spack buildcache update-index`)")

    # -- requests, and logging in ----------------------------------------------------------------------

    def get(self, url: str, net: Net, *, accept: str, max_bytes: int, what: str = "") -> bytes:
        """GET `url`, logging in once if the registry answers 401; MirrorError when it still refuses."""
        try:
            return self._get(url, net, accept, max_bytes, what)
        except FetchError as exc:
            if exc.status != 401:
                raise
            self._login(exc.challenge or "", net)
        try:
            return self._get(url, net, accept, max_bytes, what)
        except FetchError as exc:
            if exc.status != 401:
                raise
            raise self._denied() from None

    def _get(self, url: str, net: Net, accept: str, max_bytes: int, what: str) -> bytes:
        headers = {"Accept": accept}
        if self._authorization and urllib.parse.urlsplit(url).netloc == self.repository.domain:
            headers["Authorization"] = self._authorization
        progress = net.progress
        report = (lambda done, total: progress(done, total, what)) if progress and what else None
        return fetch(url, timeout=net.timeout, progress=report, max_bytes=max_bytes, headers=headers).data

    def _login(self, challenge: str, net: Net) -> None:
        challenges = parse_challenges(challenge)
        bearer, basic = challenges.get("bearer"), challenges.get("basic")
        if bearer is not None and bearer.get("realm"):
            self._authorization = "Bearer " + self._token(bearer, net)
        elif basic is not None:
            if self.credentials is None:
                raise self._error("denied: the registry asks for a user name and password, "
                                  "and the configuration has none for it")
            self._authorization = self.credentials.basic()
        else:
            schemes = ", ".join(sorted(challenges)) or "none"
            raise self._error(f"denied: the registry asks for a login cachetui does not speak ({schemes[:40]})")

    def _token(self, challenge: dict[str, str], net: Net) -> str:
        """A token from the challenge's realm: anonymous, or for the configured credentials."""
        realm = challenge["realm"]
        parts = urllib.parse.urlsplit(realm)
        allowed = ("https", "http") if self.repository.scheme == "http" else ("https",)
        if parts.scheme not in allowed or not parts.netloc:
            raise self._error(f"denied: the registry's login realm is not an https URL ({realm[:80]}); "
                              "nothing is sent there")
        query = [(key, challenge[key]) for key in ("service",) if challenge.get(key)]
        query.append(("scope", challenge.get("scope") or f"repository:{self.repository.name}:pull"))
        query.append(("client_id", CLIENT_ID))
        url = urllib.parse.urlunsplit(parts._replace(
            query="&".join(filter(None, [parts.query, urllib.parse.urlencode(query)])), fragment=""))
        headers = {"Authorization": self.credentials.basic()} if self.credentials else {}
        try:
            data = fetch(url, timeout=net.timeout, max_bytes=MAX_TOKEN_BYTES, headers=headers).data
        except FetchError as exc:
            if exc.status in (401, 403):
                raise self._denied() from None
            raise self._named(exc, "the login") from None
        try:
            answer = json.loads(data)
        except (ValueError, RecursionError):
            raise self._error("the login realm did not answer with JSON") from None
        token = answer.get("token") or answer.get("access_token") if isinstance(answer, dict) else None
        if not isinstance(token, str) or not _TOKEN_TEXT.fullmatch(token):
            raise self._error("the login realm's answer has no usable token")
        return token

    # -- one line each, naming the repository --------------------------------------------------------------

    def _error(self, reason: str) -> MirrorError:
        return MirrorError(self.repository.url, reason)

    def _no_repository(self) -> MirrorError:
        return self._error("no such repository, or it is not public (registries answer both alike)")

    def _denied(self) -> MirrorError:
        if self.credentials is None:
            return self._no_repository()
        return self._error("denied: the registry refused the credentials configured for it")

    def _named(self, exc: FetchError, what: str = "") -> FetchError:
        """A network failure, said of the repository (the URL stays, for whoever needs to look)."""
        reason = f"{what + ': ' if what else ''}{exc.reason} ({exc.url})"
        return FetchError(self.repository.url, reason, missing=exc.missing, status=exc.status)


# Each repository's client, by its URL: a binary's image is later read with the credentials (and the token)
# its index was read with. Only this process holds them: never pickled, never shown.
_CLIENTS: dict[str, Registry] = {}


def registry_for(url: str) -> Registry:
    """The client that read the repository at `url` (`oci://HOST/NAME`), else an anonymous one."""
    return _CLIENTS.get(url) or Registry(parse_reference(url))


def oci_group(location: str, tag: str | None = None, credentials: Credentials | None = None, *,
              configured: bool = False, copies: Callable[[], list[OfflineCopy]] | None = None) -> IndexGroup:
    """An OCI build cache as an index group of one: tagged by its name's last part unless named."""
    registry = Registry(parse_reference(location), credentials)
    repo = registry.repository
    _CLIENTS[repo.url] = registry
    tag = tag or repo.name.rsplit("/", 1)[-1]
    member = Member(None, repo.url, registry.locate, copies)
    return IndexGroup(repo.url, tag, [member], MirrorOrigin(tag, repo.url, configured))
