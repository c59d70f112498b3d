"""Child process for the warm-start benchmark: open the app, print READY at the first usable frame."""

import time

START = time.perf_counter()

import asyncio  # noqa: E402
import sys  # noqa: E402

from cachetui.app.app import CacheTuiApp  # noqa: E402
from cachetui.app.widgets.spec_table import SpecTable  # noqa: E402
from cachetui.core.load import LoadOptions  # noqa: E402


async def main(path: str) -> None:
    app = CacheTuiApp([path], LoadOptions(use_cache=True), system_clipboard=False)  # as the CLI opens it
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one(SpecTable)
        assert table.row_count > 0, "the table must be filled"
        status = app.browser.corpus.cache_status
        # VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec from the parent process.
        rss = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM"))
        print(f"READY {status} {rss} {time.perf_counter() - START:.3f}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
