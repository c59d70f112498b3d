"""A cold load taken apart: each stage of reading a site, timed alone in one process, beside the floor's.

    python benchmarks/cold_parts.py TREE [--rounds N]

The floor (`benchmarks/decode_floor.py`) is `glob`, reads and `json.loads`; a cold load walks, reads
safely, decodes with msgspec and checks, and builds columns. Each stage runs over every document of
TREE with the cyclic garbage collector off (as the load runs), the files in the page cache (each read
once first), nothing kept that the stage does not keep. Medians of N rounds. These are one process's
seconds: a cold load shares the parsing with a worker, not the walk, the merging or its tail (see
`felt.py` and `cold_tail.py` for what a user waits for).
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.decode_floor import _DETAILS, _META, _line, document_paths  # noqa: E402
from benchmarks.harness import tree_parser  # noqa: E402
from cachetui.core.load.sources.site import fast  # noqa: E402
from cachetui.core.load.sources.site.document import check_meta  # noqa: E402
from cachetui.core.load.sources.site.loader import _read_document  # noqa: E402
from cachetui.core.load.sources.site.walk import find_candidates  # noqa: E402
from cachetui.core.model.build import CorpusBuilder  # noqa: E402
from cachetui.core.model.problems import LoadReport  # noqa: E402
from cachetui.core.model.records import ParsedDocument  # noqa: E402

CHUNK = 1024  # as the load hands documents to a worker: a part per chunk


def stages(tree: Path) -> dict[str, Callable[[], object]]:
    """Each stage's work, by name, over every document of `tree` (read into memory first where a stage parses)."""
    paths = document_paths(tree)
    blobs = [Path(p).read_bytes() for p in paths]
    documents = [fast.fast_document(p, b) for p, b in zip(paths, blobs)]
    if any(d is None for d in documents):
        raise SystemExit("a document is not in the site's current shape: this script times the fast lane only")

    def plain_reads() -> None:
        for path in paths:
            with open(path, "rb") as handle:
                handle.read()

    def safe_reads() -> None:
        for path in paths:
            _read_document(path, 1 << 26, must_be_document=True, listed_regular=True)

    def json_loads() -> None:
        for blob in blobs:
            json.loads(_line(blob, _META))
            json.loads(_line(blob, _DETAILS))

    def msgspec_decode() -> None:
        for blob in blobs:
            fast._DETAILS.decode(_line(blob, _DETAILS))
            fast._META.decode(_line(blob, _META))

    def fast_lane() -> None:
        for path, blob in zip(paths, blobs):
            fast.fast_document(path, blob)

    metas = [fast._META.decode(_line(blob, _META)) for blob in blobs]

    def meta_checks() -> None:
        for meta, document in zip(metas, documents):
            check_meta(meta, document.columns, ParsedDocument(document.path, "", "", "", "current"), {})

    def columns_built() -> None:
        builder = CorpusBuilder(distinct=False)
        for i, document in enumerate(documents, 1):
            builder.add(document)
            if i % CHUNK == 0:
                builder.part()
        builder.part()

    return {
        "floor: glob": lambda: document_paths(tree),
        "floor: reads": plain_reads,
        "floor: json.loads": json_loads,
        "load: walk (stat and list every directory)": lambda: find_candidates([tree], LoadReport(), {}),
        "load: safe reads": safe_reads,
        "load: fast lane (decode, checks, columns)": fast_lane,
        "  of which msgspec's decode": msgspec_decode,
        "  of which the meta summary's check": meta_checks,
        "load: columns built (a part per chunk)": columns_built,
    }


def main() -> None:
    parser = tree_parser(__doc__)
    args = parser.parse_args()
    work = stages(args.tree.resolve())
    times: dict[str, list[float]] = {name: [] for name in work}
    gc.disable()
    for _ in range(args.rounds):
        for name, stage in work.items():
            start = time.perf_counter()
            stage()
            times[name].append(time.perf_counter() - start)
    print(f"[{args.tree.name}] one process, gc off, medians of {args.rounds} rounds:")
    for name, found in times.items():
        print(f"  {name:<46} {statistics.median(found):6.2f} s")


if __name__ == "__main__":
    main()
