"""A file as `check` reads it (`Scan`): the text to check, as a copy of the file with everything else
blanked, where the code's string literals are in it, the code's identifiers and its one-word literals; and
`Regions`, which the readers of each language fill in."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

from typofix.apps.check.languages import Language
from typofix.apps.check.prose import blank


class Names(Sequence):
    """A file's names as (offset, name) pairs in text order, with how often each is used (`uses`): a reader that
    counts them in C hands `place`, which finds where each stands only when that is asked (--identifiers, an
    ignored line): most runs never ask, and a match object for every name of a file was a tenth of reading it."""

    def __init__(self, uses: Counter, place: Callable[[], list[tuple[int, str]]]):  # (a partial: it pickles)
        self.uses, self._place, self._placed = uses, place, None

    def _pairs(self) -> list[tuple[int, str]]:
        if self._placed is None:
            self._placed = self._place()
        return self._placed

    def __getitem__(self, i):
        return self._pairs()[i]

    def __len__(self) -> int:
        return len(self._pairs())

    def __iter__(self):
        return iter(self._pairs())


@dataclass
class Scan:
    """One file read for checking. `masked` is `text` with every character that is not to be checked (code,
    markup, escapes, placeholders) turned into a space, line breaks kept: the same length and lines, so an
    offset in one is an offset in the other. `strings`: (start, end) of the checked text that stands in a
    string literal of code (not a docstring nor a doc comment): data, reported but never written (-w);
    `identifiers`: (offset, name) of the code's names; `literals`: (offset, text) of its one-word string
    literals (keys, modes, options: `"rb"`, `"utf-8"`); `keywords`: the language's keywords and builtins the
    lexer saw (lowercase)."""

    path: str
    text: str
    language: Language
    masked: str
    identifiers: Sequence[tuple[int, str]] = field(default_factory=list)  # a list, or `Names`
    literals: list[tuple[int, str]] = field(default_factory=list)
    keywords: frozenset[str] = frozenset()
    strings: list[tuple[int, int]] = field(default_factory=list)

    def name_uses(self) -> Counter:
        """{name: uses} of `identifiers`, in the order each is first used."""
        if isinstance(self.identifiers, Names):
            return self.identifiers.uses
        return Counter(map(itemgetter(1), self.identifiers))

    def in_string(self, offset: int) -> bool:
        """Whether text[offset] stands in a string literal of code (`strings`)."""
        at = bisect.bisect_right(self.strings, (offset, float("inf"))) - 1
        return at >= 0 and self.strings[at][0] <= offset < self.strings[at][1]


class Regions:
    """The checked regions of a text, added in any order: each a start offset and its masked text."""

    def __init__(self, text: str):
        self.text = text
        self.parts: list[tuple[int, str, bool]] = []
        self.identifiers: list[tuple[int, str]] = []
        self.literals: list[tuple[int, str]] = []
        self.keywords: set[str] = set()

    def add(self, start: int, masked: str, string: bool = False) -> None:
        """Check `masked`, the masked form of text[start:start + len(masked)]; `string`: it is the text of a
        string literal of code (reported, never written), not a comment, a docstring or prose."""
        if masked.strip():
            self.parts.append((start, masked, string))

    def identifier(self, offset: int, name: str) -> None:
        self.identifiers.append((offset, name))

    def literal(self, offset: int, text: str) -> None:
        """A one-word string literal: code that looks like a word (checked as a name, --identifiers)."""
        self.literals.append((offset, text))

    def scan(self, path: str, language: Language) -> Scan:
        """The Scan: the added regions in place, everything between them blanked (overlaps keep the first)."""
        chunks, end, strings = [], 0, []
        blanked = blank(self.text)  # (once: the text between the regions is sliced from it)
        for start, masked, string in sorted(self.parts):
            if start < end:  # a region inside one already placed (never expected; kept safe)
                continue
            chunks += (blanked[end:start], masked)
            end = start + len(masked)
            if string:
                strings.append((start, end))
        chunks.append(blanked[end:])
        return Scan(path, self.text, language, "".join(chunks), sorted(self.identifiers),
                    sorted(self.literals), frozenset(self.keywords), strings)
