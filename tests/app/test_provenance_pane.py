"""The details pane's provenance section: each outcome, the closure's download, a slow manifest, the copy menu.

Mirrors come from tests/signed_mirror.py, served over loopback HTTP; no test needs `gpg` or `gpgv`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from pysequoia.packet import PacketPile, Tag
from textual.pilot import Pilot

from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.widgets import provenance_follower
from cachetui.app.widgets.browser_body import BrowserBody
from cachetui.app.widgets.detail_pane import DetailPane, DetailRows, detail_lines
from cachetui.app.widgets.facet_panel import FacetPanel
from cachetui.app.widgets.spec_detail import spec_detail
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.load import BinaryProvenance, Provenance, Signature, load_corpus
from cachetui.core.query.spack_commands import TRUST_KEYS_COMMAND
from cachetui.present.details.provenance_pane import CHECKING, PaneProvenance
from cachetui.present.format import human_size
from tests.app.helpers import sample_app, wait_for, wait_loaded
from tests.dag_mirror import hash_of
from tests.mirrors import MirrorServer, serve
from tests.signed_mirror import Keys, tarball, tarball_sizes, write_v2, write_v3

PINNED = 1735689600  # 2025-01-01T00:00:00Z: the snapshot's push dates, the same every run
ORDER = ["app", "foreign", "gone", "lacks", "libc3", "old", "plain", "swapped", "tampered", "tool", "zlib"]  # the table's


@pytest.fixture(scope="module")
def keys() -> Keys:
    return Keys()


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory, keys: Keys) -> Iterator[MirrorServer]:
    root = tmp_path_factory.mktemp("signed")
    for layout, write in (("v3", write_v3), ("v2", write_v2)):
        (root / layout).mkdir()
        write(root / layout, keys)
    servers = serve(root)
    yield next(servers)
    servers.close()


@pytest.fixture
def at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cursor has rested as soon as it stops: each test waits on what it checks, never on a clock."""
    monkeypatch.setattr(provenance_follower, "REST_S", 0.001)


def _pane(app: CacheTuiApp) -> str:
    """The details as one line of words (wrapping aside)."""
    rows = app.screen.query_one(DetailPane).source
    assert isinstance(rows, DetailRows)
    return " ".join(" ".join(text.plain.split()) for text, _ in rows.rows)


def _shown_hash(app: CacheTuiApp) -> str:
    detail = app.screen.query_one(DetailPane).detail
    assert detail is not None
    return detail.spec.hash


async def _move_to(pilot: Pilot, name: str) -> None:
    """Up and down the table with the keys a user presses, to the row of `name`."""
    table = pilot.app.screen.query_one(SpecTable)
    table.focus()
    target = ORDER.index(name)
    while table.cursor != target:
        await pilot.press("down" if table.cursor < target else "up")


def _settled(app: CacheTuiApp) -> bool:
    detail = app.screen.query_one(DetailPane).detail
    return detail is not None and detail.provenance is not None and detail.provenance.complete


async def _rest_on(pilot: Pilot, name: str) -> str:
    await _move_to(pilot, name)
    await wait_for(pilot, lambda: _settled(pilot.app))
    assert _shown_hash(pilot.app) == hash_of(name)
    return _pane(pilot.app)


def _key_ids(cert: object) -> set[str]:
    return {p.key_id.upper() for p in PacketPile.from_bytes(bytes(cert)) if p.tag in (Tag.PublicKey, Tag.PublicSubkey)}


