"""What of a file `check` keeps for the model (`Checkable`): the lines holding a word the corrector would
change, the one-word literals and names holding one, and what the file adds to the vocabulary; not the file.

A run reads every file once, and the vocabulary must have seen them all before a finding is judged: keeping
a few lines a file instead of its Scan (the text twice and every name) keeps memory to what may be a typo.
A word the corrector would change (`Corrector.leaves_alone` says which, each distinct word asked once a
run) is what the text pipeline rewrites: a run of ASCII letters, or a run without its last letter, where a
clitic (n't) is split off; a line without one gives no finding, whatever its words.
"""

from __future__ import annotations

import bisect
import hashlib
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import accumulate
from dataclasses import dataclass, field
from typing import NamedTuple

from typofix.apps.check.regions import Scan
from typofix.apps.check.vocabulary import WordUse
from typofix.words.identifiers import identifier_pieces

_LETTERS = re.compile(r"[A-Za-z]{2}")
REMEMBERED = 200_000  # distinct runs whose answer `Changing` keeps (about 30 MB)
PROSE_KINDS = frozenset({"text", "markdown", "rst", "latex", "roff"})  # the languages of files that are prose, not code


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a file: its number (1-based), where it starts in the file's text, the line as written and
    as checked (`Scan.masked`; `mask` None: the same), the spans of it (line offsets) that stand in a string
    literal of code, and the words in it, as written, that the corrector would change."""

    number: int
    start: int
    text: str
    mask: str | None = None
    strings: tuple[tuple[int, int], ...] = ()
    words: tuple[str, ...] = ()

    @property
    def masked(self) -> str:
        return self.text if self.mask is None else self.mask

    def in_string(self, column: int) -> bool:
        """Whether the character at `column` (0-based) stands in a string literal of code."""
        return any(start <= column < end for start, end in self.strings)


@dataclass(frozen=True, slots=True)
class Part:
    """A one-word literal or a name: where it starts (the offset in the file, its line and column), its text
    and its words, as written, that the corrector would change."""

    start: int
    line: int
    column: int
    text: str
    words: tuple[str, ...] = ()


class Start(NamedTuple):
    """Where a scanned text starts in its file's text, 0-based: a whole file's at the start; a block's or a
    window's of a big file further on, and inside a line where that line is longer than a block."""

    offset: int = 0
    line: int = 0
    column: int = 0


@dataclass
class Checkable:
    """The parts of one file the model must see (`rows`, `literals`, `identifiers`), the file's `WordUse`, and
    what -w needs to write it later: whether it is Python, and a digest of the text that was read."""

    path: str
    use: WordUse
    rows: list[Row] = field(default_factory=list)
    literals: list[Part] = field(default_factory=list)
    identifiers: list[Part] = field(default_factory=list)
    python: bool = False
    digest: str = ""
    offset: int = 0  # where the scanned text starts in the file's (a big file is read in blocks)
    column: int = 0  # where it starts in its first line (a block of a line longer than a block starts inside it)
    length: int = 0  # how long it is
    ignores_file: bool = False  # it holds the mark that leaves its whole file unchecked
    prose: bool = False  # plain text, Markdown, reST, LaTeX or roff (`PROSE_KINDS`), not code
    # its reader blanks the markup around words (LaTeX: `\\emph{word}`), so -w judges a word's shape in the masked
    # text, where the markup is gone and any code left is code
    markup_blanked: bool = False

    @classmethod
    def of(cls, scan: Scan, changing: "Changing", identifiers: bool = False, every_line: bool = False,
           place: Start = Start(), ignores_file: bool = False) -> "Checkable":
        """What of `scan` the model must see: the lines, literals and (with `identifiers`) names holding a word
        the corrector would change (`changing`); with `every_line`, every line with words (real-word errors are
        accepted words). `place`: where the scanned text starts in its file."""
        offset, line = place.offset, place.line
        masked = scan.masked
        letters = letter_runs(masked)
        spaced = letters.replace(LINE, f" {LINE} ")
        runs = spaced.split()  # the runs of letters, and a LINE at each line break
        written = Counter(runs)
        written.pop(LINE, None)
        lowered: dict[str, int] = {}  # (from the distinct runs: a file repeats its words)
        for run, count in written.items():
            lower = run.lower()
            lowered[lower] = lowered.get(lower, 0) + count
        lowered = Counter(lowered)
        found = cls(scan.path, WordUse.of(scan, lowered), python=scan.language.kind == "python",
                    digest=text_digest(scan.text), offset=offset, column=place.column, length=len(scan.text),
                    ignores_file=ignores_file, prose=scan.language.kind in PROSE_KINDS,
                    markup_blanked=scan.language.kind == "latex")
        starts = line_starts(letters)
        clitics = _clitic_stems(masked)
        changing.prefetch([*written, *(run[:-1] for run in clitics)])
        changed = {run: words for run, count in written.items()
                   if len(run) >= 2 and (words := _run_words(run, count, clitics[run], changing))}
        if every_line:
            lines = [i for i, (start, end) in enumerate(zip(starts, [*starts[1:], len(masked) + 1]))
                     if _LETTERS.search(masked, start, end)]
            words = {i: [] for i in lines}
        else:
            words = {}
        number = 0
        for run in runs:  # (one pass in Python, but over strings split in C: no match object for each run)
            if run in changed:
                words.setdefault(number, []).extend(changed[run])
            elif run == LINE:
                number += 1
        first = line
        for number in sorted(words):
            start = starts[number]
            end = starts[number + 1] - 1 if number + 1 < len(starts) else len(masked)
            text, checked = scan.text[start:end], masked[start:end]
            spans = _spans(scan.strings, start, end) if scan.strings else ()
            found.rows.append(Row(first + number + 1, offset + start, text, None if checked == text else checked,
                                  spans, tuple(dict.fromkeys(words[number]))))
        found.literals = _parts(scan.literals, starts, changing, place)
        if identifiers:
            found.identifiers = _parts(scan.identifiers, starts, changing, place)
        return found

    def words(self) -> set[str]:
        """The words, as written, in its rows and parts, that the corrector would change."""
        return {w for item in (*self.rows, *self.literals, *self.identifiers) for w in item.words}


