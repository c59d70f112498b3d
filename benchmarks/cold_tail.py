"""A cold load's tail: from its last document read to the corpus ready and its cache file written.

    python benchmarks/cold_tail.py TREE [--rounds N] [--before REF]

In that tail the parsers' other processes have finished and only this one works (laying the model
out, encoding the cache file's strings, syncing the file), so all of it adds to a cold start, where
work done while the documents are read is shared with the other core. Each round is a process of
its own (compiled code, an empty cache directory) that loads TREE with `load_corpus` and hears its
progress: the tail starts when the load says "indexing the specs". With `--before REF`, REF is
checked out in a temporary git worktree and its code runs too, alternating with the working
tree's in each round, so both lines come from one run. Medians.
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.harness import checked_out, tree_parser  # noqa: E402

_ROUND = """
import sys, tempfile, time
from pathlib import Path
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.pipeline import load_corpus
from cachetui.core.load.progress import INDEXING

tail = []
def progress(done, total, phase):
    if phase == INDEXING and not tail:
        tail.append(time.perf_counter())

with tempfile.TemporaryDirectory() as cache:
    start = time.perf_counter()
    load_corpus([sys.argv[1]], progress=progress, cache=CorpusCache(Path(cache)))
    end = time.perf_counter()
print(end - start, end - tail[0])
"""


def one_round(tree: Path, code: Path) -> tuple[float, float]:
    """A cold load of `tree` by the code under `code`, in a process of its own: its seconds, and its tail's."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(code)
    done = subprocess.run([sys.executable, "-c", _ROUND, str(tree)], env=env, capture_output=True, text=True,
                          check=True, cwd=tempfile.gettempdir())  # not the repo: `import cachetui` from PYTHONPATH
    total, tail = map(float, done.stdout.split())
    return total, tail


def measure(tree: Path, rounds: int, codes: tuple[Path, ...]) -> list[tuple[float, float]]:
    """For each code tree, the medians of a cold load and of its tail (s); the code trees alternate in each round."""
    for code in codes:
        compileall.compile_dir(code / "cachetui", quiet=1)
    found: list[list[tuple[float, float]]] = [[] for _ in codes]
    for _ in range(rounds):
        for code, times in zip(codes, found):
            times.append(one_round(tree, code))
    return [(statistics.median(t for t, _ in times), statistics.median(t for _, t in times)) for times in found]


def main() -> None:
    parser = tree_parser(__doc__)
    parser.add_argument("--before", metavar="REF", help="also run REF's code, alternating, in the same rounds")
    args = parser.parse_args()
    tree = args.tree.resolve()
    if args.before is None:
        ((total, tail),) = measure(tree, args.rounds, (HERE.parent,))
        print(f"[{tree.name}] cold load {total:.2f} s, of which its tail after the last document {tail:.3f} s")
        return
    with checked_out(args.before) as before:
        results = measure(tree, args.rounds, (before, HERE.parent))
    for label, (total, tail) in zip((args.before, "working tree"), results):
        print(f"{label}: [{tree.name}] cold load {total:.2f} s, of which its tail after the last document {tail:.3f} s")


if __name__ == "__main__":
    main()
