"""Several cores for big inputs: `--jobs N` runs N worker processes, each with its own Corrector, and hands
back their results in input order, so the output is exactly that of one process.

Processes, not threads: the search is Python and numpy between model calls, and the GIL would serialise it.
Workers are spawned (not forked): a parent that already opened onnxruntime sessions must not be copied.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from typofix.engine.results import Suggestion
from typofix.engine.settings import DecodingSettings


@dataclass(frozen=True)
class CorrectorRecipe:
    """What a worker needs to build the same Corrector as the parent (picklable: paths and settings)."""

    model: str | Path | None = None
    settings: DecodingSettings = DecodingSettings()
    user_words: tuple[str, ...] = field(default_factory=tuple)

    def load(self):
        from typofix.engine.corrector import Corrector

        return Corrector.load(self.model, settings=self.settings, user_words=self.user_words)


_worker_corrector = None  # one per worker process, built by `_start_worker`


def _start_worker(recipe: CorrectorRecipe) -> None:
    global _worker_corrector
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # N workers share N cores: one thread each
    _worker_corrector = recipe.load()


def _correct_many(texts: list[str]) -> list[str]:
    return _worker_corrector.correct_many(texts)


def _suggest_many(args: tuple[list[str], int, bool]) -> list[list[Suggestion]]:
    words, k, with_typo = args
    return _worker_corrector.suggest_many(words, k, with_typo)


class CorrectorPool:
    """N worker processes that each hold a Corrector built from `recipe`; results come back in order."""

    def __init__(self, recipe: CorrectorRecipe, jobs: int):
        if jobs < 2:
            raise ValueError(f"a pool needs at least 2 jobs, got {jobs}")
        self.jobs = jobs
        self._executor = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_start_worker, initargs=(recipe,))

    def __enter__(self) -> "CorrectorPool":
        return self

    def __exit__(self, *exc) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def correct_many(self, batches: Iterable[list[str]]) -> Iterator[list[str]]:
        """`Corrector.correct_many` of each batch, in order, with at most 2 x jobs batches in flight (bounded
        memory on an endless stream)."""
        return self._ordered((_correct_many, batch) for batch in batches)

    def suggest_many(self, batches: Iterable[list[str]], k: int, with_typo: bool = False
                     ) -> Iterator[list[list[Suggestion]]]:
        """`Corrector.suggest_many(batch, k, with_typo)` of each batch, in order."""
        return self._ordered((_suggest_many, (batch, k, with_typo)) for batch in batches)

    def _ordered(self, calls) -> Iterator:
        pending: deque[Future] = deque()
        for function, argument in calls:
            pending.append(self._executor.submit(function, argument))
            if len(pending) >= 2 * self.jobs:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
