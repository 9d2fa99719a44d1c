"""Helpers for the attention explorer's tests: a real `typofix serve` subprocess, and Debian's headless Chromium
(one-shot --dump-dom and --screenshot, or driven over its DevTools pipe to click and hover).

`python -m tests.explorer OUT.png [PATH_AND_QUERY]` (what `make screenshot` runs) starts `typofix serve` with
the bundled model on a free port and writes Chromium's screenshot of the page, /?q=recieve by default.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
# Headless, and none of the background connections (updates, sync, safe browsing) this closed network refuses.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]
# Virtual time: Chromium fast-forwards timers and waits for the page's fetches, then dumps or shoots.
BUDGET_MS = 20_000
TIMEOUT_S = 120  # the most a DevTools answer may take before a test gives up (instead of hanging)


@contextmanager
def served(*args: str, timeout: float = 120) -> Iterator[tuple[str, subprocess.Popen]]:
    """(base URL, process) of `typofix serve --port 0 ARGS` running for the block; stopped with SIGINT (Ctrl-C)
    afterwards, and checked to stop cleanly."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, "-m", "typofix", "serve", "--port", "0", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=_like_a_terminal)
    try:
        line = process.stdout.readline()  # "typofix serve: http://127.0.0.1:PORT/ (...); Ctrl-C stops"
        if not line.startswith("typofix serve: http://"):
            process.kill()
            raise RuntimeError(f"typofix serve did not start: {line}{process.stderr.read()}")
        yield line.split()[2].rstrip("/"), process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _like_a_terminal() -> None:
    """Ctrl-C reaches the server as it does in a terminal. A shell starts background jobs (`make test &`,
    `nohup`) with SIGINT ignored, children inherit that, and Python then never turns SIGINT into
    KeyboardInterrupt: the stop would wait out its timeout and fail although the server is fine."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _profile() -> tempfile.TemporaryDirectory:
    """A throw-away Chromium profile folder. Chromium's helper processes may still write into it for a moment
    after the browser has exited, so a folder that will not go away at once is left to the system's /tmp."""
    return tempfile.TemporaryDirectory(prefix="typofix-chromium-", ignore_cleanup_errors=True)


def chromium(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run headless Chromium with a throw-away profile."""
    with _profile() as profile:
        return subprocess.run([str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                               f"--virtual-time-budget={BUDGET_MS}", *args],
                              capture_output=True, text=True, timeout=timeout)


def dump_dom(url: str) -> str:
    """The page's DOM once its script has run (Chromium's --dump-dom)."""
    done = chromium("--dump-dom", url)
    if done.returncode != 0 or "<html" not in done.stdout:
        raise RuntimeError(f"chromium --dump-dom failed (exit {done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def screenshot(url: str, out: str | Path, width: int = 1200, height: int = 760) -> Path:
    """Chromium's screenshot of `url` at a window of width x height, written atomically to `out`."""
    from typofix.files.atomic import atomic_path

    out = Path(out)
    with atomic_path(out) as tmp:
        done = chromium(f"--screenshot={tmp}", f"--window-size={width},{height}", url)
        if done.returncode != 0 or not tmp.is_file():
            raise RuntimeError(f"chromium --screenshot failed (exit {done.returncode}): {done.stderr[-2000:]}")
    return out


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages
    separated by NUL bytes on file descriptors 3 and 4), standard library only: open a page, run a script in it.
    For what --dump-dom cannot do: click, hover, type."""

    def __init__(self):
        self._profile = _profile()
        to_browser, self._send_fd = os.pipe()
        self._recv_fd, from_browser = os.pipe()
        actions = [(os.POSIX_SPAWN_DUP2, to_browser, 3), (os.POSIX_SPAWN_DUP2, from_browser, 4),
                   (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
        args = [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={self._profile.name}", "--remote-debugging-pipe",
                "--window-size=1200,900", "about:blank"]
        self.pid = os.posix_spawn(str(CHROMIUM), args, os.environ, file_actions=actions)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._next_id = b"", 0
        page = next(t for t in self._call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self._session = self._call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self._call("Page.enable", self._session)

    def _send(self, method: str, session: str | None, params: dict) -> int:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._send_fd, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _receive(self) -> dict:
        while b"\0" not in self._buffer:
            if not select.select([self._recv_fd], [], [], TIMEOUT_S)[0]:
                raise RuntimeError(f"chromium sent nothing for {TIMEOUT_S} s")
            chunk = os.read(self._recv_fd, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def _call(self, method: str, session: str | None = None, **params) -> dict:
        sent = self._send(method, session, params)
        while (reply := self._receive()).get("id") != sent:  # events in between are not needed
            pass
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def goto(self, url: str) -> None:
        """Open `url` and wait for its load event (the page's script then still fetches: see `wait_for`)."""
        self._send("Page.navigate", self._session, {"url": url})
        while self._receive().get("method") != "Page.loadEventFired":
            pass

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self._call("Runtime.evaluate", self._session, expression=expression, awaitPromise=True,
                            returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, condition: str, seconds: float = 30):
        """Poll a JavaScript expression in the page until it is truthy; its value."""
        return self.evaluate(f"""(async () => {{
            for (let i = 0; i < {int(seconds * 20)}; i++) {{
                const value = {condition};
                if (value) return value;
                await new Promise((resolve) => setTimeout(resolve, 50));
            }}
            throw new Error("timed out waiting for " + {json.dumps(condition)});
        }})()""")

    def hover(self, selector: str) -> None:
        """Move the mouse to the middle of the element `selector` picks (real input events, as a person's)."""
        x, y = self.evaluate(f"""(() => {{
            const box = document.querySelector({json.dumps(selector)}).getBoundingClientRect();
            return [box.x + box.width / 2, box.y + box.height / 2]; }})()""")
        self._call("Input.dispatchMouseEvent", self._session, type="mouseMoved", x=x, y=y)
        self._xy = (x, y)

    def click(self, selector: str) -> None:
        """Press and release the left mouse button over the element `selector` picks."""
        self.hover(selector)
        for kind in ("mousePressed", "mouseReleased"):
            self._call("Input.dispatchMouseEvent", self._session, type=kind, x=self._xy[0], y=self._xy[1],
                       button="left", clickCount=1)

    def close(self) -> None:
        os.close(self._send_fd)  # Chromium quits when its pipe closes
        os.close(self._recv_fd)
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        self._profile.cleanup()

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "docs/explorer.png"
    page = sys.argv[2] if len(sys.argv) > 2 else "/?q=recieve"
    with served() as (base, _):
        print(f"wrote {screenshot(base + page, target)}")
