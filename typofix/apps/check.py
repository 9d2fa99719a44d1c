"""`typofix check`: find misspelled words in files (code, docs, prose) and optionally fix them in place.

Files are read as UTF-8 with undecodable bytes carried through (surrogateescape) and line endings as they are,
so a fixed file differs from the original only in its corrected words. Directories are walked in sorted order;
`.git` folders and binary files (a NUL byte in the first 8 KiB) are skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from typofix.files.atomic import atomic_path

SKIPPED_DIRS = frozenset({".git"})
_SNIFF = 8192


@dataclass(frozen=True)
class Finding:
    """One misspelled word: where (line and column 1-based, a tab counting one) and its correction."""

    path: str
    line: int
    column: int
    word: str
    correction: str
    real_word: bool = False  # a word that is a word, likely another in its context: reported, never fixed

    def __str__(self) -> str:
        note = " (real word? left as it is)" if self.real_word else ""
        return f"{self.path}:{self.line}:{self.column}: {self.word} ==> {self.correction}{note}"


def iter_files(paths: Iterable[str]) -> Iterator[str]:
    """Every file named or under a named folder, folders walked in sorted order without `.git`; a path that
    does not exist raises FileNotFoundError."""
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
                for name in sorted(files):
                    yield os.path.join(root, name)
        elif os.path.exists(path):
            yield path
        else:
            raise FileNotFoundError(f"no such file or directory: {path}")


def is_binary(path: str) -> bool:
    with open(path, "rb") as f:
        return b"\0" in f.read(_SNIFF)


def check_file(corrections_many, path: str, write: bool = False, real_words_many=None) -> list[Finding]:
    """The findings of one text file, in line order; with `write`, the file rewritten with its misspellings
    fixed (atomically, its mode kept). `corrections_many` is a Corrector's; `real_words_many` (its
    `real_word_errors`, or None) adds real-word errors, which are reported only."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        text = f.read()
    lines = text.split("\n")  # "\r" stays at the end of its line: columns and bytes are unchanged
    findings, fixed = [], []
    for number, (line, changes) in enumerate(zip(lines, corrections_many(lines)), start=1):
        findings.extend(Finding(path, number, offset + 1, word, correction) for offset, word, correction in changes)
        for offset, word, correction in reversed(changes):
            line = line[:offset] + correction + line[offset + len(word):]
        fixed.append(line)
    if write and findings and fixed != lines:
        mode = os.stat(path).st_mode
        with atomic_path(path) as tmp:
            with open(tmp, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write("\n".join(fixed))
            os.chmod(tmp, mode & 0o7777)
    if real_words_many is not None:
        for number, errors in enumerate(real_words_many(lines), start=1):
            findings.extend(Finding(path, number, offset + 1, word, likelier, real_word=True)
                            for offset, word, likelier in errors)
        findings.sort(key=lambda f: (f.line, f.column))
    return findings


def check_paths(corrections_many, paths: Iterable[str], write: bool = False, real_words_many=None
                ) -> Iterator[Finding]:
    """The findings of every text file under `paths`, file by file (binary files skipped)."""
    for path in iter_files(paths):
        if not is_binary(path):
            yield from check_file(corrections_many, path, write, real_words_many)
