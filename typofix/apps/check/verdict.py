"""Which of the model's findings `check` reports: only what is very likely a typo.

A finding is dropped when
* the word is the project's vocabulary (`typofix.apps.check.vocabulary`: the language's words, the code's
  names, words used consistently, software terms);
* it is a word of one to three letters whose correction is not the same letters with two swapped: in code
  and its comments short unknown words are abbreviations (`np`, `cls`, `iff`, `rst`), while a swap of a
  short common word (two neighbouring letters swapped) is the one short slip that is plainly a slip;
* it is an affix written as such (`-ness`, `ough->uf`): a hyphen on one side and no letter past it;
* it is capitalised in mid-sentence (after a small letter or a comma) or beside another capitalised word
  (`Gregor Lingl`): a name, not a typo;
* its correction is the same word with another ending or beginning (`normalizations` -> normalization,
  `unclosed` -> enclosed, `invoker` -> invoked, `valuably` -> valuable): a derived word the dictionary lacks,
  not a typo; or the word with an apostrophe before its final s that makes no contraction (`normalizations` ->
  normalization's): the word is a plural, or a misspelled one (`agencys`, whose fix is agencies), never a
  slip an apostrophe fixes;
* it is a part of a word written with hyphens that is a listed word without them (`mish-mash`, `e-mail`), or
  the part before a hyphen that begins many listed words and not its correction: a combining form or a
  clipped word (`intra-line`: intranet, intravenous, ...; `regen-keyword`);
* it is a part of an address: a run of letters, digits and dots with an at sign between two of them
  (`jdoe@example.org`, a locale's modifier `sr@latn`), or a mail address spelled with " at " in angle brackets
  (`<jdoe at example.org>`). Its letters still count as the project's words: an author's address at the top
  of a file makes the author's login a name in the rest of it;
* its correction is more than two edits away, or two edits away with a confidence below
  `min_confidence + FAR_MARGIN`: a typo is nearly always one slip from its word (a letter left out,
  doubled, swapped or mistaken), while the model reaches far for names and abbreviations (`stddev` ->
  studies);
* the model's confidence (how far the correction's score beats the word's own) is below `min_confidence`,
  unless the correction is one of the user's words (--words, the personal list, the config's `words`):
  beside a word the project declared, a near miss of it (two edits or nearer) is a slip of it;
* it is a word of a one-word string literal (a key, a mode, a name written as a string: code, most of the
  time), or a word quoted alone in text (`the 'rset' command`: a name mentioned), that is no plain slip (`Vocabulary.is_slip`: a known misspelling, two neighbouring letters of a
  common word swapped), unless --identifiers asks for code to be checked;
* with `known_only`, the word is not a known misspelling of its correction (`typofix.apps.check.known`);
  the confidence and distance rules are the list's to answer for then.
Real-word errors (--real-words) are the bigram model's judgement and pass as they are.
"""

from __future__ import annotations

import math
import re

from typofix.apps.check.checkable import Row
from typofix.apps.check.findings import Finding
from typofix.apps.check.vocabulary import (NAMED_SLIP, Vocabulary, common_word, is_swap, listed_word, swaps,
                                          words_beginning)
from typofix.engine.results import Weighed
from typofix.words.casing import is_contraction
from typofix.words.distance import one_edit_from, osa_distance

SHORT = 3
# The misspelling detector's threshold for `check` and `typofix lsp` unless one is given: 0, the detector off,
# its findings judged by the rules above. On the standard library (make bench-check) the detector at correct's
# 0.75 kept 4 of the 10 real typos check finds with these rules (keyboard slips in code comments, `diretory`,
# `coodinat`: the dev misspellings it was fitted on are spellers' errors in prose); `--detect-threshold 0.75`
# asks for it.
DETECT_THRESHOLD = 0.0
# Prose files (plain text, Markdown, reST) are judged by the detector too, at `typofix correct`'s threshold
# (the preset's `detect_threshold`, unless --detect-threshold sets one for every file): on the dev wild and
# prose typo files it kept 703 of the rules' 715 true findings and 1 of their 29 false ones (docs/check.md).
FAR_MARGIN = 1.5  # how much surer the model must be of a correction two edits away
_BEFORE = re.compile(r"(?:[a-z,;]|\b[A-Z][a-z]+)[ \t]+$")  # mid-sentence, or after a capitalised word
_AFTER = re.compile(r"[ \t]+[A-Z][a-z]")  # before a capitalised word
SUFFIXES = ("", "s", "es", "d", "ed", "r", "er", "ers", "ing", "ings", "ly", "ness", "able", "ability", "ably",
            "ize", "izes", "ized", "izing", "ization", "izations", "ise", "ised", "ising", "isation",
            "ment", "ments")  # typofix: ignore (endings, not words)
