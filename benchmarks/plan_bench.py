#!/usr/bin/env python3
"""`plan`'s cost: a 302-root environment against the 120,000-record mirror and the bundled sample, on a warm load.

    .venv/bin/python benchmarks/plan_bench.py [--rounds 7] [--roots 302]

Target (issue 42): at most 1 s added to the warm load. The mirror is benchmarks/generate_mirror.py's (seed 0).
The environment (generated here, never committed) is what real ones hold: roots written as bare names, with a
version range, with a variant a binary records, in a matrix against two compilers, through a definition; some of
packages no source holds; `packages: all: require: target=…` and a package's own `require`/`prefer`. Each round
runs two fresh processes, alternating: a warm load alone, and a warm load then the environment read and planned
(`read_environment` and `plan`, as `cachetui plan` runs them); the medians are printed side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.harness import child
from benchmarks.mirror_bench import _blob, mirror_dir
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.pipeline import load_corpus
from cachetui.core.load.sample import sample_path

TARGET_S = 1.0

RUN = """
import time
from pathlib import Path
start = time.perf_counter()
from cachetui.core.load import LoadOptions, load_corpus, read_environment
from cachetui.core.load.cache import CorpusCache
from cachetui.core.query.plan import plan
from cachetui.core.spack.arch import parse_arch
corpus = load_corpus({sources!r}, LoadOptions(use_cache=True), cache=CorpusCache(Path({cache!r})))
loaded = time.perf_counter()
assert corpus.cache_status == "hit", corpus.cache_status
said = "-"
if {planned}:
    arch = parse_arch({arch!r})
    found = plan(corpus, read_environment({env!r}, 2**30, arch), arch)
    said = found.summary()
print(time.perf_counter() - start, time.perf_counter() - loaded, said, sep="\\t")
"""


def environment(mirror: Path, roots: int, out: Path, seed: int = 0) -> str:
    """A spack.yaml of `roots` roots over the mirror's packages (and a few it lacks); returns the arch planned for."""
    installs = json.loads(_blob(mirror).read_bytes())["database"]["installs"]
    rng = random.Random(seed)
    held = [r["spec"] for r in installs.values() if r.get("in_buildcache")]
    arch = held[0]["arch"]
    target = arch["target"] if isinstance(arch["target"], str) else arch["target"]["name"]
    specs: list[str] = []
    matrix_names: list[str] = []
    while len(specs) + 2 * len(matrix_names) < roots - 20:
        spec = rng.choice(held)
        kind = rng.randrange(4)
        if kind == 0:
            specs.append(spec["name"])
        elif kind == 1:
            specs.append(f"{spec['name']}@{spec['version'].split('.')[0]}:")
        elif kind == 2:
            variants = [(k, v) for k, v in spec.get("parameters", {}).items()
                        if isinstance(v, bool) and k not in ("patches",)]
            k, v = rng.choice(variants) if variants else ("", True)
            specs.append(f"{spec['name']} {'+' if v else '~'}{k}" if k else spec["name"])
        else:
            matrix_names.append(spec["name"])
    specs += [f"not-in-any-cache-{k}" for k in range(10)]
    by_name: dict[str, list[dict]] = {}
    for spec in held:
        by_name.setdefault(spec["name"], []).append(spec)
    # A package's own `require` (a version range all its binaries are in) and `prefer`, for its most held package.
    own = max(by_name, key=lambda name: len(by_name[name]))
    oldest = min(int(s["version"].split(".")[0]) for s in by_name[own] if s["version"].split(".")[0].isdigit())
    defined = [rng.choice(held)["name"] for _ in range(roots - len(specs) - 2 * len(matrix_names))]
    document = {"spack": {
        "definitions": [{"defined": defined}],
        "specs": [*specs, "$defined", {"matrix": [matrix_names, ["%gcc", "%clang"]]}],
        "packages": {"all": {"require": [f"target={target}"]},
                     own: {"require": [f"@{oldest}:"], "prefer": ["+shared"]}},
        "concretizer": {"reuse": True},
    }}
    out.write_text(yaml.safe_dump(document, sort_keys=False))
    return f"{arch['platform']}-{arch['platform_os']}-{target}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--roots", type=int, default=302)
    args = parser.parse_args(argv)
    mirror = mirror_dir()
    sources = [str(mirror), str(sample_path())]
    with tempfile.TemporaryDirectory() as home:
        env = Path(home) / "spack.yaml"
        arch = environment(mirror, args.roots, env)
        cache = Path(home) / "cachetui"
        load_corpus(sources, cache=CorpusCache(cache))  # the warm cache, written once
        times: dict[bool, list[float]] = {False: [], True: []}
        planning: list[float] = []
        summary = ""
        for _ in range(args.rounds):
            for planned in (False, True):
                code = RUN.format(sources=sources, cache=str(cache), env=str(env), arch=arch, planned=planned)
                total, after_load, *said = child(code, dict(os.environ))
                times[planned].append(float(total))
                if planned:
                    planning.append(float(after_load))
                    summary = " ".join(said)
    alone, with_plan = statistics.median(times[False]), statistics.median(times[True])
    added = with_plan - alone
    print(f"plan of a {args.roots}-root environment against {mirror.name} and the bundled sample, for {arch}: "
          f"{summary}")
    print(f"medians of {args.rounds} rounds, fresh processes, alternating")
    print("| warm load | warm load + plan | added (target ≤ 1 s) | reading and planning alone |",
          "|---|---|---|---|", sep="\n")
    print(f"| {alone:.2f} s | {with_plan:.2f} s | {added:+.2f} s | {statistics.median(planning):.2f} s |")
    print(f"target: {'met' if added <= TARGET_S else 'missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
