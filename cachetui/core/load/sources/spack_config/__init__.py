"""The mirrors the user's Spack already knows: its configuration read as Spack 1.x merges it.

Read in three steps: the scopes into layers, merged as Spack merges them (`scopes`); the merged
mirrors, each entry and its credentials (`entries`, `credentials`); the binary ones as index
groups (`groups`), with Spack's own copies of their indexes for when a mirror cannot be reached
(`indices`).

Nothing is written, nothing is run, and a secret is never put in any message.
"""

from cachetui.core.load.sources.locator import SPACK_MIRRORS
from cachetui.core.load.sources.spack_config.entries import ConfiguredMirror, SpackConfiguration, read_configuration
from cachetui.core.load.sources.spack_config.groups import (
    SpackMirrors,
    binary_mirror_names,
    configured_groups,
    configured_mirrors,
)
from cachetui.core.load.sources.spack_config.scopes import spack_platform

__all__ = ["SPACK_MIRRORS", "ConfiguredMirror", "SpackConfiguration", "SpackMirrors", "binary_mirror_names",
           "configured_groups", "configured_mirrors", "read_configuration", "spack_platform"]
