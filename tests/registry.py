"""A fake OCI registry on 127.0.0.1, speaking the distribution API as real ones do, for tests.

- `GET /v2/<name>/manifests/<tag>`, `/v2/<name>/blobs/<digest>`, `/v2/<name>/tags/list`;
- auth `none`, `bearer` (a 401 with `WWW-Authenticate: Bearer realm=…/token,service=…,scope=…`;
  the token endpoint hands out anonymous tokens for public repositories and user tokens for
  the right Basic credentials) or `basic` (a 401 with `Basic realm=…`);
- a private repository answers an anonymous token as a missing one does (401), as GHCR does;
- a repository in `denied` answers 403 DENIED to every request, however authorised;
- blobs can redirect (307) to a second server, the "storage", on another host name
  (`localhost` rather than `127.0.0.1`), which logs every request's headers.

Every request is logged with its headers, so tests can say what was sent where. Nothing
here reaches the internet.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import itertools
import json
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.loopback import serving

MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json"


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]


@dataclass
class FakeRegistry:
    url: str = ""  # http://127.0.0.1:PORT
    host: str = ""  # 127.0.0.1:PORT
    auth: str = "none"  # none, bearer, basic
    users: dict[str, str] = field(default_factory=dict)  # user name -> password
    private: set[str] = field(default_factory=set)  # repositories an anonymous token cannot read
    denied: set[str] = field(default_factory=set)  # repositories that refuse everyone (403)
    manifests: dict[str, dict[str, bytes]] = field(default_factory=dict)  # repository -> tag -> manifest
    blobs: dict[str, dict[str, bytes]] = field(default_factory=dict)  # repository -> digest -> bytes
    blob_redirect: str | None = None  # the storage's base URL, when blobs redirect there
    realm: str | None = None  # the token realm announced; default: this server's /token
    log: list[Request] = field(default_factory=list)
    _tokens: dict[str, str | None] = field(default_factory=dict)  # token -> user (None: anonymous)
    _counter: Any = field(default_factory=itertools.count)

    def push_index(self, repository: str, index: bytes, *, compress: bool = False, served: bytes | None = None) -> str:
        """The `index.spack` image as Spack pushes it; `served` replaces the layer's bytes (a tampered blob)."""
        layer = gzip.compress(index, mtime=0) if compress else index
        digest = "sha256:" + hashlib.sha256(layer).hexdigest()
        config = b"{}"
        config_digest = "sha256:" + hashlib.sha256(config).hexdigest()
        manifest = {
            "mediaType": MANIFEST_TYPE, "schemaVersion": 2,
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest, "size": 2},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": digest,
                        "size": len(layer)}],
        }
        self.manifests.setdefault(repository, {})["index.spack"] = json.dumps(manifest, separators=(",", ":")).encode()
        blobs = self.blobs.setdefault(repository, {})
        blobs[digest] = layer if served is None else served
        blobs[config_digest] = config
        return digest

    def push_tag(self, repository: str, tag: str) -> None:
        """Some other image (a spec's), so the repository exists without an index."""
        self.manifests.setdefault(repository, {})[tag] = json.dumps({"schemaVersion": 2, "layers": []}).encode()
        self.blobs.setdefault(repository, {})

    def requests_to(self, prefix: str) -> list[Request]:
        return [r for r in self.log if r.path.startswith(prefix)]

    def authorised(self, headers: dict[str, str], repository: str) -> bool:
        given = headers.get("Authorization", "")
        if self.auth == "none":
            return True
        if self.auth == "basic":
            return self._basic_user(given) is not None
        if not given.startswith("Bearer ") or given[7:] not in self._tokens:
            return False
        return repository not in self.private or self._tokens[given[7:]] is not None

    def _basic_user(self, given: str) -> str | None:
        if not given.startswith("Basic "):
            return None
        try:
            user, _, password = base64.b64decode(given[6:]).decode().partition(":")
        except ValueError:
            return None
        return user if self.users.get(user) == password and password else None

    def token(self, headers: dict[str, str]) -> str | None:
        """A token for these credentials (anonymous without any); None for wrong ones."""
        given = headers.get("Authorization")
        user = self._basic_user(given) if given else None
        if given and user is None:
            return None
        token = f"token-{next(self._counter)}"
        self._tokens[token] = user
        return token