class Changing:
    """The words of runs of letters that the corrector would change (`changes`, asked once a distinct word;
    `changes_many`, where given, asked of a file's new words together: `prefetch`)."""

    def __init__(self, changes: Callable[[str], bool], changes_many: Callable[[list[str]], list[bool]] | None = None):
        self.changes, self.changes_many, self._seen = changes, changes_many, {}
        self._names: dict[str, tuple[str, ...]] = {}  # name or literal -> `in_name`'s answer (files repeat them)

    def words(self, runs: list[str]) -> tuple[str, ...]:
        found = [w for run in runs for w in self.of(run)]
        return tuple(dict.fromkeys(found)) if found else ()

    def in_name(self, name: str) -> tuple[str, ...]:
        """The words of a name or one-word literal, split as identifiers are, that the corrector would change."""
        known = self._names.get(name)
        if known is None:
            if len(self._names) >= REMEMBERED:
                self._names.clear()
            known = self._names[name] = self.words([p for p in identifier_pieces(name) if len(p) >= 2])
        return known

    def prefetch(self, words: Iterable[str]) -> None:
        """Ask `changes_many` about those of `words` not asked yet, all together (`of` then answers them)."""
        if self.changes_many is None:
            return
        new = [word for word in words if len(word) >= 2 and word not in self._seen]
        if not new:
            return
        if len(self._seen) + len(new) >= REMEMBERED:
            self._seen.clear()
        self._seen.update((word, (word,) if changes else ()) for word, changes in zip(new, self.changes_many(new)))

    def of(self, word: str) -> tuple[str, ...]:
        """(`word`,) if the corrector would change it, else ()."""
        known = self._seen.get(word)
        if known is None:
            if len(self._seen) >= REMEMBERED:
                self._seen.clear()  # bounded on a stream of endless new words (a big log)
            known = self._seen[word] = (word,) if len(word) >= 2 and self.changes(word) else ()
        return known


def _run_words(run: str, count: int, before_clitic: int, changing: Changing) -> tuple[str, ...]:
    """The words the corrector would change of a run of letters written `count` times, `before_clitic` of them
    before 't (doesn of doesn't: the text pipeline's word is then the run without its n, never the run)."""
    alone = changing.of(run) if before_clitic < count else ()
    return alone + changing.of(run[:-1]) if before_clitic else alone


def _clitic_stems(text: str) -> Counter:
    """How often each run of letters of `text` ends in the n of a clitic n't (doesn of doesn't): there the text
    pipeline's word is the run without its n (`typofix.words.text`), and not the run."""
    found = Counter()
    if "'" not in text and "\u2019" not in text:
        return found
    for clitic in _CLITIC.finditer(text):  # (a few a file: each run found by walking back from its n)
        end = start = clitic.start() + 1
        while start and text[start - 1] in _ASCII_LETTERS:
            start -= 1
        found[text[start:end]] += 1
    return found


_CLITIC = re.compile(r"[nN]['\u2019][tT]")
_ASCII_LETTERS = frozenset(string.ascii_letters)


def letter_runs(text: str) -> str:
    """`text` with each ASCII letter kept, each line break made `LINE` and every other character a space, one
    character for one (the same offsets): its words are then what `str.split` finds, in C, without a regular
    expression's match object for each (a third of the time of reading the standard library)."""
    # (encoding with "replace" writes one "?" for each other character, a lone surrogate included)
    return text.encode("ascii", "replace").translate(_LETTERS_AND_LINES).decode("ascii")


LINE = "|"  # a line break in `letter_runs`
_LETTERS_AND_LINES = bytes(c if chr(c).isascii() and chr(c).isalpha() else ord(LINE) if c == 10 else 32
                           for c in range(256))


def line_starts(letters: str) -> list[int]:
    """Where each line of `letters` (`letter_runs`) starts."""
    return [0, *accumulate(map((1).__add__, map(len, letters.split(LINE)[:-1])))]  # (each line and its break)


def _spans(strings: list[tuple[int, int]], start: int, end: int) -> tuple[tuple[int, int], ...]:
    """The parts of the (sorted, disjoint) `strings` spans within text[start:end], as offsets from `start`."""
    i = bisect.bisect_left(strings, (start,))
    if i > 0 and strings[i - 1][1] > start:
        i -= 1
    found = []
    while i < len(strings) and strings[i][0] < end:
        found.append((max(strings[i][0], start) - start, min(strings[i][1], end) - start))
        i += 1
    return tuple(found)


def _parts(names: list[tuple[int, str]], starts: list[int], changing: Changing, place: Start = Start()
           ) -> list[Part]:
    """The names or literals with a word the corrector would change, with their line and column in the file
    (the scanned text starting at `place`)."""
    kept = []
    for at, text in names:
        words = changing.in_name(text)
        if words:
            number = bisect.bisect_right(starts, at) - 1
            column = at - starts[number] + 1 + (place.column if number == 0 else 0)
            kept.append(Part(place.offset + at, place.line + number + 1, column, text, words))
    return kept


def text_digest(text: str) -> str:
    """A digest of a file's text, to tell later whether it is still the text that was checked."""
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
