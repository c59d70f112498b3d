"""`cachetui serve` with many visitors at once: memory of the server's whole process tree, and each visitor's wait.

    python benchmarks/serve_bench.py TREE [--visitors 8] [--rounds 3]

Each round starts `cachetui serve TREE` (the cache warmed first, as on a site after its first
start), then opens `--visitors` websockets at once, as the page does (its Origin, a resize), and
times each from its websocket's open to the first frame showing the loaded package list (the
status line's document and spec counts). Then: the proportional set size (PSS) summed over the
server's process tree, before any visitor and with all of them; every visitor answers a key; one
visitor's app is killed, and the tree's PSS is measured again, and the others must still answer
keys. Medians over rounds.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
from aiohttp import WSMsgType

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.harness import tree_parser  # noqa: E402
from cachetui.core.load import load_corpus  # noqa: E402
from cachetui.core.load.cache import CorpusCache  # noqa: E402
from cachetui.core.spack.words import counted  # noqa: E402

PSS_TARGET_MB = 1500.0
SLOWEST_TARGET_S = 10.0
DEADLINE_S = 300.0
ANSI = re.compile(r"\x1b\[[0-9;?<>=$ ]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Z]|\x1b[=>78]")
SIZE = {"width": 160, "height": 45}


def tree_pids(pid: int) -> list[int]:
    """The process and all its descendants (Linux: /proc/PID/task/TID/children)."""
    found, waiting = [], [pid]
    while waiting:
        current = waiting.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                waiting += [int(child) for child in (task / "children").read_text().split()]
            except OSError:
                pass
    return found


def pss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue  # ended meanwhile
        total += next(int(line.split()[1]) for line in text.splitlines() if line.startswith("Pss:"))
    return total / 1024


class Visitor:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws, self.raw, self.closed = ws, bytearray(), False

    def text(self) -> str:
        return ANSI.sub("", self.raw[-200_000:].decode("utf-8", "replace"))

    async def until(self, shows: str) -> None:
        deadline = time.monotonic() + DEADLINE_S
        while shows not in self.text():
            if time.monotonic() > deadline or self.closed:
                raise RuntimeError(f"never saw {shows!r} (closed: {self.closed}): {self.text()[-400:]!r}")
            try:
                message = await self.ws.receive(timeout=1.0)
            except asyncio.TimeoutError:
                continue
            if message.type == WSMsgType.BINARY:
                self.raw += message.data
            elif message.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.ERROR):
                self.closed = True


async def _open(http: aiohttp.ClientSession, url: str, marker: str) -> tuple[Visitor, float]:
    start = time.perf_counter()
    ws = await http.ws_connect(f"{url}/ws?width={SIZE['width']}&height={SIZE['height']}", origin=url,
                               max_msg_size=0)
    visitor = Visitor(ws)
    await ws.send_json(["resize", SIZE])
    await visitor.until(marker)
    return visitor, time.perf_counter() - start


async def _answers(visitor: Visitor, word: str) -> None:
    await visitor.ws.send_json(["stdin", "/" + word])
    await visitor.until(word)


async def _round(url: str, server_pid: int, visitors: int, marker: str) -> dict[str, float]:
    before = pss_mb(tree_pids(server_pid))
    async with aiohttp.ClientSession() as http:
        opened = await asyncio.gather(*(_open(http, url, marker) for _ in range(visitors)))
        waits = [seconds for _, seconds in opened]
        pids = tree_pids(server_pid)
        apps = [pid for pid in pids if pid != server_pid]
        full = pss_mb(pids)
        await asyncio.gather(*(_answers(v, f"zq{n}x") for n, (v, _) in enumerate(opened)))
        os.kill(apps[0], signal.SIGKILL)
        deadline = time.monotonic() + DEADLINE_S
        while apps[0] in tree_pids(server_pid):
            assert time.monotonic() < deadline, "the killed app never went"
            await asyncio.sleep(0.1)
        after_kill = pss_mb(tree_pids(server_pid))
        # The killed app's visitor sees its page closed; every other answers its key.
        results = await asyncio.gather(*(_answers(v, f"qz{n}y") for n, (v, _) in enumerate(opened)),
                                       return_exceptions=True)
        answered = sum(1 for result in results if not isinstance(result, BaseException))
        for v, _ in opened:
            await v.ws.close()
    return {"server_pss_mb": before, "pss_mb": full, "per_visitor_mb": (full - before) / visitors,
            "slowest_s": max(waits), "median_wait_s": statistics.median(waits), "after_kill_pss_mb": after_kill,
            "answered_after_kill": answered}


def measure_serve(root: Path, visitors: int, rounds: int) -> dict[str, float]:
    """Medians over rounds; each round a fresh server on a warm cache."""
    runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as cache_home:
        env = dict(os.environ, XDG_CACHE_HOME=cache_home)
        subprocess.run([sys.executable, "-m", "cachetui", "check", str(root)], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        corpus = load_corpus([str(root)], cache=CorpusCache(Path(cache_home) / "cachetui"))  # the marker's
        marker = f"{counted(len(corpus.documents), 'doc')} · {counted(corpus.n_specs, 'spec')}"
        del corpus
        for _ in range(rounds):
            server = subprocess.Popen([sys.executable, "-m", "cachetui", "serve", "--port", "0", "--max-sessions",
                                       str(visitors), str(root)], stdout=subprocess.PIPE, text=True, env=env,
                                      start_new_session=True)
            try:
                line = server.stdout.readline() if server.stdout else ""
                found = re.search(r"http://127\.0\.0\.1:\d+", line)
                assert found, line
                runs.append(asyncio.run(_round(found.group(0), server.pid, visitors, marker)))
                runs[-1]["load_avg"] = os.getloadavg()[0]
            finally:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=60)
    return {f"serve_{key}": statistics.median(run[key] for run in runs) for key in runs[0]} | {
        "serve_visitors": visitors, "serve_rounds": rounds}


def serve_line(tree: str, r: dict[str, float]) -> str:
    return (f"[{tree}] serve, {r['serve_visitors']:.0f} visitors at once: PSS of the process tree "
            f"{r['serve_pss_mb']:.0f} MB (target <= {PSS_TARGET_MB:g}; the server alone "
            f"{r['serve_server_pss_mb']:.0f} MB, each visitor {r['serve_per_visitor_mb']:.0f} MB), "
            f"slowest usable screen {r['serve_slowest_s']:.1f} s "
            f"(target <= {SLOWEST_TARGET_S:g}; median {r['serve_median_wait_s']:.1f} s); one app killed: "
            f"{r['serve_after_kill_pss_mb']:.0f} MB, {r['serve_answered_after_kill']:.0f} others still answer; "
            f"load average {r['serve_load_avg']:.2f}")


def main() -> None:
    parser = tree_parser(__doc__)
    parser.add_argument("--visitors", type=int, default=8)
    args = parser.parse_args()
    result = measure_serve(args.tree.resolve(), args.visitors, args.rounds)
    print(serve_line(args.tree.name, result))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
