"""Push dates: when each binary was pushed, from its storage (record files' times, a bucket's listing, Last-Modified).

Record files are named here from Spack's rules (`v3/manifests/spec/<name>/<name>-<version>-<hash>.spec.manifest.json`,
`build_cache/<arch>-<compiler>-<ver>-<name>-<ver>-<hash>.spec.json.sig`), independently of the project's code, and
dated with os.utime. Servers listen on 127.0.0.1 only: the public https front and the S3 endpoint are pointed there.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import hashlib
import json
import os
import sys
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from cachetui.cli.main import main
from cachetui.core.load import Provenance, load_corpus
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.options import LoadOptions
from cachetui.core.load.sources import bucket_listing, push_dates, transport
from cachetui.core.model.corpus import Corpus
from tests.dag_mirror import hash_of
from tests.dag_mirror import index as dag_index
from tests.loopback import serving
from tests.mirrors import v3_mirror
from tests.signed_mirror import ARCH, COMPILER, RECORDS, Keys, write_both

HELD = sorted(name for name, (_, held, _, _) in RECORDS.items() if held)
DATES = {name: 1_767_225_600 + 86_400 * n + 3_600 * n for n, name in enumerate(HELD)}  # from 2026-01-01, distinct
NO_CACHE = LoadOptions(use_cache=False)


def _iso(seconds: int) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _v3_path(root: Path, name: str) -> Path:
    version = RECORDS[name][0]
    return root / "v3" / "manifests" / "spec" / name / f"{name}-{version}-{hash_of(name)}.spec.manifest.json"


def _v2_path(root: Path, name: str, suffix: str = ".spec.json.sig") -> Path:
    return root / "build_cache" / f"{ARCH}-{COMPILER}-{name}-{RECORDS[name][0]}-{hash_of(name)}{suffix}"


def _dated(path: Path, when: int, content: bytes = b"{}") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_bytes(content)
    os.utime(path, (when, when))
    return path


def _index() -> bytes:
    return json.dumps(dag_index(RECORDS)).encode()


def _v3(root: Path, *, without: tuple[str, ...] = ("gone",)) -> Path:
    """A v3 mirror whose every held binary but `without` has its spec manifest, dated DATES."""
    v3_mirror(root, _index())
    for name in HELD:
        if name not in without:
            _dated(_v3_path(root, name), DATES[name])
    return root


def _v2(root: Path) -> Path:
    """A v2 mirror: signed records, `plain` unsigned, `tool` a `.spec.yaml` (Spack <= 0.16), `zlib` both a `.sig`
    and a later `.spec.json` (the `.sig`, which Spack reads first, counts), `gone` none."""
    data = _index()
    (root / "build_cache").mkdir(parents=True)
    (root / "build_cache" / "index.json").write_bytes(data)
    (root / "build_cache" / "index.json.hash").write_text(hashlib.sha256(data).hexdigest())
    for name in HELD:
        suffix = {"plain": ".spec.json", "tool": ".spec.yaml", "gone": None}.get(name, ".spec.json.sig")
        if suffix is not None:
            _dated(_v2_path(root, name, suffix), DATES[name])
        tarball = root / "build_cache" / ARCH / COMPILER / f"{name}-{RECORDS[name][0]}" / "x.spack"
        _dated(tarball, 1_000_000_000)  # a tarball's directory is not walked for records
    _dated(_v2_path(root, "zlib", ".spec.json"), DATES["zlib"] + 999_999)
    return root


def _pushed(corpus: Corpus) -> dict[str, int | None]:
    return {name: corpus.pushed_of(_spec(corpus, name)) for name in HELD}


def _spec(corpus: Corpus, name: str) -> int:
    (spec,) = corpus.occurrences(hash_of(name))
    return spec


def _expected(*unknown: str) -> dict[str, int | None]:
    return {name: None if name in unknown else DATES[name] for name in HELD}


def _warnings(corpus: Corpus) -> list[str]:
    return [p.reason for p in corpus.report.warnings if "push dates" in p.reason]


# -- local mirrors, walked -----------------------------------------------------------------------------------


@pytest.mark.parametrize("spelled", ["path", "file"])
def test_a_local_v3_mirror_gives_each_binary_its_manifests_time_and_none_without_one(
        tmp_path: Path, spelled: str) -> None:
    root = _v3(tmp_path / "m")
    corpus = load_corpus([root.as_uri() if spelled == "file" else str(root)], NO_CACHE)
    assert corpus.report.errors == [] and _warnings(corpus) == []
    assert _pushed(corpus) == _expected("gone")


def test_a_local_v2_mirror_dates_each_binary_by_the_record_spack_reads_first(tmp_path: Path) -> None:
    corpus = load_corpus([str(_v2(tmp_path / "m"))], NO_CACHE)
    assert corpus.report.errors == [] and _warnings(corpus) == []
    assert _pushed(corpus) == _expected("gone")  # zlib: its .sig's date, not the later .spec.json's


def test_the_walk_runs_apart_and_in_this_process_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large mirror is walked in a process of its own, a small one (or where none can start) in the load's."""
    root = _v3(tmp_path / "m")

    def never(*args: object) -> object:
        raise AssertionError("the walk ran in the load's own process")

    monkeypatch.setattr(push_dates, "APART_BYTES", 0)  # however small its index, the mirror is walked apart
    with monkeypatch.context() as patched:
        patched.setattr(push_dates, "walk", never)  # what this process would run: the child's is its own
        apart = _pushed(load_corpus([str(root)], NO_CACHE))
    monkeypatch.setattr(sys, "executable", "")  # no Python to start: the walk runs here
    assert apart == _pushed(load_corpus([str(root)], NO_CACHE)) == _expected("gone")


