"""cachetui: a keyboard-driven terminal browser for Spack binary build caches."""

import os

# numpy's OpenBLAS starts a thread per core as numpy is imported, and each spins for ~0.1 CPU s before it sleeps
# (docs/performance.md): on two cores, CPU taken from a cold load's parsing processes. cachetui does no linear
# algebra, so one thread (none started) loses nothing; a user's own setting stands. Set here, first, because
# nothing has imported numpy yet.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
