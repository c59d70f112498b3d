"""Child process for the warm-start benchmark: open the app, print READY at the first usable frame.

    READY <cache status> <peak RSS kB> <seconds> <imports done> <load began> <load ended>

all in seconds from this process's start: the imports, the load (in the app's thread, while the
screen is composed) and what is left, the first frame built from the corpus.
"""

import time

START = time.perf_counter()

import asyncio  # noqa: E402
import sys  # noqa: E402

import cachetui.core.load  # noqa: E402
from cachetui.app.app import CacheTuiApp  # noqa: E402
from cachetui.app.widgets.spec_table import SpecTable  # noqa: E402
from cachetui.core.load import LoadOptions  # noqa: E402

IMPORTED = time.perf_counter()
LOADS: list[tuple[float, float]] = []
_load = cachetui.core.load.load_dating_later  # the browser's load (a mirror read cold is dated after it)


def _timed_load(*args: object, **kwargs: object) -> object:
    began = time.perf_counter()
    loaded = _load(*args, **kwargs)  # type: ignore[arg-type]
    LOADS.append((began, time.perf_counter()))
    return loaded


cachetui.core.load.load_dating_later = _timed_load  # type: ignore[assignment]


async def main(path: str) -> None:
    app = CacheTuiApp([path], LoadOptions(use_cache=True), system_clipboard=False)  # as the CLI opens it
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(2000):  # a warm start shows the glance first: the browser takes its place once loaded
            await app.workers.wait_for_complete()
            await pilot.pause()
            screen = app.screen
            if screen.query(SpecTable) and screen.query_one(SpecTable).row_count > 0:
                break
        table = app.screen.query_one(SpecTable)
        assert table.row_count > 0, "the table must be filled"
        status = app.browser.corpus.cache_status
        # VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec from the parent process.
        rss = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM"))
        (began, ended), = LOADS
        phases = " ".join(f"{moment - START:.3f}" for moment in (IMPORTED, began, ended))
        print(f"READY {status} {rss} {time.perf_counter() - START:.3f} {phases}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