@dataclass
class Storage:
    """Where blobs redirect to: another host name, which must never see the registry's Authorization."""

    url: str = ""
    blobs: dict[str, bytes] = field(default_factory=dict)
    log: list[Request] = field(default_factory=list)


def _registry_handler(registry: FakeRegistry) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet in tests
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            registry.log.append(Request("GET", self.path, dict(self.headers.items())))
            parts = urllib.parse.urlsplit(self.path)
            if parts.path == "/token":
                token = registry.token(dict(self.headers.items()))
                if token is None:
                    self._answer(401, {"errors": [{"code": "UNAUTHORIZED"}]})
                else:
                    self._answer(200, {"token": token, "expires_in": 300})
                return
            if not parts.path.startswith("/v2/"):
                self._answer(404, {})
                return
            repository, kind, ref = _route(parts.path[4:])
            if repository in registry.denied:
                self._answer(403, {"errors": [{"code": "DENIED"}]})
                return
            if not registry.authorised(dict(self.headers.items()), repository):
                self._challenge(repository)
                return
            if repository not in registry.manifests:
                self._answer(404, {"errors": [{"code": "NAME_UNKNOWN"}]})
                return
            if kind == "manifests":
                manifest = registry.manifests[repository].get(ref)
                if manifest is None:
                    self._answer(404, {"errors": [{"code": "MANIFEST_UNKNOWN"}]})
                else:
                    self._send(200, manifest, MANIFEST_TYPE)
            elif kind == "blobs":
                blob = registry.blobs[repository].get(ref)
                if blob is None:
                    self._answer(404, {"errors": [{"code": "BLOB_UNKNOWN"}]})
                elif registry.blob_redirect:
                    self.send_response(307)
                    self.send_header("Location", f"{registry.blob_redirect}/blob/{ref}?signature=xyz")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    self._send(200, blob, "application/octet-stream")
            elif kind == "tags" and ref.startswith("list"):
                self._answer(200, {"name": repository, "tags": sorted(registry.manifests[repository])})
            else:
                self._answer(404, {})

        def _challenge(self, repository: str) -> None:
            self.send_response(401)
            if registry.auth == "bearer":
                realm = registry.realm or f"{registry.url}/token"
                self.send_header("WWW-Authenticate", f'Bearer realm="{realm}",service="fake-registry",'
                                                     f'scope="repository:{repository}:pull"')
            else:
                self.send_header("WWW-Authenticate", 'Basic realm="fake registry"')
            body = json.dumps({"errors": [{"code": "UNAUTHORIZED"}]}).encode()
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _answer(self, status: int, body: dict[str, Any]) -> None:
            self._send(status, json.dumps(body).encode(), "application/json")

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def _route(path: str) -> tuple[str, str, str]:
    """`spack/cache/manifests/index.spack` -> ("spack/cache", "manifests", "index.spack")."""
    for kind in ("manifests", "blobs", "tags"):
        head, sep, tail = path.rpartition(f"/{kind}/")
        if sep:
            return head, kind, tail
    return path, "", ""


def _storage_handler(storage: Storage) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def do_GET(self) -> None:  # noqa: N802
            storage.log.append(Request("GET", self.path, dict(self.headers.items())))
            digest = urllib.parse.urlsplit(self.path).path.removeprefix("/blob/")
            blob = storage.blobs.get(digest)
            self.send_response(200 if blob is not None else 404)
            self.send_header("Content-Length", str(len(blob or b"")))
            self.end_headers()
            self.wfile.write(blob or b"")

    return Handler


@contextmanager
def _serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    with serving(handler) as httpd:
        yield httpd.server_address[1]


@contextmanager
def serve_registry(**options: Any) -> Iterator[FakeRegistry]:
    registry = FakeRegistry(**options)
    with _serving(_registry_handler(registry)) as port:
        registry.host = f"127.0.0.1:{port}"
        registry.url = f"http://{registry.host}"
        yield registry


@contextmanager
def serve_storage(registry: FakeRegistry) -> Iterator[Storage]:
    """Blobs of `registry` redirected to a second server, reached as `localhost` (another host name)."""
    storage = Storage()
    with _serving(_storage_handler(storage)) as port:
        storage.url = f"http://localhost:{port}"
        storage.blobs = {d: b for blobs in registry.blobs.values() for d, b in blobs.items()}
        registry.blob_redirect = storage.url
        yield storage
