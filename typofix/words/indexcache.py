"""The word list's indexes, kept on disk between runs.

Reading the bundled word list and building its prefix trie, deletion indexes and sound index takes one to two
seconds on one core, longer than correcting a page of text, and every command-line run would pay it again.
Each is a few numpy arrays that load in milliseconds, so the first run that needs one builds it and saves it
here, and later runs load it: Aspell's compiled dictionaries, made on first use instead of at install.

Where: `$TYPOFIX_CACHE_DIR`, else `$XDG_CACHE_HOME/typofix`, else `~/.cache/typofix`; `TYPOFIX_CACHE_DIR=`
(empty) turns the cache off. An index's name says what it was built from (the word list's digest, which the
user's words change; the index and its parameters; a digest of the code that builds indexes), so an edited word
list or another typofix version never meets a stale index, and an index whose loader finds it inconsistent is
rebuilt. An index is a folder of .npy files, filled under a temporary name and renamed into place, and
memory-mapped when read. One that cannot be read is rebuilt; where nothing can be written, indexes live in
memory only, as without a cache. The `MAX_INDEXES` most recently used are kept. Other tables every run reads
(the acceptance dictionary, the detector's trees, the language model, a model file's graphs) are kept the same way.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import secrets
import shutil
import time
from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np

# What runs of the default and the fast preset read (the word list's seven: words, trie, one- and two-edit, every
# word two edits away (`check`), sound and phone indexes; the acceptance dictionary's and the names'; two usage
# tables, the language model, two detectors, three model files' graphs: 17) and a second word list's seven (the
# user's words make a word list of their own), and room: about 300 MB.
MAX_INDEXES = 26
# The modules whose code decides what an index holds: a change to any of them retires every cached index.
# engine/search.py builds `SubtreeBounds`; engine/candidates.py chooses the words each deletion index holds.
_BUILDERS = ("words/indexcache.py", "words/lexicon.py", "words/neighbours.py", "words/phonetic.py", "engine/search.py",
             "engine/candidates.py", "words/phones.py", "words/phoneindex.py", "engine/sounds.py", "words/usage.py",
             "engine/detector.py", "words/casing.py", "engine/onnx_stepper.py")


class Index(Protocol):
    def arrays(self) -> dict[str, np.ndarray]: ...


T = TypeVar("T", bound=Index)


def cache_dir() -> Path | None:
    """Where indexes are kept; None when the cache is turned off."""
    chosen = os.environ.get("TYPOFIX_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "typofix"


def file_digest(path: str | Path, suffix: bytes = b"") -> str:
    """The SHA-256 of the file's bytes followed by `suffix`, hex: what names the index built from a file. Read
    in pieces: the whole file in one piece (the word list's 2 MB, a model's 3 MB) raised glibc's mmap threshold
    past it, and what a run allocated after stayed in the heap. OSError as `open`."""
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while piece := file.read(1 << 16):
            digest.update(piece)
    digest.update(suffix)
    return digest.hexdigest()


def cached(name: str, source: str, build: Callable[[], T], load: Callable[[dict[str, np.ndarray]], T]) -> T:
    """The index `name` of the word list whose digest is `source`: `load`ed from the cache when it is there,
    else `build`t and saved. `name` must say every parameter of `build` (for example "two-edit-40000")."""
    directory = cache_dir()
    if directory is None:
        return build()
    path = directory / f"{name}-{source[:20]}-{_code_digest()}"
    arrays = _read(path)
    if arrays is not None:
        try:
            return load(arrays)
        except (KeyError, ValueError, IndexError):  # a saved index of the right name but not of the right shape
            pass
    if path.exists():  # damaged (cut short, tampered with): out of the way of the rebuilt one
        shutil.rmtree(path, ignore_errors=True)
    index = build()
    _write(path, index.arrays())
    return index


def _read(path: Path) -> dict[str, np.ndarray] | None:
    """The arrays saved at `path` (a folder of .npy files), memory-mapped: a lookup reads the pages it needs,
    not the whole index. None when there is no such index or it cannot be read."""
    try:
        arrays = {}
        for file in os.listdir(path):
            if file.endswith(".npy"):
                try:
                    mapped = np.load(path / file, mmap_mode="r", allow_pickle=False)
                    _read_pages_asked_for(mapped.base)
                    # As a plain ndarray over the mapping: a np.memmap pays a Python call on every slice.
                    arrays[file[:-4]] = mapped.view(np.ndarray)
                except ValueError:  # an empty array cannot be mapped
                    arrays[file[:-4]] = np.load(path / file, allow_pickle=False)
        os.utime(path)  # recently used: the last to be dropped
        return arrays
    except (OSError, ValueError, EOFError):  # missing, unreadable or cut short
        return None


def _read_pages_asked_for(mapping) -> None:
    """Map only the pages a lookup touches (`madvise(MADV_RANDOM)`: no read-ahead around a fault). Linux keeps a
    file's pages in folios of up to 2 MB where it read ahead or was written in large pieces, and a fault maps the
    whole folio: a binary search of the word list made a megabyte resident per probe (measured in
    docs/engine.md). Where the platform has no madvise, the mapping is read as it is."""
    if isinstance(mapping, mmap.mmap) and hasattr(mmap, "MADV_RANDOM"):
        try:
            mapping.madvise(mmap.MADV_RANDOM)
        except OSError:
            pass


def let_go(*arrays: np.ndarray) -> None:
    """Unmap the pages of these memory-mapped arrays from this process (`madvise(MADV_DONTNEED)`): an index a
    run asks once in a while (check's every word two edits away) need not stay in its memory between lookups.
    The pages stay in the page cache; the next lookup maps those it touches again. Arrays not mapped from a
    file, and platforms without madvise, are left as they are."""
    for array in arrays:
        mapping = array
        while mapping is not None and not isinstance(mapping, mmap.mmap):
            mapping = getattr(mapping, "base", None)
        if mapping is not None and hasattr(mmap, "MADV_DONTNEED"):
            try:
                mapping.madvise(mmap.MADV_DONTNEED)
            except OSError:
                pass


def _drop_written_pages(folder: Path) -> None:
    """Put the files just saved in `folder` on disk and drop them from the page cache, so that the runs which map
    them read them back page by page (`_read_pages_asked_for`) instead of in the large folios the writes left
    there. Where it cannot be done (no fadvise, a file system without it) the pages stay: only memory is at stake."""
    if not hasattr(os, "posix_fadvise"):
        return
    for file in os.listdir(folder):
        try:
            descriptor = os.open(folder / file, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fdatasync(descriptor)  # only clean pages can be dropped
            os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError:
            pass
        finally:
            os.close(descriptor)


def _write(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Save as a folder of .npy files, filled under a temporary name and renamed into place (a reader sees all
    of it or nothing), then drop the least recently used beyond MAX_INDEXES; a cache that cannot be written is
    no error (the index is in memory)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        tmp.mkdir(parents=True)
        for key, array in arrays.items():
            np.save(tmp / f"{key}.npy", np.ascontiguousarray(array), allow_pickle=False)
        _drop_written_pages(tmp)
        os.rename(tmp, path)  # fails where another process saved the same index first: theirs is as good
        folders = list(path.parent.iterdir())
        kept = sorted((p for p in folders if not p.name.startswith(".")), key=lambda p: p.stat().st_mtime,
                      reverse=True)
        # Beyond the most recently used, and what a killed writer left an hour ago or more.
        abandoned = [p for p in folders if p.name.startswith(".") and p.stat().st_mtime < time.time() - 3600]
        for old in kept[MAX_INDEXES:] + abandoned:
            shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def text_array(strings: list[str]) -> np.ndarray:
    """Strings without newlines as one array of UTF-8 bytes: how an index keeps words without pickling. (A list
    of one empty string comes back empty.)"""
    return np.frombuffer("\n".join(strings).encode("utf-8"), dtype=np.uint8)


def strings(text: np.ndarray) -> list[str]:
    """The strings `text_array` was given."""
    joined = np.asarray(text).tobytes().decode("utf-8")
    return joined.split("\n") if joined else []


class TextList(Sequence):
    """The strings `text_array` was given, read in place: each decoded where it is asked for, never all of them
    kept. A run asks for a few of the phone index's 100,000 keys, a text's search for tens of thousands of the
    word list's words; decoding all of them once many were asked for held 8 MB of strings for each list (three
    lists in a long text's run) where a string decoded on demand costs a quarter of a microsecond more than a
    gather from an object array (measured in docs/engine.md). A slice is a `TextList` over the same text."""

    def __init__(self, text: np.ndarray, bounds: np.ndarray | None = None):
        self._text = text
        if bounds is None:
            # One array of offsets, string i being text[bounds[i] + 1:bounds[i + 1]] (bounds[0] = -1: the newlines
            # with one before the first string and one after the last), in 32 bits where the text fits: the start
            # and end of every string in 64 bits each were 4.5 MB of a one-word run's memory.
            newlines = np.flatnonzero(np.asarray(text) == 10)
            width = np.int32 if len(text) < 2**31 - 1 else np.int64
            bounds = np.empty(len(newlines) + 2 if len(text) else 1, dtype=width)
            bounds[0] = -1
            if len(text):
                bounds[1:-1], bounds[-1] = newlines, len(text)
        self._bounds = bounds
        # Read through memoryviews: an item of one is a Python int, a slice of the other decodes without a copy of
        # the bytes first (numpy's scalars and slices cost several times as much a string).
        self._bytes = memoryview(np.ascontiguousarray(text, dtype=np.uint8))
        self._offsets = memoryview(np.ascontiguousarray(bounds))

    def __reduce__(self):  # (memoryviews do not pickle)
        return TextList, (self._text, self._bounds)

    def __len__(self) -> int:
        return len(self._bounds) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return [self[j] for j in range(start, stop, step)]
            return TextList(self._text, self._bounds[start:max(start, stop) + 1])
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("text list index out of range")
        return str(self._bytes[self._offsets[i] + 1:self._offsets[i + 1]], "utf-8")

    def __iter__(self):
        return iter(self.strings())  # (one decode and split: a tenth of the time of one string at a time)

    def strings(self) -> list[str]:
        """All of them, as a new list (not kept: a caller that wants them all holds them)."""
        return strings(self._text[int(self._bounds[0]) + 1:max(int(self._bounds[-1]), 0)])

    def take(self, rows: np.ndarray) -> list[str]:
        """The strings at `rows` (N,): many by gathering their bytes into one buffer, a newline after each, decoded
        and split at once (half the time of a decode each; measured in docs/engine.md)."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) < 64:  # few: one at a time costs less than the gather's dozen numpy calls
            text = self._bytes
            starts, ends = (self._bounds[rows] + 1).tolist(), self._bounds[rows + 1].tolist()
            return [str(text[start:end], "utf-8") for start, end in zip(starts, ends)]
        starts = self._bounds[rows].astype(np.int64) + 1
        lengths = self._bounds[rows + 1] - starts + 1  # (N,) each string's bytes and its newline
        at = np.cumsum(lengths) - lengths  # (N,) where each begins in the buffer
        places = np.arange(int(lengths.sum())) + np.repeat(starts - at, lengths)
        text = np.asarray(self._text)
        gathered = text[np.minimum(places, len(text) - 1)] if len(text) else np.zeros(len(places), dtype=np.uint8)
        gathered[at + lengths - 1] = 10  # (the last string has no newline after it in the text)
        return gathered.tobytes().decode("utf-8").split("\n")[:-1]

    def lengths(self) -> np.ndarray:
        """(N,) each string's length in characters, none decoded: its bytes, less those that continue a UTF-8
        character (few: most words are ASCII)."""
        bounds = self._bounds.astype(np.int64)
        lengths = np.diff(bounds) - 1
        first, end = int(bounds[0]) + 1, max(int(bounds[-1]), 0)
        text = np.asarray(self._text)[first:end]
        if len(text) and int(text.max()) >= 0x80:
            continuing = np.flatnonzero((text & 0xC0) == 0x80) + first
            lengths = lengths - np.bincount(np.searchsorted(bounds[:-1] + 1, continuing, side="right") - 1,
                                            minlength=len(lengths))
        return lengths


def taken(strings: Sequence[str], rows: np.ndarray) -> list[str]:
    """The strings at `rows` (N,) of a list read in place (`TextList.take`: gathered and decoded at once) or of
    any sequence."""
    if isinstance(strings, TextList):
        return strings.take(rows)
    return [strings[i] for i in np.asarray(rows).tolist()]


def lengths_of(strings: Sequence[str]) -> np.ndarray:
    """(N,) each string's length, none decoded where the list is read in place (`TextList.lengths`)."""
    if isinstance(strings, TextList):
        return strings.lengths()
    return np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))


