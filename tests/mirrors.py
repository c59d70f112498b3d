"""Spack mirrors for tests: built around the real index fixtures, served from a loopback HTTP server.

Nothing here reaches the internet: the server listens on 127.0.0.1, port 0. Besides plain
files it has a few misbehaving routes: `/stall/...` never answers (until the test ends),
`/redirect/...` answers 302 to the path without the prefix, `/truncate/...` promises the
whole file and sends half of it, `/trickle/...` sends a byte at a time, `/forbidden/...` answers
403 for what is missing (as S3 does), `/nohead/...` answers 405 to HEAD, and `/redirect-ftp/...`
redirects to an ftp:// URL.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.loopback import serving

FIXTURES = Path(__file__).parent / "fixtures" / "mirrors"
DB6 = FIXTURES / "db-v6" / "legacy_yaml"
DB7 = FIXTURES / "db-v7" / "v2_layout" / "unsigned"
DB8 = FIXTURES / "db-v8" / "v2_layout" / "unsigned"
DB8_SIGNED = FIXTURES / "db-v8-eaf9828b" / "v2_layout" / "signed"
DB_MEDIA_TYPE = "application/vnd.spack.db.v8+json"


def index_bytes(fixture: Path) -> bytes:
    return (fixture / "build_cache" / "index.json").read_bytes()


def v2_mirror(root: Path, fixture: Path) -> Path:
    """A layout-v2 mirror: the fixture's `build_cache/index.json` and `index.json.hash`."""
    (root / "build_cache").mkdir(parents=True, exist_ok=True)
    for name in ("index.json", "index.json.hash"):
        shutil.copy(fixture / "build_cache" / name, root / "build_cache" / name)
    return root


def v3_mirror(root: Path, index: bytes, *, compression: str = "none", stored: bytes | None = None) -> str:
    """A layout-v3 mirror as Spack >= 1.0 writes it, around `index`; returns the blob's checksum.

    `stored` replaces the blob's bytes after the manifest was written (a corrupt or truncated blob).
    """
    data = gzip.compress(index, mtime=0) if compression == "gzip" else index
    checksum = hashlib.sha256(data).hexdigest()
    blob = root / "blobs" / "sha256" / checksum[:2] / checksum
    blob.parent.mkdir(parents=True, exist_ok=True)
    blob.write_bytes(data if stored is None else stored)
    (root / "v3").mkdir(parents=True, exist_ok=True)
    (root / "v3" / "layout.json").write_text(json.dumps({"signing": "gpg"}))
    manifest = {"version": 3, "data": [{"contentLength": len(data), "mediaType": DB_MEDIA_TYPE,
                                        "compression": compression, "checksumAlgorithm": "sha256",
                                        "checksum": checksum}]}
    path = root / "v3" / "manifests" / "index" / "index.manifest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=0, separators=(",", ":")))
    return checksum


def blob_path(root: Path, checksum: str) -> str:
    return f"blobs/sha256/{checksum[:2]}/{checksum}"


# -- an independent reading of an index, straight from the rules in the issue (not the project's code) ---

FLAGS = {"cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs"}


def expected_records(index: bytes) -> dict[str, dict[str, Any]]:
    """hash -> the fields the site renders, for every record in the build cache."""
    installs = json.loads(index)["database"]["installs"]
    records = {}
    for hash_, record in installs.items():
        if not record.get("in_buildcache"):
            continue
        node = record["spec"]
        target = node["arch"]["target"]
        records[hash_] = {
            "package": node["name"],
            "version": node["version"],
            "platform": node["arch"]["platform"],
            "os": node["arch"]["platform_os"],
            "target": target if isinstance(target, str) else target["name"],
            "compiler": _expected_compiler(node, installs),
            "variants": _expected_variants(node.get("parameters", {})),
            "dependencies": [
                {"name": e["name"], "hash": e["hash"],
                 "deptypes": e.get("parameters", {}).get("deptypes", e.get("type", [])),
                 "virtuals": e.get("parameters", {}).get("virtuals", [])}
                for e in node.get("dependencies") or []
            ],
        }
    return records


