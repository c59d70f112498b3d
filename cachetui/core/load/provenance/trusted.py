"""Which keys the user's Spack trusts: the keys in Spack's GnuPG home (`spack gpg trust` imports them there).

Read only when a `gpg` is on PATH (the keybox format is gpg's own), and never in place: gpg writes
its trust database, lock files and random seed into a home it opens, even to list keys. So the
keyring files are copied into a private temporary home, gpg lists that copy, and the copy is
removed: Spack's GnuPG home stays byte for byte as it was. Without a gpg, or without a home, the
answer is None: "cannot tell", never "trusts nothing".

Spack's GnuPG home (`spack.util.gpg.init`): `$SPACK_GNUPGHOME` when set, else
`$SPACK_ROOT/opt/spack/gpg`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

KEYRING_FILES = ("pubring.kbx", "pubring.gpg", "trustdb.gpg")
MAX_KEYRING_BYTES = 64 << 20  # a keyring larger than this is not copied: "cannot tell"
GPG_TIMEOUT_S = 10.0


def spack_gnupg_home(environ: dict[str, str] | None = None) -> str | None:
    """Where Spack keeps the keys it trusts; None when the environment does not say."""
    env = os.environ if environ is None else environ
    if env.get("SPACK_GNUPGHOME"):
        return env["SPACK_GNUPGHOME"]
    return os.path.join(env["SPACK_ROOT"], "opt", "spack", "gpg") if env.get("SPACK_ROOT") else None


def trusted_fingerprints(home: str | None = None) -> frozenset[str] | None:
    """The primary fingerprints (uppercase) of the keys in Spack's GnuPG home; None when it cannot be told."""
    gpg = shutil.which("gpg")
    home = home if home is not None else spack_gnupg_home()
    if gpg is None or home is None or not os.path.isdir(home):
        return None
    with tempfile.TemporaryDirectory(prefix="cachetui-gnupg-") as copy:  # 0700, as gpg wants its home
        if not _copy_keyring(home, copy):
            return None
        try:
            listed = subprocess.run(
                [gpg, "--homedir", copy, "--batch", "--no-autostart", "--no-permission-warning",
                 "--with-colons", "--fixed-list-mode", "--list-keys"],
                capture_output=True, timeout=GPG_TIMEOUT_S, check=False, env={**os.environ, "LC_ALL": "C"},
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
    if listed.returncode != 0:
        return None
    return frozenset(_primary_fingerprints(listed.stdout.decode("utf-8", "replace")))


def _copy_keyring(home: str, into: str) -> bool:
    """The keyring's regular files copied into `into` (read only from `home`); False when one is too large."""
    copied = False
    for name in KEYRING_FILES:
        source = os.path.join(home, name)
        if not os.path.isfile(source) or os.path.islink(source):
            continue
        if os.path.getsize(source) > MAX_KEYRING_BYTES:
            return False
        shutil.copyfile(source, os.path.join(into, name))
        copied = True
    return copied


def _primary_fingerprints(colons: str) -> list[str]:
    """The `fpr` record that follows each `pub` record of gpg's `--with-colons` listing."""
    found, after_pub = [], False
    for line in colons.splitlines():
        kind = line.split(":", 1)[0]
        if kind == "pub":
            after_pub = True
        elif kind == "fpr" and after_pub:
            fields = line.split(":")
            if len(fields) > 9 and fields[9]:
                found.append(fields[9].upper())
            after_pub = False
        elif kind == "sub":
            after_pub = False
    return found