def test_names_that_are_not_records_links_and_directories_date_nothing(tmp_path: Path) -> None:
    root = _v3(tmp_path / "m", without=("gone", "tool", "plain"))
    spec = root / "v3" / "manifests" / "spec"
    zlib = _v3_path(root, "zlib")
    _v3_path(root, "gone").parent.mkdir(parents=True)
    os.symlink(zlib, _v3_path(root, "gone"))  # a link: not a regular file, though it names gone
    _v3_path(root, "tool").mkdir(parents=True)  # a directory named as tool's record
    _dated(spec / "plain" / f"plain-1.0-{hash_of('plain')[:-1]}!.spec.manifest.json", 1)  # not a hash
    _dated(spec / "plain" / f"plain-1.0{hash_of('plain')}.spec.manifest.json", 1)  # no `-` before it
    _dated(spec / "plain" / f"plain-1.0-{hash_of('plain')}.spec.manifest.json.tmp", 1)  # another suffix
    _dated(spec / f"plain-1.0-{hash_of('plain')}.spec.manifest.json", 1)  # not in a package's directory
    os.symlink(spec / "zlib", spec / "linked")  # a linked directory is not walked into
    corpus = load_corpus([str(root)], NO_CACHE)
    assert _pushed(corpus) == _expected("gone", "tool", "plain")
    assert corpus.report.errors == [] and _warnings(corpus) == []


def test_a_mirror_without_records_loads_with_every_date_unknown_and_nothing_said(tmp_path: Path) -> None:
    v3_mirror(tmp_path / "m", _index())
    corpus = load_corpus([str(tmp_path / "m")], NO_CACHE)
    assert set(_pushed(corpus).values()) == {None} and corpus.report.problems == []


def test_a_walk_past_its_bound_stops_and_says_so_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _v3(tmp_path / "m", without=())
    monkeypatch.setattr(push_dates, "MAX_ENTRIES", 6)  # the package directories alone are 11 entries
    corpus = load_corpus([str(root)], NO_CACHE)
    (said,) = _warnings(corpus)
    assert "stopped after 6 entries" in said
    assert corpus.n_specs == len(HELD) and corpus.report.errors == []
    assert set(_pushed(corpus).values()) == {None}  # nothing was walked past the directories


def test_the_dates_come_back_with_a_warm_start_unread(tmp_path: Path) -> None:
    root = _v3(tmp_path / "m")
    cache = CorpusCache(tmp_path / "cache")
    cold = load_corpus([str(root)], LoadOptions(use_cache=True), cache=cache)
    assert cold.cache_status == "miss" and _pushed(cold) == _expected("gone")
    for name in HELD:  # the index is unchanged: a warm start reuses its corpus, dates included, and walks nothing
        if name != "gone":
            _dated(_v3_path(root, name), 1)
    warm = load_corpus([str(root)], LoadOptions(use_cache=True), cache=cache)
    assert warm.cache_status == "hit" and _pushed(warm) == _expected("gone")


# -- a mirror named by its s3:// location: the bucket's listing ----------------------------------------------