def _expected_compiler(node: dict[str, Any], installs: dict[str, Any]) -> str:
    if "compiler" in node:
        return f"{node['compiler']['name']}@{node['compiler']['version']}"
    for language in ("c", "cxx", "fortran"):
        for edge in node.get("dependencies") or []:
            parameters = edge["parameters"]
            if "build" in parameters["deptypes"] and language in parameters["virtuals"]:
                return f"{edge['name']}@{installs[edge['hash']]['spec']['version']}"
    annotated = node.get("annotations", {}).get("compiler")
    return annotated.replace("@=", "@") if annotated else "none"


def _expected_variants(parameters: dict[str, Any]) -> list[str]:
    out = []
    for key in sorted(parameters):
        value = parameters[key]
        if key in FLAGS:
            continue
        if value is True or value is False:
            out.append(("+" if value else "~") + key)
        elif isinstance(value, str):
            out.append(f"{key}={value}")
        elif value:
            values = [v[:7] for v in value] if key == "patches" else value
            out.append(f"{key}={','.join(sorted(values))}")
    return out


# -- the loopback server ---------------------------------------------------------------------------------


@dataclass
class MirrorServer:
    root: Path
    url: str
    requests: list[str] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    held: str = ""  # a GET whose path holds this waits for `release` before its answer
    held_asked: threading.Event = field(default_factory=threading.Event)  # that GET has arrived

    def at(self, path: str) -> str:
        return f"{self.url}/{path.lstrip('/')}"


def _handler(server_state: MirrorServer) -> type[SimpleHTTPRequestHandler]:
    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(server_state.root), **kwargs)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet in tests
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            server_state.requests.append(self.path)
            if server_state.held and server_state.held in self.path:
                server_state.held_asked.set()
                server_state.release.wait(timeout=30)  # then answered as any other
            if self.path.startswith("/stall/"):
                server_state.release.wait(timeout=30)  # the client gives up long before
                return
            if self.path.startswith("/redirect/"):
                self.send_response(302)
                self.send_header("Location", self.path.removeprefix("/redirect"))
                self.end_headers()
                return
            if self.path.startswith("/truncate/"):
                self._send_half(server_state.root / self.path.removeprefix("/truncate/"))
                return
            if self.path.startswith("/trickle/"):
                self._trickle()
                return
            if self.path.startswith("/redirect-ftp/"):
                self.send_response(302)
                self.send_header("Location", "ftp://127.0.0.1/" + self.path.removeprefix("/redirect-ftp/"))
                self.end_headers()
                return
            if self.path.startswith("/forbidden/"):
                target = server_state.root / self.path.removeprefix("/forbidden/")
                if not target.is_file():
                    self.send_error(403)
                    return
                self.path = "/" + self.path.removeprefix("/forbidden/")
            if self.path.startswith("/nohead/"):
                self.path = "/" + self.path.removeprefix("/nohead/")
            super().do_GET()

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
            server_state.requests.append("HEAD " + self.path)
            if self.path.startswith("/nohead/"):
                self.send_error(405)
                return
            super().do_HEAD()

        def _trickle(self) -> None:
            """Promise a big body and send one byte at a time, until the client gives up."""
            self.send_response(200)
            self.send_header("Content-Length", "1000000")
            self.end_headers()
            while not server_state.release.wait(timeout=0.05):
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return

        def _send_half(self, path: Path) -> None:
            data = path.read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True

    return Handler


def serve(root: Path) -> Iterator[MirrorServer]:
    """Serve `root` on 127.0.0.1 (port 0) until the generator is closed."""
    state = MirrorServer(root, "")
    with serving(_handler(state)) as httpd:
        state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
        try:
            yield state
        finally:
            state.release.set()  # a response held back goes out, before the server stops
