"""The model's opinion of one scanned file: every word it would correct, with the correction's confidence and
its runners-up, before the project's vocabulary has a say (`typofix.apps.check.vocabulary`).

The text to check is the file's masked copy (`typofix.apps.check.regions.Scan`), line by line, through
`Corrector.corrections_many`: the corrector leaves accepted words and special tokens alone and corrects a
word only when its best correction beats the word's own score by `min_confidence`, the corrector's
settings' (the check's threshold). A finding's confidence is that margin for the correction chosen, from
`Corrector.trace`, asked for the few words found only. A line where the model would change more than half
the words (of four or more) is not English (rot13, another language, a list of names or codes): its findings
are dropped. The one-word string literals (a test's data, a key, a mode) are checked word by word, alone (no
context), as "literal" findings: reported, never fixed, since a key is code. With `identifiers`, so are the
parts of each name ("identifier" findings); with `real_words`, real-word errors are reported too.
"""

from __future__ import annotations

import bisect
import re

from typofix.apps.check.findings import Finding
from typofix.apps.check.regions import Scan
from typofix.words.identifiers import identifier_parts
from typofix.words.text import match_case

SUGGESTIONS = 3  # per finding, the correction and its runners-up
FOREIGN_WORDS = 4  # a line of this many words or more, more than half of them changed, is not English
_LETTERS = re.compile(r"[A-Za-z]{2}")
_WORDS = re.compile(r"[A-Za-z]{2,}")


class FileChecker:
    """Finds the words of a Scan that `corrector` would correct."""

    def __init__(self, corrector, identifiers: bool = False, real_words: bool = False):
        self.corrector, self.identifiers, self.real_words = corrector, identifiers, real_words

    def findings(self, scan: Scan) -> list[Finding]:
        """The file's findings in text order (confidence and suggestions filled in), unfiltered."""
        lines = scan.masked.split("\n")
        starts = [0]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        rows = [i for i, line in enumerate(lines) if _LETTERS.search(line)]
        found: list[tuple[int, str, str, str]] = []  # (offset, before, after, where)
        texts = [lines[i] for i in rows]
        # One call, one document: a word this file repeats is the writer's (another file's say nothing)
        for row, changes in zip(rows, self.corrector.corrections_many(texts)):
            if len(changes) * 2 > len(_WORDS.findall(lines[row])) >= FOREIGN_WORDS:
                continue
            found.extend((starts[row] + c.start, c.before, c.after, "text") for c in changes)
        found.extend(self._part_changes(scan.literals, "literal"))
        if self.identifiers:
            found.extend(self._part_changes(scan.identifiers, "identifier"))
        scored = self._scored({before for _, before, _, where in found})
        results = []
        for offset, before, after, where in found:
            confidence, others = scored.get(before.lower(), (None, []))
            if after.lower() == before.lower():
                # a repair of case alone (monday -> Monday) is no misspelling: the best candidate spelled
                # otherwise speaks for the word, if there is one
                spelled = [w for w in others if w != before.lower()]
                if not spelled:
                    continue
                after = match_case(before, spelled[0])
            margin = None if confidence is None else confidence.get(after.lower())
            suggestions = [after] + [match_case(before, w) for w in others if w != after.lower()]
            results.append(_finding(scan, starts, offset, before, tuple(suggestions[:SUGGESTIONS]), margin, where))
        if self.real_words:
            for row, errors in zip(rows, self.corrector.real_word_errors(texts)):
                results.extend(_finding(scan, starts, starts[row] + e.start, e.before, (e.after,), None, "real-word")
                               for e in errors)
        return sorted(results, key=lambda f: (f.start, f.where))

    def _part_changes(self, names: list[tuple[int, str]], where: str) -> list[tuple[int, str, str, str]]:
        """The corrections of the words of names or literals (split as identifiers are): each distinct word
        checked once, alone."""
        parts = [(offset + at, part) for offset, name in names for at, part in identifier_parts(name) if len(part) >= 2]
        distinct = sorted({part for _, part in parts})
        fixed = dict(zip(distinct, self.corrector.correct_each(distinct)))
        return [(offset, part, fixed[part], where) for offset, part in parts if fixed[part] != part]

    def _scored(self, words: set[str]) -> dict[str, tuple[dict[str, float], list[str]]]:
        """Per lowercase word: {candidate: its score minus the word's own} and the candidates best first."""
        if not words:
            return {}
        scored = {}
        for word, trace in self.corrector.trace(sorted({w.lower() for w in words})).items():
            final = trace.final
            own = final[trace.typo].score if trace.typo in final else 0.0
            margins = {w: c.score - own for w, c in final.items()}
            scored[word.lower()] = (margins, [w for w in sorted(final, key=lambda w: -final[w].score)
                                              if w != trace.typo])
        return scored


def _finding(scan: Scan, starts: list[int], offset: int, word: str, suggestions: tuple[str, ...],
             confidence: float | None, where: str) -> Finding:
    line = bisect.bisect_right(starts, offset) - 1
    return Finding(scan.path, line + 1, offset - starts[line] + 1, offset, word, suggestions, confidence, where)
