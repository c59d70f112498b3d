"""`^dep` over binaries whose sources record no dependencies: unknown, not none, and said so.

Site listing documents record no dependencies; mirror indexes do. A `^` asked of a corpus with
both finds only mirror binaries, so whenever listing binaries are among those it is asked of, the
answer says how many: the CLI on stderr, the browser beside the query line, in the same words
(`unknown_dependencies`).
"""

from __future__ import annotations

import numpy as np

from cachetui.core.model.corpus import Corpus


def unknown_dependencies(corpus: Corpus, scope: slice, asked: np.ndarray, constraint: str, among: str,
                         where: str = "") -> str | None:
    """What `constraint` (`^zlib`) cannot tell of the binaries it is asked of: `asked`, a mask over the
    scope, described by `among` (`hdf5 +mpi`; "" for any) and `where` (`in the comparison`; "" for
    every binary loaded). None when it can tell of every one."""
    unknown = int(np.count_nonzero(asked & ~corpus.dependencies_recorded[scope]))
    if not unknown:
        return None
    return unknown_dependencies_text(unknown, int(np.count_nonzero(asked)), constraint, among, where)


def unknown_dependencies_text(unknown: int, asked: int, constraint: str, among: str = "", where: str = "") -> str:
    """`362 of the 369 binaries loaded come from listing documents, which record no dependencies: ^zlib
    is unknown for them`; `all 91 py-mpi4py binaries come from …`."""
    noun = "binary" if asked == 1 else "binaries"
    described = " ".join(filter(None, (among, noun, where or ("" if among else "loaded"))))
    if unknown == asked:
        who = f"the {described}" if asked == 1 else f"all {asked} {described}"
    else:
        who = f"{unknown} of the {asked} {described}"
    if unknown == 1:
        return f"{who} comes from a listing document, which records no dependencies: {constraint} is unknown for it"
    return f"{who} come from listing documents, which record no dependencies: {constraint} is unknown for them"
