"""Where a cold load's memory goes: run in a fresh process, print one JSON line.

    python benchmarks/memory.py TREE

Peak and settled RSS come from /proc (VmHWM, VmRSS); the model's parts are sized directly:
numpy buffers by `nbytes`, Python containers and the strings they hold by `sys.getsizeof`.
"transient" is what the load needed on top of what it keeps (peak minus settled RSS). Worker
processes are separate: the largest one's peak is `ru_maxrss` of the reaped children.
"""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cachetui.core.load.pipeline import load_corpus  # noqa: E402
from cachetui.core.model.corpus import Corpus  # noqa: E402

MB = 2**20


def _status(field: str) -> float:
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith(field)) / 1024


def _strings(values: list[str]) -> int:
    return sys.getsizeof(values) + sum(map(sys.getsizeof, values))


def _arrays(*arrays: np.ndarray) -> int:
    return sum(a.nbytes for a in arrays)


def parts(corpus: Corpus) -> dict[str, float]:
    """Bytes (MB) of each part of the model."""
    deps = corpus.deps
    columns = _arrays(*corpus.single.values(), corpus.package_of, corpus.document_of, corpus.size,
                      *(a for m in corpus.multi.values() for a in (m.offsets, m.flat, m.owner)))
    dependencies = _arrays(deps.offsets, deps.hash, deps.types, deps.virtuals, deps.name_of, deps.version_of)
    vocabularies = sum(_strings(v.values) + sys.getsizeof(v.ids) for v in corpus.vocab.values())
    documents = sys.getsizeof(corpus.documents) + sum(
        sys.getsizeof(d) + sys.getsizeof(d.path) + sys.getsizeof(d.title) for d in corpus.documents)
    return {
        "columns_mb": columns / MB, "dependencies_mb": dependencies / MB, "hashes_mb": _strings(corpus.hashes) / MB,
        "vocabularies_mb": vocabularies / MB, "documents_mb": documents / MB,
    }


def main() -> None:
    base = _status("VmRSS")
    corpus = load_corpus([sys.argv[1]])
    settled, peak = _status("VmRSS"), _status("VmHWM")
    out = {"imports_rss_mb": base, "settled_rss_mb": settled, "peak_rss_mb": peak,
           "transient_mb": peak - settled,
           "worker_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, "specs": corpus.n_specs, **parts(corpus)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