def sorted_strings(items: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(the strings as UTF-8 bytes, sorted, in one fixed-width array; the index of each in `items`): what
    `find_strings` searches, kept in an index so that a lookup needs no set or dict of every string."""
    encoded = np.array([s.encode("utf-8") for s in items], dtype=bytes) if items else np.zeros(0, dtype="S1")
    order = np.argsort(encoded, kind="stable")
    return encoded[order], order.astype(np.int64)


def find_strings(listed: np.ndarray, numbers: np.ndarray | None, wanted: list[str]) -> np.ndarray:
    """(N,) the number of each of `wanted` in the sorted `listed` (UTF-8 bytes, `sorted_strings`; None: its place
    there), -1 where it is not there."""
    if not wanted or not len(listed):
        return np.full(len(wanted), -1, dtype=np.int64)
    # A lone surrogate (an undecodable input byte carried through) is no listed string's: its bytes are no UTF-8.
    encoded = [s.encode("utf-8", "surrogatepass") for s in wanted]
    # Of the listed strings' own width, or searchsorted would convert all of them on every call; that cuts a
    # string longer than the longest listed one, which is then not there. A fixed-width bytes array drops
    # trailing NULs, so a string with a NUL is not there either.
    keys = np.array(encoded, dtype=listed.dtype)
    at = np.minimum(np.searchsorted(listed, keys), len(listed) - 1)
    fits = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)) <= listed.dtype.itemsize
    if b"\0" in b"".join(encoded):  # (seldom: a test per string only then)
        fits &= np.fromiter((b"\0" not in e for e in encoded), dtype=bool, count=len(encoded))
    return np.where((listed[at] == keys) & fits, numbers[at] if numbers is not None else at, -1)


def find_string(listed: np.ndarray, wanted: str) -> int:
    """`find_strings(listed, None, [wanted])[0]`, one string alone: Python's bisection over the mapped array, about
    2 us where numpy's searchsorted of a one-string array costs 13 (its conversions)."""
    encoded = wanted.encode("utf-8", "surrogatepass")
    if not len(listed) or len(encoded) > listed.dtype.itemsize or b"\0" in encoded:
        return -1
    at = bisect_left(listed, encoded)
    return at if at < len(listed) and listed[at] == encoded else -1


class Remembered(dict):
    """The answers of single lookups in a table read in place, by the string asked about, up to `LIMIT` of them,
    then forgotten at once and remembered afresh: a text asks about its distinct words again and again, and
    this holds a text's words where a set or dict of the table held all of its 100,000 (8-10 MB each)."""

    LIMIT = 1 << 15

    def answer(self, key: str, look_up: Callable[[str], object]):
        """The answer for `key`, `look_up(key)` where it is not remembered."""
        try:
            return self[key]
        except KeyError:
            if len(self) >= self.LIMIT:
                self.clear()
            found = self[key] = look_up(key)
            return found


class SortedStrings:
    """A set of strings read in place: `in` by binary search in their sorted UTF-8 bytes (`sorted_strings`, an
    array the index cache maps), the answers remembered (`Remembered`), so that no run builds a set of 100,000
    strings (a tenth of a second and 10 MB)."""

    def __init__(self, listed: np.ndarray):
        self.listed = listed
        self._answers = Remembered()

    @classmethod
    def of(cls, items) -> "SortedStrings":
        return cls(sorted_strings(list(dict.fromkeys(items)))[0])

    def __contains__(self, word: str) -> bool:
        return self._answers.answer(word, self._listed)

    def _listed(self, word: str) -> bool:
        return find_string(self.listed, word) >= 0

    def contains_many(self, words: list[str]) -> list[bool]:
        """`word in self` of each of `words`, all of them looked up together: one binary search in the mapped
        array for the lot (a text's distinct words)."""
        return (find_strings(self.listed, None, words) >= 0).tolist()

    def strings(self) -> set[str]:
        """All of them, as a new set."""
        return {b.decode("utf-8") for b in self.listed.tolist()}

    def __iter__(self):
        return iter(self.strings())

    def __len__(self) -> int:
        return len(self.listed)


class SortedTable:
    """{string: string} read in place: the keys as sorted UTF-8 bytes (`sorted_strings`) and their values in the
    same order (`text_array`), arrays the index cache maps; `get` by binary search, its answers remembered
    (`Remembered`)."""

    def __init__(self, keys: np.ndarray, values: np.ndarray):
        self.keys, self.values = keys, values
        self._values = TextList(values)
        self._answers = Remembered()

    @classmethod
    def of(cls, mapping: dict[str, str]) -> "SortedTable":
        keys, order = sorted_strings(list(mapping))
        values = list(mapping.values())
        return cls(keys, text_array([values[i] for i in order.tolist()]))

    def get(self, key: str, default: str | None = None) -> str | None:
        found = self._answers.answer(key, self._value)
        return found if found is not None else default

    def _value(self, key: str) -> str | None:
        row = find_string(self.keys, key)
        return self._values[row] if row >= 0 else None

    def get_many(self, keys: list[str]) -> list[str | None]:
        """`get` of each of `keys` (None where it is not there), by one binary search for all of them."""
        rows = find_strings(self.keys, None, keys)
        values = iter(self._values.take(rows[rows >= 0]))
        return [next(values) if row >= 0 else None for row in rows.tolist()]

    def __len__(self) -> int:
        return len(self.keys)


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """A digest of the index-building modules' source. (What third-party code computes, an index checks itself
    on loading: `SoundIndex.from_arrays` recomputes a sample of its sound codes.)"""
    digest = hashlib.sha256()
    package = resources.files("typofix")
    for module in _BUILDERS:
        digest.update(package.joinpath(module).read_bytes())
    return digest.hexdigest()[:12]
