"""The served page in a headless Chromium, when one is on the machine: `make screenshots` calls it.

Not needed by `make test`: without a Chromium it says so and skips the picture.
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import aiohttp

from cachetui.core.load.sample import sample_path

BROWSERS = ("chromium", "chromium-browser", "chromium-headless-shell", "google-chrome", "chrome-headless-shell")
START_S = 60  # the server loads the sample before it listens
SHOT_S = 120
DRAW_S = 4.0


def find_browser() -> str | None:
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def served_page(out: Path) -> bool:
    """Serve the sample on 127.0.0.1 and photograph its page; False (and a line saying why) without a Chromium."""
    browser = find_browser()
    if browser is None:
        print(f"{out.name}: skipped, no Chromium on this machine (for example: apt-get install chromium)")
        return False
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        server = subprocess.Popen(
            [sys.executable, "-c", "from cachetui.cli.main import main; raise SystemExit(main())",
             "serve", "--port", "0", str(sample_path())],
            stdout=subprocess.PIPE, text=True, env=env, start_new_session=True,
        )
        try:
            url = _address(server)
            asyncio.run(_photograph(browser, url, out))
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=START_S)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
    print(f"screenshots/{out.name}")
    return True


async def _photograph(browser: str, url: str, out: Path) -> None:
    """Open the page in a headless Chromium, wait (bounded) until the session has drawn its packages, save a PNG.

    Driven over the DevTools protocol: `--screenshot` alone fires before the websocket session has drawn.
    """
    with tempfile.TemporaryDirectory() as profile:
        chromium = await asyncio.create_subprocess_exec(
            browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--user-data-dir={profile}",
            "--window-size=1280,760", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
            "about:blank", stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, start_new_session=True)
        try:
            await asyncio.wait_for(_drive(chromium, url, out), SHOT_S)
        finally:
            os.killpg(chromium.pid, signal.SIGKILL)  # its renderer and GPU processes too, which hold its stderr
            await chromium.wait()


async def _drive(chromium: asyncio.subprocess.Process, url: str, out: Path) -> None:
    assert chromium.stderr is not None
    while not (line := (await chromium.stderr.readline()).decode()).startswith("DevTools listening on "):
        if not line:
            raise RuntimeError("Chromium did not start its DevTools endpoint")
    devtools = line.removeprefix("DevTools listening on ").strip()
    async with aiohttp.ClientSession() as http:
        pages = await (await http.get(devtools.replace("ws://", "http://").split("/devtools/")[0] + "/json")).json()
        page = next(p for p in pages if p["type"] == "page")
        async with http.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            ids = iter(range(1, 1_000_000))

            async def call(method: str, **params: object) -> dict[str, object]:
                number = next(ids)
                await ws.send_json({"id": number, "method": method, "params": params})
                while True:
                    message = await ws.receive_json()
                    if message.get("id") == number:
                        return message.get("result", {})

            await call("Page.enable")
            await call("Page.navigate", url=url)
            # The terminal draws on a canvas, so its text is not in the page: wait for its first bytes,
            # then give the session (warm: well under a second here) time to draw its packages.
            drawn = "!!document.body && ['-first-byte', '-closed'].some(c => document.body.classList.contains(c))"
            while not (await call("Runtime.evaluate", expression=drawn, returnByValue=True))["result"].get("value"):  # type: ignore[attr-defined]
                await asyncio.sleep(0.2)  # polled; the whole wait is bounded by SHOT_S
            await asyncio.sleep(DRAW_S)
            shot = await call("Page.captureScreenshot", format="png")
            out.write_bytes(base64.b64decode(str(shot["data"])))


def _address(server: subprocess.Popen[str]) -> str:
    """The address the server prints once it listens (read in a thread: a silent server is an error, not a hang)."""
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(server.stdout.readline() if server.stdout else ""),
                              daemon=True)
    reader.start()
    reader.join(START_S)
    found = re.search(r"http://\S+", lines[0]) if lines else None
    if found is None:
        raise RuntimeError("cachetui serve printed no address")
    return found.group(0)


if __name__ == "__main__":
    served_page(Path(__file__).resolve().parent.parent / "screenshots" / "served-page.png")
