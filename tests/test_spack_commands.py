"""The commands users paste into a shell: the mirror a binary came from, and quoted so a document cannot inject."""

from __future__ import annotations

import shlex

import pytest

from cachetui.core.model.corpus import Document
from cachetui.core.model.records import MirrorOrigin
from cachetui.core.query.spack_commands import install_command, mirror_add_command, mirror_of, origin_commands


def _site(tag: str) -> Document:
    return Document(f"/site/_cache/{tag}/zlib/specs.md", "zlib", tag, "zlib", "generation 3", 0, 1)


def _mirror(path: str, tag: str) -> Document:
    return Document(path, "zlib", tag, "zlib", "mirror index (layout 3, database v8)", 0, 1)


# The public instructions name each tag's mirror at the root: `spack mirror add v0.22.1
# https://binaries.spack.io/v0.22.1`, and likewise develop and the dated develop snapshots.
@pytest.mark.parametrize("tag", ["develop", "develop-2025-04-20", "v0.22.1", "v0.23.1"])
def test_a_site_document_names_the_public_mirror_of_its_exact_tag(tag: str) -> None:
    name, url, configured, _ = mirror_of(_site(tag), {})
    assert not configured and url == f"https://binaries.spack.io/{tag}" and name == f"spack-build-cache-{tag}"


def test_a_mirror_binary_names_the_location_it_was_loaded_from_without_credentials() -> None:
    assert mirror_of(_mirror("http://host/v0.20.0", "mysite"), {})[:2] == ("mysite", "http://host/v0.20.0")
    assert mirror_of(_mirror("https://user:secret@host:8443/m", "m"), {})[:2] == ("m", "https://host:8443/m")
    assert mirror_of(_mirror("/scratch/mirror", "mirror"), {})[:2] == ("mirror", "/scratch/mirror")
    assert mirror_of(_mirror("https://host/cache_spack_io_index.json#e4s", "e4s"), {}) is None  # no one mirror
    configured = MirrorOrigin("team", "oci://ghcr.io/team/cache", True)
    assert mirror_of(_mirror("oci://ghcr.io/team/cache", "team"), {"oci://ghcr.io/team/cache": configured}) == configured


def test_credentials_left_out_of_a_mirror_url_are_said_beside_its_mirror_add_line() -> None:
    stripped = mirror_of(_mirror("https://user:***@host:8443/m", "m"), {})
    assert stripped is not None and stripped.credentials_left_out and stripped.url == "https://host:8443/m"
    assert origin_commands("abc", stripped)[0] == ("add mirror m (credentials left out of its URL)",
                                                   "spack mirror add m https://host:8443/m")
    plain = mirror_of(_mirror("http://host/m", "m"), {})
    assert plain is not None and not plain.credentials_left_out
    assert origin_commands("abc", plain)[0][0] == "add mirror m"


def test_install_command_uses_the_slash_hash() -> None:
    assert install_command("24fngvd4f3yz7zj63yh4i2wjhfyscqp3") == "spack install /24fngvd4f3yz7zj63yh4i2wjhfyscqp3"


def test_hostile_tags_and_hashes_stay_single_shell_words() -> None:
    tag = "develop; rm -rf ~ #"
    words = shlex.split(mirror_add_command(*mirror_of(_site(tag), {})[:2]))
    assert words[:3] == ["spack", "mirror", "add"] and len(words) == 5
    assert words[3] == "spack-build-cache-" + tag and words[4] == "https://binaries.spack.io/" + tag
    assert shlex.split(install_command("x$(reboot)")) == ["spack", "install", "/x$(reboot)"]


def test_a_configured_mirror_needs_only_the_install_line() -> None:
    origin = MirrorOrigin("team", "oci://ghcr.io/team/cache", configured=True)
    assert origin_commands("abc", origin) == [("key trust command", "spack buildcache keys --install --trust"),
                                              ("install command (Spack knows mirror team)", "spack install /abc")]


def test_any_other_mirror_is_added_from_where_it_was_loaded_then_installed() -> None:
    origin = MirrorOrigin("ci", "oci+http://127.0.0.1:5000/buildcache", configured=False)
    assert origin_commands("abc", origin) == [
        ("add mirror ci", "spack mirror add ci oci+http://127.0.0.1:5000/buildcache"),
        ("key trust command", "spack buildcache keys --install --trust"),
        ("install command", "spack install /abc"),
    ]
    hostile = MirrorOrigin("x; rm -rf ~", "/srv/my mirror", configured=False)
    assert shlex.split(origin_commands("abc", hostile)[0][1]) == ["spack", "mirror", "add", "x; rm -rf ~",
                                                                 "/srv/my mirror"]