PREFIXES = ("", "un", "re", "pre", "en", "in", "im", "de", "dis", "non", "sub", "super", "inter", "over", "under",
            "mis", "multi", "co")


class Verdict:
    """The judgement of findings against one run's vocabulary and thresholds."""

    def __init__(self, vocabulary: Vocabulary, min_confidence: float, known_only: bool = False,
                 known: dict[str, frozenset[str]] | None = None, identifiers: bool = False,
                 user_words: frozenset[str] = frozenset()):
        self.vocabulary, self.min_confidence = vocabulary, min_confidence
        self.known_only, self.known, self.identifiers = known_only, known or {}, identifiers
        self.user_words = frozenset(w.lower() for w in user_words)

    def may_keep(self, word: str, where: str) -> bool:
        """False where no finding of `word` (as written) in `where` ("text", "literal", "identifier") can be
        reported, whatever its correction and confidence: the model need not weigh it there."""
        lower = word.lower()
        if self.known_only and lower not in self.known:
            return False
        # (the set lookups first: each answer below is False whatever the word's swaps, which cost a lookup each)
        if self.vocabulary.accepts_language(word):
            return False
        named = where != "identifier" and lower not in self.known and self.vocabulary.named(lower)
        if named and self.vocabulary.use.names[lower] >= NAMED_SLIP:
            return False
        # it may be a plain slip (`Vocabulary.is_slip`; a software term we know is no swap of a common word, but
        # one that is not a known misspelling was accepted above)
        slip = lower in self.known or any(common_word(s) for s in swaps(lower))
        if where == "literal" and not self.identifiers and not slip:
            return False
        if len(lower) <= SHORT and not self._swaps_listed(lower):
            return False  # a short word is reported only as a swap of a word (`keep`), and no swap of it is one
        return not (named and not slip)

    def keep(self, finding: Finding, masked: str, at: int | None = None) -> bool:
        """Whether to report `finding`; `masked` is the masked line it stands in (for the words around it), `at`
        where in it (None: the finding's column says, `masked` being its whole line; a row of a block that
        starts inside a long line is the rest of that line)."""
        if finding.where == "real-word":
            return True
        word, at = finding.word, finding.column - 1 if at is None else at
        quoted = finding.where == "text" and is_quoted(masked, at, at + len(word))
        if quoted and not self.identifiers and not self.vocabulary.is_slip(word.lower(), finding.correction.lower()):
            return False
        if not self.may_report(word, finding.correction, finding.confidence, finding.where):
            return False
        return not (finding.where == "text" and (is_name(word, masked, at) or is_affix(masked, at, at + len(word))
                                                 or in_listed_compound(masked, at, at + len(word))
                                                 or is_combining_form(masked, at, at + len(word), finding.correction)
                                                 or in_address(masked, at, at + len(word))))

    def keep_in(self, finding: Finding, row: Row | None) -> bool:
        """`keep` for a finding that stands in `row` (None: a literal's or a name's, in no line of text)."""
        return self.keep(finding, "") if row is None else self.keep(finding, row.masked, finding.start - row.start)

    def may_report(self, word: str, correction: str, confidence: float | None, where: str) -> bool:
        """Whether a finding of `word` (as written) made `correction` with `confidence` in `where` ("text",
        "literal", "identifier") may be reported wherever it stands: `keep` without the rules that read the
        line around it (quotes, names, affixes)."""
        lower, fixed = word.lower(), correction.lower()
        if self.known_only and fixed not in self.known.get(lower, ()):
            return False
        if where == "literal" and not self.identifiers and not self.vocabulary.is_slip(lower, fixed):
            return False
        if self.vocabulary.accepts(word, correction, confidence, in_name=where == "identifier"):
            return False
        if len(word) <= SHORT and not is_swap(lower, fixed):
            return False
        if is_derived(lower, fixed) or is_possessive(lower, fixed):
            return False
        if not self.known_only:
            edits = osa_distance(lower, fixed)
            if edits > 2:
                return False
            needed = self.min_confidence + (FAR_MARGIN if edits == 2 else 0.0)
            if fixed not in self.user_words and (confidence is None or confidence < needed):
                return False
        return True

    def may_report_any(self, word: str, where: str, weighed: Weighed) -> bool:
        """Whether any finding of `word` (as written) in `where` may be reported, now that the search has
        `weighed` it: a finding's correction is one of the search's (its confidence their margin), or the
        repaired form the word stands for, which is reported only as one of the user's words one edit away."""
        return self.near_user_word(word) or any(self.may_report(word, c.word, weighed.margin(c.word), where)
                                                for c in weighed.corrections)

    def asks_listed(self, word: str) -> bool:
        """Whether `may_report_near` needs the listed words near `word`: not for a short word (only a swap of it
        may be reported) nor with `known_only` (only its known corrections may)."""
        return not self.known_only and len(word) > SHORT

    def may_report_near(self, word: str, where: str, listed: list[str]) -> bool:
        """Whether any finding of `word` (as written) in `where` may be reported, before the search, given
        `listed`: every listed word within two edits of it (`Corrector.listed_near`), among which is any
        correction the search could give it that `may_report` (which reports none farther) allows, whatever its
        confidence. Where `asks_listed` says no, the corrections that could be are the word's known ones
        (`known_only`) or its swaps that are listed or the user's (a short word), and `listed` is not read."""
        lower = word.lower()
        if self.known_only:
            corrections = self.known.get(lower, ())
        elif len(word) <= SHORT:
            corrections = self._swaps_listed(lower)
        else:
            corrections = listed
        return self.near_user_word(word) or any(self.may_report(word, c, math.inf, where) for c in corrections)

    def _swaps_listed(self, word: str) -> list[str]:
        """The swaps of lowercase `word` that are listed words or the user's: all a short word may be reported as."""
        return [s for s in swaps(word) if s in self.user_words or listed_word(s)]

    def near_user_word(self, word: str) -> bool:
        """Whether one of the user's words is one edit from `word` (the pipeline makes a word that near the
        user's word, whatever the search says)."""
        return one_edit_from(word, self.user_words) is not None


