"""Checkables held between a run's two passes, in order, in bounded memory: in a list up to a budget, then
pickled one after another into a temporary file (deleted when the spool closes), read back in order.

The budget is small: what is held here is held while the model weighs the run's words, the peak of a run's
memory (a tree of 100,000 small files: docs/check.md, "Where the memory is on big inputs"), and a Checkable
pickles and loads again in microseconds."""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator

from typofix.apps.check.checkable import Checkable

BUDGET = 16 << 20  # about this many bytes of held Checkables before the rest goes to disk
# What a Checkable costs in memory beyond its texts' characters, measured (tracemalloc, 1,000 small files): a
# row or a name (its object, its strings' headers, its words), and the Checkable itself (its object, path,
# digest and lists). With 160 bytes a row and nothing for the item, a spool of small files held twice its budget.
_ROW_COST = 250
_ITEM_COST = 650


def held_size(item: Checkable) -> int:
    """About how many bytes `item` holds in memory."""
    if isinstance(item, str):  # a streamed file's path (`typofix.apps.check.pool.Streamed`)
        return len(item) + _ITEM_COST
    rows = sum(len(r.text) + (len(r.mask) if r.mask is not None else 0) + _ROW_COST for r in item.rows)
    return _ITEM_COST + rows + sum(len(p.text) + _ROW_COST for p in (*item.literals, *item.identifiers))


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

    def drain(self) -> Iterator[Checkable]:
        """The items in order, once: each let go as it is handed out (those in memory too), the spool closed
        after, so that what is read from one spool into another is never held twice."""
        if self._file is None:
            held, self._held = self._held, []
            held.reverse()
            while held:
                yield held.pop()
        else:
            yield from self
        self.close()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._held = []

    def __enter__(self) -> "Spool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
