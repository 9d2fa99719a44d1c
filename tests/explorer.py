"""Helpers for the attention explorer's tests: a real `typofix serve` subprocess, and Debian's headless Chromium.

`python -m tests.explorer OUT.png [PATH_AND_QUERY]` (what `make screenshot` runs) starts `typofix serve` with
the bundled model on a free port and writes Chromium's screenshot of the page, /?q=recieve by default.
"""

from __future__ import annotations

import os
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


@contextmanager
def served(*args: str, timeout: float = 120) -> Iterator[tuple[str, subprocess.Popen]]:
    """(base URL, process) of `typofix serve --port 0 ARGS` running for the block; stopped with SIGINT (Ctrl-C)
    afterwards, and checked to stop cleanly."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, "-m", "typofix", "serve", "--port", "0", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
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


def chromium(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run headless Chromium with a throw-away profile."""
    with tempfile.TemporaryDirectory(prefix="typofix-chromium-") as profile:
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
    from typofix.atomic import atomic_path

    out = Path(out)
    with atomic_path(out) as tmp:
        done = chromium(f"--screenshot={tmp}", f"--window-size={width},{height}", url)
        if done.returncode != 0 or not tmp.is_file():
            raise RuntimeError(f"chromium --screenshot failed (exit {done.returncode}): {done.stderr[-2000:]}")
    return out


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "docs/explorer.png"
    page = sys.argv[2] if len(sys.argv) > 2 else "/?q=recieve"
    with served() as (base, _):
        print(f"wrote {screenshot(base + page, target)}")