def is_derived(word: str, other: str) -> bool:
    """Whether `word` and `other` are one stem with different endings or beginnings (`SUFFIXES`,
    `PREFIXES`): normalizations / normalization, unclosed / enclosed, escaper / escape."""
    for a, b in ((word, other), (other, word)):
        for prefix in PREFIXES:
            if not a.startswith(prefix):
                continue
            rest = a[len(prefix):]
            for other_prefix in PREFIXES:
                if b.startswith(other_prefix) and _same_stem(rest, b[len(other_prefix):]) and (prefix or other_prefix
                                                                                                or rest != b):
                    return True
    return False


def _same_stem(a: str, b: str) -> bool:
    """Whether `a` and `b` are one stem (3+ letters) with two of the `SUFFIXES`, other than two spellings of
    one ending (a plural spelled -s for -es is a slip, not another word; so is -r for -er: `anothr`)."""
    for suffix in SUFFIXES:
        if a.endswith(suffix):
            stem = a[:len(a) - len(suffix)]
            other = b[len(stem):]
            if (len(stem) >= 3 and b.startswith(stem) and other in SUFFIXES
                    and {suffix, other} not in ({"s", "es"}, {"d", "ed"}, {"r", "er"})):
                return True
    return False


def is_possessive(word: str, other: str) -> bool:
    """Whether `other` is `word` with an apostrophe before its final s that makes no contraction (a
    possessive: `normalizations` -> normalization's), as against a clitic typed without it (thats -> that's)."""
    return other.endswith("'s") and other[:-2] + "s" == word and not is_contraction(other)


