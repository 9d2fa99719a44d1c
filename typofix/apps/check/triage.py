"""Which lines and names of a file the model must weigh: those holding a word a finding could be reported for.

Two sieves, each leaving out what cannot hold a reported finding, so that the findings are the same as if the
model had weighed everything:
1. before the search, a word is asked `Verdict.may_keep` (the project's names, its languages' words, a short
   word no swap of which is a word: never reported, whatever the model says), and a line or name none of whose
   words it keeps is left out (`pruned`);
2. of the words kept, those with a listed word within two edits that could be reported (`Verdict.may_report`
   reports no correction farther) are searched, and a line or name none of whose words the search gave a
   correction that could be reported (`Verdict.may_report_any`) is left out too (`narrowed`). Each line and
   name left keeps only those words for the model to weigh, but for a line that the foreign-line rule could
   drop (`typofix.apps.check.checker.may_be_foreign`: more than half of its words might change), whose other
   words count for that rule and are searched too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Protocol

from typofix.apps.check.checkable import Checkable, Part, Row
from typofix.apps.check.checker import may_be_foreign
from typofix.apps.check.verdict import Verdict
from typofix.engine.results import Weighed


class Judged:
    """A test of (word as written, where) asked once a pair, and the words (lowercase) it said yes to."""

    def __init__(self, test: Callable[[str, str], bool]):
        self.test = test
        self.answers: dict[tuple[str, str], bool] = {}
        self.yes: set[str] = set()

    def __call__(self, word: str, where: str) -> bool:
        key = (word, where)
        answer = self.answers.get(key)
        if answer is None:
            answer = self.answers[key] = self.test(word, where)
            if answer:
                self.yes.add(word.lower())
        return answer


def pruned(items: Iterable[Checkable], judged: Judged, every_row: bool = False) -> Iterator[Checkable]:
    """The items without the rows and parts none of whose words `judged` says yes to; with `every_row`
    (real-word errors, which are accepted words), every row stays. Every word is asked: `judged.yes` is then
    every word it keeps. Anything but a Checkable (a streamed file's path) passes as it is."""

    def any_yes(words: tuple[str, ...], where: str) -> bool:
        return any([judged(word, where) for word in words])

    for item in items:
        if not isinstance(item, Checkable):
            yield item
            continue
        rows = [r for r in item.rows if any_yes(r.words, "text") or every_row]
        yield replace(item, rows=rows, literals=[p for p in item.literals if any_yes(p.words, "literal")],
                      identifiers=[p for p in item.identifiers if any_yes(p.words, "identifier")])


class Searcher(Protocol):
    """What `narrowed` asks of the engine (a `Corrector`, or `check --jobs`'s `CheckPool` for its processes)."""

    def remembered(self, words: list[str]) -> set[str]: ...

    def listed_near(self, words: list[str], n: int | None = None) -> list[list[str]] | None: ...

    def weigh(self, words: set[str]) -> Mapping[str, Weighed]: ...


NEAR_BATCH = 2_000  # words whose listed neighbours are held at once
# The listed words near a word asked first: the most frequent this many (a word with more is asked for all of
# them only if none of these could be reported, which is rare: a short stem has thousands within two edits).
FIRST_NEAR = 64


def narrowed(items: Iterable[Checkable], verdict: Verdict, judged: Judged, searcher: Searcher) -> Iterator[Checkable]:
    """The `items`, pruned by `judged` (`Verdict.may_keep`; `pruned` has gone through them all), without the
    rows and parts in which no word's search found a correction that could be reported, each keeping only the
    words whose could (every word, for a row the foreign-line rule could drop). Of the words `judged` kept,
    only those with a listed word within two edits that could be reported (`Verdict.may_report_near`: no
    correction farther is reported) are searched, all at once."""
    written: dict[str, list[tuple[str, str]]] = {}  # lowercase word -> each (word as written, where) kept
    for (word, where), kept in judged.answers.items():
        if kept:
            written.setdefault(word.lower(), []).append((word, where))

    def worth(word: str, listed: list[str]) -> bool:
        return any(verdict.may_report_near(form, where, listed) for form, where in written[word])

    asked = sorted(w for w in judged.yes if verdict.asks_listed(w))
    # A word searched already (this run, or kept from an earlier one) needs no listed words: its search says at
    # once what `may_report_any` would, and whatever that allows, `may_report_near` allows too.
    at_hand = searcher.remembered(asked)
    asked = [w for w in asked if w not in at_hand]
    searched = at_hand | {w for w in judged.yes if not verdict.asks_listed(w) and worth(w, [])}
    for at in range(0, len(asked), NEAR_BATCH):
        chunk = asked[at:at + NEAR_BATCH]
        near = searcher.listed_near(chunk, FIRST_NEAR)
        if near is None:  # (no word list: the model alone may write anything)
            searched.update(chunk)
            continue
        more = []  # words with more listed words near than were asked, none of these reportable
        for word, listed in zip(chunk, near):
            if worth(word, listed):
                searched.add(word)
            elif len(listed) == FIRST_NEAR:
                more.append(word)
        if more:
            searched.update(w for w, listed in zip(more, searcher.listed_near(more)) if worth(w, listed))
    weighed = searcher.weigh(searched)
    live = Judged(lambda word, where: judged(word, where) and word.lower() in weighed
                  and verdict.may_report_any(word, where, weighed[word.lower()]))
    for item in pruned(items, live):
        if isinstance(item, Checkable):  # each row and part keeps only the words a finding may come of
            item = replace(item, rows=[row if may_be_foreign(row) else _only(row, live, "text") for row in item.rows],
                           literals=[_only(p, live, "literal") for p in item.literals],
                           identifiers=[_only(p, live, "identifier") for p in item.identifiers])
        yield item


def sieved(item: Checkable, verdict: Verdict, searcher: Searcher, every_row: bool = False) -> Checkable:
    """One item through both sieves (`pruned`, then `narrowed`: a document, a window of a big file); with
    `every_row` (real-word errors), only the first, which keeps every row."""
    judged = Judged(verdict.may_keep)
    item = next(pruned([item], judged, every_row))
    return item if every_row else next(narrowed([item], verdict, judged, searcher))


def _only(row: Row | Part, live: Judged, where: str) -> Row | Part:
    """`row` (or a name, a literal) with only the words `live` says yes to."""
    return replace(row, words=tuple(w for w in row.words if live(w, where)))
