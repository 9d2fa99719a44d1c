"""When diagnostics are computed: per document at most one check waits, a new request replacing it (typing
debounced: `DEBOUNCE` seconds of quiet first); checks run one at a time in one worker thread (the corrector is
not shared between threads, and the event loop keeps answering requests meanwhile); and a result whose
document has changed since (a newer version, new settings or words) is dropped, never published."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

DEBOUNCE = 0.25  # seconds of quiet after a change before the document is checked


class Scheduler:
    def __init__(self) -> None:
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="typofix-check")
        self.pending: dict[str, asyncio.Task] = {}

    async def run(self, work: Callable[[], Any]) -> Any:
        """`work()` in the worker thread, after the checks queued before it."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, work)

    def schedule(self, key: str, delay: float, work: Callable[[], Any], still_current: Callable[[], bool],
                 publish: Callable[[Any], None], failed: Callable[[Exception], None]) -> None:
        """Run `work()` in the worker after `delay` seconds unless scheduled again for `key` first; hand its
        result to `publish` if `still_current()` says it is still wanted then, an error to `failed`."""
        self.cancel(key)
        self.pending[key] = asyncio.get_running_loop().create_task(
            self._later(key, delay, work, still_current, publish, failed))

    def cancel(self, key: str) -> None:
        task = self.pending.pop(key, None)
        if task is not None:
            task.cancel()

    async def _later(self, key, delay, work, still_current, publish, failed) -> None:
        try:
            if delay:
                await asyncio.sleep(delay)
            try:
                result = await self.run(work)
            except Exception as error:  # reported to the client; the server goes on
                failed(error)
                return
            if still_current():
                publish(result)
        finally:
            if self.pending.get(key) is asyncio.current_task():
                del self.pending[key]

    def close(self) -> None:
        for key in list(self.pending):
            self.cancel(key)
        self.executor.shutdown(wait=False, cancel_futures=True)
