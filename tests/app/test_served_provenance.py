"""A served session checks signatures as the terminal app does, and never shows the server's paths doing so."""

from __future__ import annotations

from pathlib import Path

import pytest

from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.served import ServedApp
from cachetui.app.widgets import provenance_follower
from cachetui.core.load import load_corpus
from cachetui.core.query.spack_commands import TRUST_KEYS_COMMAND
from cachetui.present.serve.served import Labels, ServeConfig, ServedProvenance, served_corpus
from tests.app.helpers import wait_loaded
from tests.app.test_provenance_pane import _pane, _rest_on
from tests.dag_mirror import hash_of
from tests.signed_mirror import Keys, write_v3


@pytest.fixture(scope="module")
def keys() -> Keys:
    return Keys()


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory, keys: Keys) -> Path:
    root = tmp_path_factory.mktemp("server") / "site-mirror"
    root.mkdir()
    return write_v3(root, keys)


def test_a_served_corpus_checks_signatures_under_its_labels(mirror: Path, keys: Keys) -> None:
    labels = Labels([str(mirror)])
    shown, _ = served_corpus(load_corpus([str(mirror)]), labels, {})
    provenance = ServedProvenance(shown, labels)
    (app,) = shown.occurrences(hash_of("app"))
    found = provenance.binary(app)
    assert found.signature.outcome == "verified" and found.signature.signer == keys.cert.fingerprint.upper()
    (gone,) = shown.occurrences(hash_of("gone"))
    missing = provenance.binary(gone)
    assert missing.signature.outcome == "unchecked"
    assert "site-mirror/v3/manifests/spec/gone/" in missing.signature.reason
    assert str(mirror.parent) not in missing.signature.reason + (missing.record or "")


async def test_a_served_session_shows_the_signer_and_cannot_tell_which_keys_the_visitor_trusts(
        mirror: Path, keys: Keys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(provenance_follower, "REST_S", 0.001)
    asked: list[bool] = []
    monkeypatch.setattr("cachetui.core.load.trusted_fingerprints",
                        lambda: asked.append(True) or frozenset({keys.cert.fingerprint.upper()}))
    app = ServedApp(ServeConfig([str(mirror)]))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        assert "signed verified: Test Cache <cache@example.org>" in await _rest_on(pilot, "app")
        assert "signed unchecked: no signed record: site-mirror/v3/" in await _rest_on(pilot, "gone")
        assert str(mirror.parent) not in _pane(app)
        await _rest_on(pilot, "app")
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CopyMenu)
        assert TRUST_KEYS_COMMAND in [text for _, (_, text) in app.screen._choices]  # the server's keys say nothing
    assert asked == []  # the server's Spack keyring is never read for a visitor
