"""Where specs come from: one module per kind of source, the warm cache, and the load that joins them.

What the CLI, the app and `present/` use is exported here (import-linter keeps them out of `sources/`):
`load_corpus` with its `LoadOptions`, and the few rules about what the user typed that they share.
"""

from cachetui.core.load.options import LoadOptions
from cachetui.core.load.pipeline import CACHE_REBUILT, PathNotFound, load_corpus, recognisable, require_inputs
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
from cachetui.core.load.sources.redact import redact
from cachetui.core.load.sources.transport import is_url
from cachetui.core.load.sources.wanted import STDIN, UnreadableWanted, read_wanted

__all__ = [
    "CACHE_REBUILT",
    "DOCUMENTS",
    "BinaryProvenance",
    "ClosureDownload",
    "SPACK_MIRRORS",
    "STDIN",
    "LoadOptions",
    "PathNotFound",
    "Progress",
    "Provenance",
    "Signature",
    "UnreadableWanted",
    "is_url",
    "load_corpus",
    "local_input",
    "local_location",
    "public_sources",
    "read_wanted",
    "recognisable",
    "redact",
    "require_inputs",
    "sample_path",
    "source_label",
    "spack_mirror_inputs",
    "trusted_fingerprints",
]