@pytest.mark.usefixtures("at_once")
@pytest.mark.parametrize("layout", ["v3", "v2"])
async def test_the_pane_shows_each_binarys_outcome_signer_and_size(signed: MirrorServer, keys: Keys,
                                                                    layout: str) -> None:
    app = CacheTuiApp([signed.at(layout)], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        fingerprint = keys.cert.fingerprint.upper()
        text = await _rest_on(pilot, "zlib")
        assert f"signed verified: Test Cache <cache@example.org> key {fingerprint}" in text
        assert f"tarball {human_size(len(tarball('zlib')))}" in text and "expires" not in text
        assert "signed unsigned tarball" in await _rest_on(pilot, "plain")
        text = await _rest_on(pilot, "tampered")
        assert "signed bad: does not verify" in text and "size not shown: its record is bad" in text
        text = await _rest_on(pilot, "foreign")
        named = text.split("unknown-key: signed by key ")[1].split(",")[0]
        assert named in _key_ids(keys.stranger.extract_certificate()) and "which the cache does not publish" in text
        text = await _rest_on(pilot, "gone")
        assert "signed unchecked: no signed record" in text and "unsigned" not in text
        text = await _rest_on(pilot, "swapped")
        assert f"signed bad: a signed record of zlib@1.3/{hash_of('zlib')[:7]}" in text
        assert "size not shown: its record is bad" in text
        text = await _rest_on(pilot, "old")
        assert "signed verified: Retired Signer <retired@example.org>" in text
        assert f"key {keys.expired_cert.fingerprint.upper()} expires " in text and " (expired) tarball" in text


@pytest.mark.usefixtures("at_once")
async def test_the_download_of_app_is_its_four_tarballs_and_a_missing_record_is_counted(
        signed: MirrorServer) -> None:
    app = CacheTuiApp([signed.at("v3")], system_clipboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        four = human_size(tarball_sizes("app", "zlib", "libc3", "tool"))
        assert f"download 4 binaries, {four} (spack install /appqqqq)" in await _rest_on(pilot, "app")
        text = await _rest_on(pilot, "lacks")
        assert "download 1 binary" in text and "1 record of the closure held by no loaded source" in text


@pytest.mark.usefixtures("at_once")
async def test_a_held_manifest_fills_in_only_under_its_own_binary(signed: MirrorServer) -> None:
    """The loopback server holds `tool`'s manifest back while the cursor keeps moving; once released, its
    answer lands under `tool` only, and only when the cursor is on it."""
    signed.held = "/spec/tool/"
    app = CacheTuiApp([signed.at("v3")], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        tool = app.browser.corpus.occurrences(hash_of("tool"))[0]
        body = app.screen.query_one(BrowserBody)
        await _move_to(pilot, "tool")
        await wait_for(pilot, signed.held_asked.is_set)
        assert f"signed {CHECKING}" in _pane(app)
        # Keys are answered and the other binaries' details fill in while `tool`'s record is held.
        assert "signed unsigned" in await _rest_on(pilot, "plain")
        assert "signed bad" in await _rest_on(pilot, "tampered")
        await _move_to(pilot, "tool")  # back on it, still held: still being checked
        assert f"signed {CHECKING}" in _pane(app)
        await _move_to(pilot, "zlib")
        await wait_for(pilot, lambda: _settled(app))
        zlib = _pane(app)
        signed.release.set()  # `tool`'s answer arrives while the cursor is on zlib
        # its record is kept (its closure is walked only once the cursor rests on it again)
        await wait_for(pilot, lambda: (known := body.provenance_follower.known_provenance(tool)) is not None
                       and known.binary is not None)
        await pilot.pause()
        assert _shown_hash(app) == hash_of("zlib") and _pane(app) == zlib
        requests = len(signed.requests)
        text = await _rest_on(pilot, "tool")  # kept: shown at once, nothing fetched again
        assert "signed verified: Test Cache" in text and len(signed.requests) == requests
    signed.held = ""


async def test_rows_passed_over_fetch_nothing_until_the_cursor_rests(signed: MirrorServer,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    fetched: list[int] = []
    original = Provenance.binary
    monkeypatch.setattr(Provenance, "binary", lambda self, spec: (fetched.append(spec), original(self, spec))[1])
    monkeypatch.setattr(provenance_follower, "REST_S", 3600)  # never rests within the test
    app = CacheTuiApp([signed.at("v3")], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await _move_to(pilot, "zlib")
        await pilot.pause()
        assert f"signed {CHECKING}" in _pane(app) and fetched == []
        assert not any(w.group == "provenance" for w in app.workers)


async def test_site_documents_have_no_provenance_section() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        app.screen.query_one(SpecTable).focus()
        await pilot.press("down")
        await pilot.pause()
        text = _pane(app)
        assert "dependencies not recorded in site documents" in text and "signed" not in text


@pytest.mark.usefixtures("at_once")
async def test_a_fetch_that_fails_is_unchecked_with_its_reason_in_one_line(
        signed: MirrorServer, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(self: Provenance, spec: int) -> None:
        raise RuntimeError("the keyring\nwould not open")

    monkeypatch.setattr(Provenance, "binary", fail)
    app = CacheTuiApp([signed.at("v3")], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        text = await _rest_on(pilot, "zlib")
        assert "signed unchecked: the keyring would not open compiler" in text


async def _copy_menu_lines(pilot: Pilot, name: str) -> list[str]:
    await _rest_on(pilot, name)
    await pilot.press("c")
    await pilot.pause()
    menu = pilot.app.screen
    assert isinstance(menu, CopyMenu)
    lines = [text for _, (_, text) in menu._choices]
    await pilot.press("escape")
    await pilot.pause()
    return lines


@pytest.mark.usefixtures("at_once")
async def test_the_key_trust_line_is_left_out_only_when_spacks_keys_hold_the_signer(
        signed: MirrorServer, keys: Keys, monkeypatch: pytest.MonkeyPatch) -> None:
    published = keys.cert.fingerprint.upper()
    for trusted, left_out in ((frozenset({published}), {"app"}), (frozenset({"0" * 40}), set()), (None, set())):
        monkeypatch.setattr("cachetui.core.load.trusted_fingerprints", lambda trusted=trusted: trusted)
        app = CacheTuiApp([signed.at("v3")], system_clipboard=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_loaded(pilot)
            for name in ("app", "foreign", "plain"):  # verified by the trusted key; another's; unsigned
                lines = await _copy_menu_lines(pilot, name)
                assert (TRUST_KEYS_COMMAND not in lines) == (name in left_out), (trusted, name)
                assert f"spack install /{hash_of(name)}" in lines


@pytest.mark.usefixtures("at_once")
def test_a_verified_section_at_120x40(snap_compare) -> None:  # noqa: ANN001
    """A binary signed by the committed (since expired) key: the same fingerprint and dates every run.

    Read from a mirror written under build/, so the source line in the details is the same every run."""
    root = Path("build") / "provenance-snapshot"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    write_v3(root, Keys())
    for written in root.rglob("*"):  # the files' times are when the mirror says each binary was pushed
        os.utime(written, (PINNED, PINNED))

    async def run_before(pilot: Pilot) -> None:
        await wait_loaded(pilot)
        # The push dates are read after the load, and the facets asked again once they are in: the snapshot shows
        # the Pushed facet, so it waits for it (it raced the snapshot when the load came sooner)
        await wait_for(pilot, lambda: any(e.facet == "pushed" for e in pilot.app.screen.query_one(FacetPanel).entries))
        await wait_loaded(pilot)
        await _rest_on(pilot, "old")

    app = CacheTuiApp([str(root)], system_clipboard=False)
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_what_a_mirror_wrote_reaches_the_pane_inert(signed: MirrorServer) -> None:
    corpus = load_corpus([str(signed.root / "v3")])
    (spec,) = corpus.occurrences(hash_of("zlib"))
    hostile = Signature("verified", "AB" * 20, "Eve \x1b]52;c;cGF3bmVk\x07 <eve@example.org>\x1b[2J")
    binary = BinaryProvenance(spec, hash_of("zlib"), "zlib", "v3", hostile, 10, None, None)
    detail = replace(spec_detail(corpus, spec, False), provenance=PaneProvenance(binary))
    text = "\n".join(line.plain for line, _ in detail_lines(detail))
    assert "signed   verified: Eve" in text and "\x1b" not in text and "\x07" not in text