class _Bucket:
    """A stand-in for S3's ListObjectsV2: the keys given, `page` a page, answering `status` when it is not 200."""

    def __init__(self, keys: dict[str, int], page: int = 4, status: int = 200, body: bytes | None = None) -> None:
        self.keys, self.page, self.status, self.body = keys, page, status, body
        self.asked: list[dict[str, str]] = []

    def answer(self, path: str) -> tuple[int, bytes]:
        url = urllib.parse.urlsplit(path)
        query = dict(urllib.parse.parse_qsl(url.query))
        self.asked.append(query | {"path": url.path})
        if self.status != 200 or self.body is not None:
            return self.status, self.body or b"<Error><Code>AccessDenied</Code></Error>"
        keys = sorted(k for k in self.keys if k.startswith(query["prefix"]) and query.get("list-type") == "2")
        start = int(query.get("continuation-token", "0"))
        shown = keys[start:start + self.page]
        more = start + self.page < len(keys)
        contents = "".join(f"<Contents><Key>{k}</Key><LastModified>{_iso(self.keys[k])[:-1]}.000Z</LastModified>"
                           f"<Size>2</Size><StorageClass>STANDARD</StorageClass></Contents>" for k in shown)
        token = f"<NextContinuationToken>{start + self.page}</NextContinuationToken>" if more else ""
        return 200, (f'<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult '
                     f'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>spack-binaries</Name>'
                     f"<Prefix>{query['prefix']}</Prefix><KeyCount>{len(shown)}</KeyCount><MaxKeys>1000</MaxKeys>"
                     f"<IsTruncated>{'true' if more else 'false'}</IsTruncated>{contents}{token}"
                     f"</ListBucketResult>").encode()


@pytest.fixture
def bucket(monkeypatch: pytest.MonkeyPatch, mirror_server: Any) -> Iterator[_Bucket]:
    """The public https front and the S3 endpoint, both on loopback; the bucket's keys are the test's to set."""
    state = _Bucket({})

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # http.server's name
            status, body = state.answer(self.path)
            self.send_response(status)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # quiet in tests
            pass

    with serving(Handler) as httpd:
        monkeypatch.setattr(transport, "PUBLIC_MIRROR", mirror_server.url)
        monkeypatch.setattr(bucket_listing, "S3_ENDPOINT", f"http://127.0.0.1:{httpd.server_address[1]}/{{bucket}}/")
        yield state


def _bucket_keys(prefix: str) -> dict[str, int]:
    keys = {f"{prefix}/v3/manifests/spec/{name}/{_v3_path(Path(), name).name}": DATES[name]
            for name in HELD if name != "gone"}
    keys[f"{prefix}/v3/manifests/spec/zlib/zlib-1.3-{'!' * 32}.spec.manifest.json"] = 5  # not a record: skipped
    keys[f"{prefix}/v3/manifests/index/index.manifest.json"] = 7  # not under the prefix asked for
    return keys


def test_a_mirror_named_by_its_s3_location_is_dated_by_the_buckets_listing_page_by_page(
        bucket: _Bucket, mirror_server: Any) -> None:
    v3_mirror(mirror_server.root / "develop", _index())  # served as the https front serves the bucket
    bucket.keys = _bucket_keys("develop")
    corpus = load_corpus(["s3://spack-binaries/develop"], NO_CACHE)
    assert corpus.report.errors == [] and _warnings(corpus) == []
    assert _pushed(corpus) == _expected("gone")
    assert len(bucket.asked) == 3  # 11 keys under the prefix, 4 a page: one request a page, none a binary
    assert {q["path"] for q in bucket.asked} == {"/spack-binaries/"}
    assert {q["prefix"] for q in bucket.asked} == {"develop/v3/manifests/spec/"}
    assert [q.get("continuation-token") for q in bucket.asked] == [None, "4", "8"]


def test_a_refused_listing_is_one_warning_and_the_mirror_loads(bucket: _Bucket, mirror_server: Any) -> None:
    v3_mirror(mirror_server.root / "develop", _index())
    bucket.status = 403
    corpus = load_corpus(["s3://spack-binaries/develop"], NO_CACHE)
    (said,) = _warnings(corpus)
    assert said.startswith("push dates unknown: the bucket refuses to list it") and "403" in said
    assert corpus.n_specs == len(HELD) and corpus.report.errors == []
    assert set(_pushed(corpus).values()) == {None}


@pytest.mark.parametrize("body", [
    b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;">]><ListBucketResult>&b;'
    b"</ListBucketResult>",
    b"<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
    b"not xml at all",
])
def test_a_listing_that_is_not_one_is_one_warning(bucket: _Bucket, mirror_server: Any, body: bytes) -> None:
    v3_mirror(mirror_server.root / "develop", _index())
    bucket.body = body
    corpus = load_corpus(["s3://spack-binaries/develop"], NO_CACHE)
    (said,) = _warnings(corpus)
    assert said.startswith("push dates unknown: the bucket's listing is not one cachetui reads")
    assert corpus.n_specs == len(HELD) and set(_pushed(corpus).values()) == {None}


