"""The searches of words, kept on disk between runs: a word searched once is not searched again by a later run
of the same model, word list, settings and code.

`typofix check` weighs every unknown word of a tree with the model, and a tree changes little between two runs
(a pre-commit hook, a CI job): most of a run's search is the last run's. The store holds each word's search as
`Corrector.search_memory` hands it (its best corrections and its own candidate, with their scores, which JSON
writes and reads back to the last bit), so a word found there gives the same findings as a word searched now.

Where: `searches-<identity>.sqlite` in the index cache's folder (`typofix.words.indexcache.cache_dir`;
`TYPOFIX_CACHE_DIR=` turns both off). The identity (`search_identity`) is a digest of everything a search
depends on: the model file and the packaged data files (by path, size and time), the word list with the
user's words (`Lexicon.digest`), the settings, and the code of the engine, the word tables and the file
readers (by content); a change to any makes another store. At most `MAX_WORDS` words are kept, the least
recently written dropped first, and the `MAX_STORES` most recently used stores. SQLite (Python's standard
library) gives the lookups of a run's words without reading the whole store, atomic writes, and two runs at
once without a lost or torn write. A store that cannot be opened, read or written (a read-only folder, another
run holding its lock, a damaged file) is left alone: the run searches as if there were none.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from typofix.engine.ranking import Candidate
from typofix.words.indexcache import cache_dir

MAX_WORDS = 200_000  # about 30 MB on disk
MAX_STORES = 4  # (the default and the fast preset, a user's word list, a model being trained)
LOCK_WAIT = 0.5  # seconds a run waits for another run's write before it goes on without the store
_CODE = ("engine", "words", "files")  # the packages whose code a search runs

Searched = dict  # lowercase word -> (its corrections [(word, score)], its own (word, score) or None)


def search_identity(model: Path, lexicon_digest: str, settings: object) -> str:
    """A digest of everything a word's search depends on (see the module docstring)."""
    digest = hashlib.sha256(f"{lexicon_digest}\n{settings!r}\n".encode())
    package = resources.files("typofix")
    for name in _CODE:
        for module in sorted(package.joinpath(name).iterdir(), key=lambda p: p.name):
            if module.name.endswith(".py"):
                digest.update(module.name.encode() + module.read_bytes())
    # the packaged data a search reads: the word and ranking tables, the models
    data = [Path(str(resources.files("typofix.wordlist"))), Path(str(package.joinpath("models")))]
    for path in [model, *(p for folder in data for p in _files(folder))]:
        stat = path.stat()
        digest.update(f"{path}\t{stat.st_size}\t{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:20]


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


class SearchStore:
    """The words' searches under one identity, in the SQLite file at `path`."""

    def __init__(self, path: Path):
        self.path = path
        self._db = sqlite3.connect(path, timeout=LOCK_WAIT, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")  # (readers never wait for a writer)
        self._db.execute("CREATE TABLE IF NOT EXISTS searched (word TEXT PRIMARY KEY, search TEXT NOT NULL)")

    @classmethod
    def open(cls, identity: str) -> "SearchStore | None":
        """The store of `identity` in the cache folder, or None where there is no cache or it cannot be
        opened (a read-only folder, a damaged file)."""
        folder = cache_dir()
        if folder is None:
            return None
        path = folder / f"searches-{identity}.sqlite"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if path.exists():
                os.utime(path)  # (the most recently used are kept)
            try:
                store = cls(path)
            except sqlite3.DatabaseError as err:
                if isinstance(err, sqlite3.OperationalError):  # (locked, read-only: not damaged)
                    raise
                _remove(path)  # damaged (cut short, overwritten): made anew
                store = cls(path)
            _forget_stale(folder)
            return store
        except (OSError, sqlite3.Error):
            return None

    def get(self, words: Iterable[str]) -> Searched:
        """The stored searches of those of `words` (lowercase) that it holds."""
        found: Searched = {}
        words = list(words)
        try:
            for at in range(0, len(words), 500):  # (SQLite's limit on a statement's parameters)
                chunk = words[at:at + 500]
                asked = ",".join("?" * len(chunk))
                rows = self._db.execute(f"SELECT word, search FROM searched WHERE word IN ({asked})", chunk)
                found.update((word, _decoded(search)) for word, search in rows)
        except (sqlite3.Error, ValueError, TypeError):
            return {}
        return found

    def put(self, searched: Searched) -> None:
        """Keep `searched` (as `Corrector.search_memory` hands it), dropping the oldest words past
        `MAX_WORDS`. Nothing is written where another run holds the store longer than `LOCK_WAIT`."""
        if not searched:
            return
        rows = [(word, _encoded(search)) for word, search in searched.items()]
        try:
            with self._db:  # (one transaction: all of the words or none)
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany("INSERT OR REPLACE INTO searched VALUES (?, ?)", rows)
                self._db.execute("DELETE FROM searched WHERE rowid <= (SELECT MAX(rowid) FROM searched) - ?",
                                 (MAX_WORDS,))
        except sqlite3.Error:
            pass

    def close(self) -> None:
        self._db.close()


def _encoded(search: tuple) -> str:
    others, keep = search
    return json.dumps([[[c.word, float(c.score)] for c in others],
                       None if keep is None else [keep.word, float(keep.score)]])


def _decoded(text: str) -> tuple:
    others, keep = json.loads(text)
    return [Candidate(word, score) for word, score in others], None if keep is None else Candidate(*keep)


def _forget_stale(folder: Path) -> None:
    """Remove all but the `MAX_STORES` most recently used stores of `folder`."""
    stores = sorted(folder.glob("searches-*.sqlite"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in stores[MAX_STORES:]:
        _remove(old)


def _remove(store: Path) -> None:
    """The store's file and SQLite's files beside it, removed."""
    for part in (store, store.with_name(store.name + "-wal"), store.with_name(store.name + "-shm")):
        part.unlink(missing_ok=True)
