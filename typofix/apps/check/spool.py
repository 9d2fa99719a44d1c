"""Checkables held between a run's two passes, in order, in bounded memory: in a list up to a budget, then
pickled one after another into a temporary file (deleted when the spool closes), read back in order."""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator

from typofix.apps.check.checkable import Checkable

BUDGET = 48 << 20  # about this many bytes of held rows and names before the rest goes to disk
_ROW_COST = 160  # the bytes a row or a name costs beyond its text: its object, tuple and words


def held_size(item: Checkable) -> int:
    """About how many bytes `item` holds in memory."""
    if isinstance(item, str):  # a streamed file's path (`typofix.apps.check.pool.Streamed`)
        return len(item) + _ROW_COST
    rows = sum(len(r.text) + (len(r.mask) if r.mask is not None else 0) + _ROW_COST for r in item.rows)
    return rows + sum(len(p.text) + _ROW_COST for p in (*item.literals, *item.identifiers))


class Spool:
    """Checkables in the order added, iterable again and again, holding at most `budget` bytes in memory."""

    def __init__(self, budget: int = BUDGET):
        self.budget, self.size = budget, 0
        self._held: list[Checkable] = []
        self._file = None
        self.count = 0

    def add(self, item: Checkable) -> None:
        self.count += 1
        if self._file is None:
            self._held.append(item)
            self.size += held_size(item)
            if self.size > self.budget:
                self._file = tempfile.TemporaryFile(prefix="typofix-check-")
                for held in self._held:
                    pickle.dump(held, self._file, pickle.HIGHEST_PROTOCOL)
                self._held = []
        else:
            pickle.dump(item, self._file, pickle.HIGHEST_PROTOCOL)

    def __iter__(self) -> Iterator[Checkable]:
        if self._file is None:
            yield from self._held
            return
        self._file.flush()
        self._file.seek(0)
        for _ in range(self.count):  # (one reader at a time: the file has one position)
            yield pickle.load(self._file)
        self._file.seek(0, 2)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._held = []

    def __enter__(self) -> "Spool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
