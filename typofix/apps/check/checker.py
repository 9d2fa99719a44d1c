"""The model's opinion of one file: every word it would correct, with the correction's confidence and its
runners-up, before the project's vocabulary has a say (`typofix.apps.check.vocabulary`).

The text to check is the lines of the file's masked copy that hold a word the corrector would change
(`typofix.apps.check.checkable`), through `Corrector.corrections_many`: the corrector leaves accepted words
and special tokens alone and corrects a word only when its best correction beats the word's own score by
`min_confidence`, the corrector's settings' (the check's threshold). A finding's confidence is that margin
for the correction chosen, from the same search (`Corrector.weigh`): a run weighs all its files' words
first, in large batches (`prepare`), and each word is searched once a run. A line where the model would
change more than half the words (of four or more) is not English (rot13, another language, a list of names
or codes): its findings are dropped, and so are those of a sentence the engine's language identifier finds
is another language (`typofix.engine.detector.in_foreign_sentence`, the rule `typofix correct` applies). The one-word string literals (a test's data, a key, a mode) are
checked word by word, alone (no context), as "literal" findings: reported, never fixed, since a key is code.
With `identifiers`, so are the parts of each name ("identifier" findings); with `real_words`, real-word
errors are reported too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from typofix.apps.check.checkable import Changing, Checkable, Part, Row, Start
from typofix.apps.check.findings import Finding
from typofix.apps.check.regions import Scan
from typofix.engine.detector import in_foreign_sentence
from typofix.words.identifiers import identifier_parts
from typofix.words.text import match_case

SUGGESTIONS = 3  # per finding, the correction and its runners-up
FOREIGN_WORDS = 4  # a line of this many words or more, more than half of them changed, is not English
WEIGH_BATCH = 20_000  # distinct words weighed in one call: large batches, bounded memory
_WORDS = re.compile(r"[A-Za-z]{2,}")


def may_be_foreign(row: Row) -> bool:
    """Whether the foreign-line rule could drop the findings of `row`: it has `FOREIGN_WORDS` words or more, and
    more than half of them are words the corrector might change (a run of letters that is one of the row's
    words, or is one without its n before n't)."""
    runs = _WORDS.findall(row.masked)
    if len(runs) < FOREIGN_WORDS:
        return False
    changing = set(row.words)
    return 2 * sum(run in changing or run[:-1] in changing for run in runs) > len(runs)


def _is_foreign(row: Row, changes: list) -> bool:
    """The foreign-line rule: `row` has `FOREIGN_WORDS` words or more, and the corrector changes more than half
    as many words (the pronoun i written I is no changed word: it is English)."""
    changed = sum(c.before.isalpha() for c in changes)
    return changed * 2 > len(_WORDS.findall(row.masked)) >= FOREIGN_WORDS


def _first_column(item: Checkable, row: Row) -> int:
    """The column (1-based) in its file's line of `row`'s first character: 1, but for the first row of a block
    or window that starts inside a line longer than a block."""
    return 1 + (item.column if row.start == item.offset else 0)


class FileChecker:
    """Finds the words of a file's `Checkable` that `corrector` would correct."""

    def __init__(self, corrector, identifiers: bool = False, real_words: bool = False, prose_threshold: float = 0.0):
        self.corrector, self.identifiers, self.real_words = corrector, identifiers, real_words
        # the misspelling detector's threshold for prose files (code files: the corrector's settings')
        self.prose_threshold = prose_threshold
        self.changing = Changing(lambda word: not corrector.leaves_alone(word),
                                 lambda words: [not alone for alone in corrector.leave_alone_many(words)])

    def checkable(self, scan: Scan, place: Start = Start(), ignores_file: bool = False) -> Checkable:
        """What of `scan` the model must see (the scanned text starting at `place` of its file)."""
        return Checkable.of(scan, self.changing, self.identifiers, self.real_words, place, ignores_file)

    def prepare(self, items: Iterable[Checkable]) -> None:
        """Weigh the words of all `items` now, in large batches, so that their findings come from one search."""
        self.prepare_words(w for item in items for w in item.words())

    def prepare_words(self, words: Iterable[str]) -> None:
        """Weigh `words` (as written) now, in large batches."""
        distinct = sorted({w.lower() for w in words})
        for at in range(0, len(distinct), WEIGH_BATCH):
            self.corrector.weigh(distinct[at:at + WEIGH_BATCH])

    def findings(self, item: Checkable) -> list[tuple[Finding, Row | None]]:
        """The file's findings in text order (confidence and suggestions filled in), unfiltered, each with the
        row it stands in (None for a literal's or a name's)."""
        rows = item.rows
        texts = [row.masked for row in rows]
        # (offset, line, column, before, after, where, row) of each change
        found: list[tuple[int, int, int, str, str, str, Row | None]] = []
        # One call, one document: a word this file repeats is the writer's (another file's say nothing). Only the
        # rows' words are searched: the words of its other runs are accepted, or sieved out where no finding
        # could come of them (`typofix.apps.check.triage`).
        only = {w.lower() for row in rows for w in row.words}
        threshold = self.prose_threshold if item.prose else None
        for row, changes in zip(rows, self.corrector.corrections_many(texts, only=only, detect_threshold=threshold)
                                if texts else []):
            if _is_foreign(row, changes):
                continue
            # a sentence of another language beside English ones, told by the engine's language identifier
            changes = [c for c in changes if not in_foreign_sentence(row.masked, c.start)]
            column = _first_column(item, row)
            found.extend((row.start + c.start, row.number, column + c.start, c.before, c.after, "text", row)
                         for c in changes)
        found.extend(self._part_changes(item.literals, "literal"))
        if self.identifiers:
            found.extend(self._part_changes(item.identifiers, "identifier"))
        weighed = self.corrector.weigh({f[3] for f in found}) if found else {}
        results = []
        for offset, line, column, before, after, where, row in found:
            judged = weighed.get(before.lower())
            others = [c.word for c in judged.corrections] if judged is not None else []
            if after.lower() == before.lower():
                # a repair of case alone (monday -> Monday) is no misspelling: the best candidate spelled
                # otherwise speaks for the word, if there is one
                spelled = [w for w in others if w != before.lower()]
                if not spelled:
                    continue
                after = match_case(before, spelled[0])
            margin = judged.margin(after.lower()) if judged is not None else None
            suggestions = [after] + [match_case(before, w) for w in others if w != after.lower()]
            results.append((Finding(item.path, line, column, offset, before, tuple(suggestions[:SUGGESTIONS]),
                                    margin, where), row))
        if self.real_words:
            for row, errors in zip(rows, self.corrector.real_word_errors(texts)):
                column = _first_column(item, row)
                results.extend((Finding(item.path, row.number, column + e.start, row.start + e.start, e.before,
                                        (e.after,), None, "real-word"), row) for e in errors)
        return sorted(results, key=lambda pair: (pair[0].start, pair[0].where))

    def _part_changes(self, parts: list[Part], where: str) -> list[tuple[int, int, int, str, str, str, None]]:
        """The corrections of the words of names or literals (split as identifiers are) that the part lists
        (`Part.words`): each distinct word checked once, alone."""
        words = [(part, at, word) for part in parts for at, word in identifier_parts(part.text) if word in part.words]
        distinct = sorted({word for _, _, word in words})
        fixed = dict(zip(distinct, self.corrector.correct_each(distinct)))
        return [(part.start + at, part.line, part.column + at, word, fixed[word], where, None)
                for part, at, word in words if fixed[word] != word]