# A word written with hyphens: letters joined by single hyphens
_HYPHENATED = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")


def in_listed_compound(masked: str, start: int, end: int) -> bool:
    """Whether the word at masked[start:end] is a part of a word written with hyphens that is a listed word
    written without them (`mish-mash`: mishmash; `e-mail`: email)."""
    if masked[end:end + 1] != "-" and masked[start - 1:start] != "-":
        return False
    for compound in _HYPHENATED.finditer(masked, *_around(masked, start, end)):
        if compound.start() <= start and end <= compound.end():
            return listed_word(compound.group().replace("-", "").lower())
    return False


# A word that this many listed words or more begin with, written before a hyphen, is a combining form
COMBINING = 5


def is_combining_form(masked: str, start: int, end: int, correction: str) -> bool:
    """Whether the word at masked[start:end] is a combining form or a clipped word joined to the next by a
    hyphen (`intra-line`, `regen-keyword`, `hurd-any`): `COMBINING` listed words or more begin with it
    (intramural, intranet, ...), and `correction` does not (a word cut short, `acces-control`, is a typo)."""
    word = masked[start:end].lower()
    if masked[end:end + 1] != "-" or not masked[end + 1:end + 2].isalpha():
        return False
    return not correction.lower().startswith(word) and words_beginning(word, COMBINING) >= COMBINING


_REACH = 200  # characters either side of a word that the rules reading around it look at (a line can be megabytes)


def _around(masked: str, start: int, end: int) -> tuple[int, int]:
    """The part of the line of masked[start:end] that the rules around a word read: up to `_REACH` characters
    either side of it. Each finding read its whole line, and a long line holds thousands of findings."""
    line_start, line_end = masked.rfind("\n", max(0, start - _REACH), start) + 1, masked.find("\n", end, end + _REACH)
    return max(line_start, start - _REACH), min(line_end if line_end >= 0 else len(masked), end + _REACH)


_AT_ADDRESS = re.compile(r"[\w.+-]*\w@\w[\w.+-]*")
_SPELLED_ADDRESS = re.compile(r"<[\w.+-]+ (?:at|AT) [\w-]+(?:\.[\w-]+)+>")


def in_address(masked: str, start: int, end: int) -> bool:
    """Whether the word at masked[start:end] is a part of an address (`jdoe@example.org`, `sr@latn`,
    `<jdoe at example.org>`)."""
    lo, hi = _around(masked, start, end)
    return any(found.start() <= start and end <= found.end()
               for pattern, mark in ((_AT_ADDRESS, "@"), (_SPELLED_ADDRESS, "<")) if masked.find(mark, lo, hi) >= 0
               for found in pattern.finditer(masked, lo, hi))


def is_quoted(masked: str, start: int, end: int) -> bool:
    """Whether the word at masked[start:end] stands alone in quotes (a command or a key named in text)."""
    before, after = masked[start - 1:start], masked[end:end + 1]
    return bool(before) and before in "'\"" and before == after


def is_affix(masked: str, start: int, end: int) -> bool:
    """Whether the word at masked[start:end] is written as an affix: `-ness`, `ough-` (then no letter)."""
    before = masked[max(0, start - 2):start]
    after = masked[end:end + 2]
    return ((before.endswith("-") and not before[:-1].isalpha())
            or (after.startswith("-") and not after[1:].isalpha()))


def is_name(word: str, masked: str, start: int) -> bool:
    """A capitalised word in mid-sentence (after a small letter or a comma on its line) or beside another
    capitalised word: a name."""
    if not (word[:1].isupper() and word[1:2].islower()):
        return False
    lo, hi = _around(masked, start, start + len(word))
    return _BEFORE.search(masked, lo, start) is not None or _AFTER.match(masked, start + len(word), hi) is not None