def test_a_listing_past_its_page_bound_keeps_what_it_read_and_says_so(
        bucket: _Bucket, mirror_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    v3_mirror(mirror_server.root / "develop", _index())
    bucket.keys = _bucket_keys("develop")
    monkeypatch.setattr(bucket_listing, "MAX_PAGES", 2)
    corpus = load_corpus(["s3://spack-binaries/develop"], NO_CACHE)
    (said,) = _warnings(corpus)
    assert "stopped after 2 pages" in said and len(bucket.asked) == 2
    dated = {name: when for name, when in _pushed(corpus).items() if when is not None}
    assert len(dated) == 8 and all(DATES[name] == when for name, when in dated.items())  # the first 8 keys


def test_the_same_mirror_over_https_is_not_listed(bucket: _Bucket, mirror_server: Any) -> None:
    v3_mirror(mirror_server.root / "develop", _index())
    bucket.keys = _bucket_keys("develop")
    corpus = load_corpus([f"{mirror_server.url}/develop"], NO_CACHE)
    assert bucket.asked == [] and set(_pushed(corpus).values()) == {None}


# -- a binary's record read for its provenance: the server's Last-Modified, the file's time ----------------


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    built = write_both(tmp_path_factory.mktemp("signed"), Keys())
    for name in HELD:
        v2 = built["v2"]
        for path in (_v3_path(built["v3"], name), _v2_path(v2, name), _v2_path(v2, name, ".spec.json")):
            if path.exists():
                os.utime(path, (DATES[name], DATES[name]))
    return built


@pytest.fixture
def dated_server(signed: dict[str, Path]) -> Iterator[tuple[str, dict[str, str]]]:
    """The signed mirrors over loopback, every response's Last-Modified the one the test sets (else the file's)."""
    said: dict[str, str] = {}
    root = next(iter(signed.values())).parent

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def send_header(self, keyword: str, value: str) -> None:
            if keyword == "Last-Modified" and "value" in said:
                value = said["value"]
            super().send_header(keyword, value)

        def log_message(self, format: str, *args: Any) -> None:  # quiet in tests
            pass

    with serving(Handler) as httpd:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", said


@pytest.mark.parametrize("layout", ["v3", "v2"])
def test_over_http_a_records_push_date_is_the_servers_last_modified(
        dated_server: tuple[str, dict[str, str]], layout: str) -> None:
    url, said = dated_server
    said["value"] = "Tue, 03 Feb 2026 04:05:06 GMT"
    corpus = load_corpus([f"{url}/{layout}"], NO_CACHE)
    assert set(_pushed(corpus).values()) == {None}  # nothing is dated at load over HTTP
    provenance = Provenance(corpus, timeout=10)
    assert provenance.binary(_spec(corpus, "zlib")).pushed == "2026-02-03T04:05:06Z"
    assert provenance.binary(_spec(corpus, "gone")).pushed is None  # no record: nothing dates it


@pytest.mark.parametrize("header", ["not a date", "Tue, 03 Feb 2026 04:05:06", ""])
def test_a_last_modified_that_is_not_a_date_with_its_zone_is_unknown(
        dated_server: tuple[str, dict[str, str]], header: str) -> None:
    url, said = dated_server
    said["value"] = header
    corpus = load_corpus([f"{url}/v3"], NO_CACHE)
    assert Provenance(corpus, timeout=10).binary(_spec(corpus, "zlib")).pushed is None


def test_verify_json_prints_the_servers_date(dated_server: tuple[str, dict[str, str]],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    url, said = dated_server
    moment = dt.datetime(2026, 3, 4, 5, 6, 7, tzinfo=dt.timezone.utc)
    said["value"] = email.utils.format_datetime(moment, usegmt=True)
    code = main(["verify", "--no-cache", f"{url}/v2", "--spec", "app", "--format", "json"])
    rows = json.loads(capsys.readouterr().out)
    assert code == 0 and [(r["package"], r["pushed"]) for r in rows] == [("app", "2026-03-04T05:06:07Z")]


@pytest.mark.parametrize("layout", ["v3", "v2"])
def test_on_disk_a_records_push_date_is_its_files_time_as_the_load_gave_it(
        signed: dict[str, Path], layout: str) -> None:
    corpus = load_corpus([str(signed[layout])], NO_CACHE)
    provenance = Provenance(corpus, timeout=10)
    for name in ("zlib", "plain", "tampered", "foreign"):
        spec = _spec(corpus, name)
        assert provenance.binary(spec).pushed == _iso(DATES[name]) == _iso(corpus.pushed_of(spec) or 0)


def test_a_local_index_of_indexes_dates_its_stacks_binaries_from_the_whole_tags_mirror(tmp_path: Path) -> None:
    whole = dag_index(RECORDS)
    stack = {"database": {"version": "8", "installs": {
        hash_: record for hash_, record in whole["database"]["installs"].items()
        if record["spec"]["name"] in ("zlib", "tool")}}}
    root_blob = v3_mirror(tmp_path / "develop", json.dumps(whole).encode())
    stack_blob = v3_mirror(tmp_path / "develop" / "e4s", json.dumps(stack).encode())
    for name in HELD:
        if name not in ("gone", "tool"):
            _dated(_v3_path(tmp_path / "develop", name), DATES[name])
    _dated(_v3_path(tmp_path / "develop" / "e4s", "tool"), DATES["tool"])  # only in the stack's own tree: not read
    refs = {"develop": [{"label": "root", "url": f"develop/blobs/sha256/{root_blob[:2]}/{root_blob}"},
                        {"label": "e4s", "url": f"develop/e4s/blobs/sha256/{stack_blob[:2]}/{stack_blob}"}]}
    (tmp_path / "cache_spack_io_index.json").write_text(json.dumps(refs))
    corpus = load_corpus([str(tmp_path / "cache_spack_io_index.json")], NO_CACHE)
    assert corpus.report.errors == [] and _warnings(corpus) == []
    assert corpus.spec(_spec(corpus, "zlib")).stacks == ("e4s",)
    assert _pushed(corpus) == _expected("gone", "tool")


def test_a_v2_mirror_named_by_its_s3_location_lists_build_cache_one_level_deep(
        bucket: _Bucket, mirror_server: Any) -> None:
    _v2(mirror_server.root / "old")
    records = mirror_server.root / "old" / "build_cache"
    bucket.keys = {f"old/build_cache/{p.name}": int(p.stat().st_mtime) for p in records.iterdir() if p.is_file()}
    corpus = load_corpus(["s3://spack-binaries/old"], NO_CACHE)
    assert _warnings(corpus) == [] and _pushed(corpus) == _expected("gone")  # zlib: its .sig's, as on disk
    assert {(q["prefix"], q.get("delimiter")) for q in bucket.asked} == {("old/build_cache/", "/")}


def test_a_listing_that_failed_is_tried_again_by_the_next_load_and_a_refused_one_is_not(
        bucket: _Bucket, mirror_server: Any, tmp_path: Path) -> None:
    """A failure that may pass (HTTP 503) is not kept in the warm cache as if current; a refusal (403) is the
    bucket's answer, kept with the index until it changes."""
    v3_mirror(mirror_server.root / "develop", _index())
    bucket.keys = _bucket_keys("develop")
    cache = CorpusCache(tmp_path / "cache")
    bucket.status = 503
    failed = load_corpus(["s3://spack-binaries/develop"], cache=cache)
    assert set(_pushed(failed).values()) == {None} and "listing failed" in _warnings(failed)[0]
    bucket.status = 200
    again = load_corpus(["s3://spack-binaries/develop"], cache=CorpusCache(tmp_path / "cache"))
    assert again.cache_status != "hit" and _pushed(again) == _expected("gone") and _warnings(again) == []
    refused_cache = tmp_path / "refused"
    bucket.status = 403
    load_corpus(["s3://spack-binaries/develop"], cache=CorpusCache(refused_cache))
    asked = len(bucket.asked)
    kept = load_corpus(["s3://spack-binaries/develop"], cache=CorpusCache(refused_cache))
    assert kept.cache_status == "hit" and len(bucket.asked) == asked  # not listed again


def test_a_binary_filed_twice_keeps_a_date_its_storage_can_mean(tmp_path: Path) -> None:
    """A hash under two packages' directories, one of them dated before the epoch: the other's date counts, in
    whichever order the directories are listed."""
    from cachetui.core.load.sources.record_walk import walk

    hash_ = "a" * 32
    spec = tmp_path / "v3" / "manifests" / "spec"
    _dated(spec / "p1" / f"p1-1.0-{hash_}.spec.manifest.json", 1_700_000_000)
    _dated(spec / "p2" / f"p2-1.0-{hash_}.spec.manifest.json", -5)
    assert walk(str(tmp_path), "v3", 100).dates == {hash_: 1_700_000_000}
