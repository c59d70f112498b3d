"""Where specs come from: one module per kind of source, the warm cache, and the load that joins them.

What the CLI, the app and `present/` use is exported here (import-linter keeps them out of `sources/`):
`load_corpus` with its `LoadOptions`, and the few rules about what the user typed that they share.

Each export is imported when first asked for (PEP 562), so a command pays only for what it uses: a
warm `check` never imports provenance (Sequoia), the readers of wanted files or of Spack's config.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cachetui.core.load.cache_names import default_cache_dir
    from cachetui.core.load.looks import Looks, New, binaries_changed
    from cachetui.core.load.no_cyclic_gc import CyclicGcPause
    from cachetui.core.load.options import LoadOptions
    from cachetui.core.load.pipeline import CACHE_REBUILT, PathNotFound, load_corpus
    from cachetui.core.load.progress import DOCUMENTS, Progress
    from cachetui.core.load.provenance import (
        BinaryProvenance,
        ClosureDownload,
        Provenance,
        Signature,
        trusted_fingerprints,
    )
    from cachetui.core.load.sample import sample_path
    from cachetui.core.load.sources import (
        SPACK_MIRRORS,
        local_input,
        local_location,
        public_sources,
        source_label,
        spack_mirror_inputs,
    )
    from cachetui.core.load.sources.environment import UnreadableEnvironment, read_environment
    from cachetui.core.load.sources.redact import redact
    from cachetui.core.load.sources.regular_file import NotRegular, open_regular
    from cachetui.core.load.sources.spack_config import binary_mirror_names
    from cachetui.core.load.sources.transport import is_url
    from cachetui.core.load.sources.wanted import STDIN, UnreadableWanted, read_wanted
    from cachetui.core.load.typed_inputs import recognisable, require_inputs

_HOMES = {  # each export -> the module it is defined in
    "LoadOptions": "options",
    "default_cache_dir": "cache_names",
    "CyclicGcPause": "no_cyclic_gc",
    **dict.fromkeys(["Looks", "New", "binaries_changed"], "looks"),
    **dict.fromkeys(["CACHE_REBUILT", "PathNotFound", "load_corpus", "load_dating_later"], "pipeline"),
    **dict.fromkeys(["recognisable", "require_inputs"], "typed_inputs"),
    **dict.fromkeys(["DOCUMENTS", "Progress"], "progress"),
    **dict.fromkeys(["BinaryProvenance", "ClosureDownload", "Provenance", "Signature", "trusted_fingerprints"],
                    "provenance"),
    "sample_path": "sample",
    **dict.fromkeys(["SPACK_MIRRORS", "local_input", "local_location", "public_sources", "source_label",
                     "spack_mirror_inputs"], "sources"),
    "binary_mirror_names": "sources.spack_config",
    "redact": "sources.redact",
    **dict.fromkeys(["UnreadableEnvironment", "read_environment"], "sources.environment"),
    **dict.fromkeys(["NotRegular", "open_regular"], "sources.regular_file"),
    "is_url": "sources.transport",
    **dict.fromkeys(["STDIN", "UnreadableWanted", "read_wanted"], "sources.wanted"),
}

__all__ = [
    "CACHE_REBUILT",
    "DOCUMENTS",
    "BinaryProvenance",
    "ClosureDownload",
    "CyclicGcPause",
    "SPACK_MIRRORS",
    "STDIN",
    "LoadOptions",
    "Looks",
    "New",
    "NotRegular",
    "PathNotFound",
    "Progress",
    "Provenance",
    "Signature",
    "UnreadableEnvironment",
    "UnreadableWanted",
    "binaries_changed",
    "binary_mirror_names",
    "default_cache_dir",
    "is_url",
    "load_corpus",
    "load_dating_later",
    "local_input",
    "local_location",
    "open_regular",
    "public_sources",
    "read_environment",
    "read_wanted",
    "recognisable",
    "redact",
    "require_inputs",
    "sample_path",
    "source_label",
    "spack_mirror_inputs",
    "trusted_fingerprints",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return __all__
