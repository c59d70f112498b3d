"""The commands users paste into a shell: right URLs, and quoted so a document cannot inject."""

from __future__ import annotations

import shlex

from cachetui.core.records import MirrorOrigin
from cachetui.core.spack_commands import install_command, mirror_add_command, mirror_url, origin_commands


def test_mirror_urls_follow_the_public_site() -> None:
    assert mirror_url("develop") == "https://binaries.spack.io/develop"
    assert mirror_url("v0.23.1") == "https://binaries.spack.io/releases/v0.23.1"
    assert mirror_add_command("v0.23.1") == (
        "spack mirror add spack-build-cache-v0.23.1 https://binaries.spack.io/releases/v0.23.1"
    )


def test_install_command_uses_the_slash_hash() -> None:
    assert install_command("24fngvd4f3yz7zj63yh4i2wjhfyscqp3") == "spack install /24fngvd4f3yz7zj63yh4i2wjhfyscqp3"


def test_hostile_tags_and_hashes_stay_single_shell_words() -> None:
    tag = "develop; rm -rf ~ #"
    words = shlex.split(mirror_add_command(tag))
    assert words[:3] == ["spack", "mirror", "add"] and len(words) == 5
    assert words[3] == "spack-build-cache-" + tag
    assert shlex.split(install_command("x$(reboot)")) == ["spack", "install", "/x$(reboot)"]


def test_a_configured_mirror_needs_only_the_install_line() -> None:
    origin = MirrorOrigin("team", "oci://ghcr.io/team/cache", configured=True)
    assert origin_commands("abc", origin) == [("install command (Spack knows mirror team)", "spack install /abc")]


def test_any_other_mirror_is_added_from_where_it_was_loaded_then_installed() -> None:
    origin = MirrorOrigin("ci", "oci+http://127.0.0.1:5000/buildcache", configured=False)
    assert origin_commands("abc", origin) == [
        ("add mirror ci", "spack mirror add ci oci+http://127.0.0.1:5000/buildcache"),
        ("install command", "spack install /abc"),
    ]
    hostile = MirrorOrigin("x; rm -rf ~", "/srv/my mirror", configured=False)
    assert shlex.split(origin_commands("abc", hostile)[0][1]) == ["spack", "mirror", "add", "x; rm -rf ~",
                                                                 "/srv/my mirror"]
