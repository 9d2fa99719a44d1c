"""The written forms of words that are not plain lowercase letters, and the cheapest repair of a token that
differs from one of them only in case or a missing apostrophe: `monday -> Monday`, `paris -> Paris`,
`dont -> don't`, `im -> I'm`, `siobhan -> Siobhan`.

Three kinds, from the cheapest: `case`, a word the acceptance dictionary writes capitalised only (Monday,
Paris, English, Debian); `apostrophe`, a contraction (don't, you're, I'm) whose letters alone are no word;
`name`, a person's or a company's name (Siobhan, Nvidia), which, typed in lower case, may as well be a slip of
a common word (`abel`, `bess`), so the engine weighs it against the best correction with a wider margin.
Acronyms of two or three letters (MIT, AF) are never a repair: in lower case they are far more often slips
(`mit` for might, `af` for of).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from typofix.words.shape import line_bounds

CASE, APOSTROPHE, NAME = "case", "apostrophe", "name"
# Contractions the letters of which people type without the apostrophe: every n't, 're, 've, 'll, 'd and 'm
# form, and 's only after the pronouns and question words it contracts (`agencys` is a misspelled plural, not
# agency's).
_CLITICS = ("n't", "'re", "'ve", "'ll", "'d", "'m")
_S_STEMS = frozenset("it that what there here who he she let where how when why everyone everybody someone "
                     "somebody nobody".split())


# The pronoun alone or with its clitic, between white space or prose punctuation: not a list marker (`i)`,
# `(i)`), an initial or numeral (`i.`), a part of a path, option or identifier.
_PRONOUN = re.compile(r"(?<![\w'\u2019\-./\\(\[$%#@])i(?=(?:['\u2019](?:m|ll|d|ve))?(?![\w\-/\\)\]]|\.\w|\.(?:\s|$)))")


# What may stand on either side of a word of prose without making it something else: a clause's ends, quotes,
# brackets, dashes
_PROSE_MARKS = ",;:.!?\"'()[]\u2018\u2019\u201c\u201d\u2013\u2014\u2026"


def capital_pronouns(text: str) -> str:
    """`text` with the pronoun i (alone, or in i'm, i'll, i'd, i've) written I."""
    return _PRONOUN.sub("I", text) if "i" in text else text


def pronouns_at(text: str) -> list[tuple[int, int]]:
    """(start, end) of each pronoun i (with its clitic) that `capital_pronouns` would write I."""
    return [m.span() for m in _PRONOUN.finditer(text)] if "i" in text else []


def among_words(text: str, start: int, end: int, is_word: Callable[[str], bool]) -> bool:
    """Whether `text[start:end]` (a pronoun) stands among words on its line: written with its clitic (`i'm`,
    `i'll`: no command's argument), or the token before it is a word of the language (`is_word`: a program's
    name is none) or ends a clause, or there is none, and the token after it starts with a letter or a mark
    of prose, or there is none. An argument in a command line stands among other things: `npm i && npm test`,
    `pnpm i -D`, `run npm i`."""
    if text[end:end + 1] in ("'", "\u2019"):  # (the pattern matches the i of i'm alone)
        return True
    line_start, line_end = line_bounds(text, start, end)
    before = text[line_start:start].split()
    if before and before[-1][-1] not in _PROSE_MARKS:
        word = before[-1].lstrip(_PROSE_MARKS)
        if not (word.replace("'", "").replace("\u2019", "").isalpha() and is_word(word)):
            return False
    after = text[end:line_end].split()
    return not after or after[0][0].isalpha() or after[0][0] in _PROSE_MARKS


class Repair(NamedTuple):
    """A token's repaired form (as the dictionary writes it) and its kind (`CASE`, `APOSTROPHE` or `NAME`)."""

    form: str
    kind: str


def is_contraction(word: str) -> bool:
    """A clitic form people type without its apostrophe (don't, I'm, it's), not a possessive (pilot's)."""
    lower = word.lower()
    if lower.endswith(_CLITICS):
        return True
    return lower.endswith("'s") and lower[:-2] in _S_STEMS


class CasedForms:
    """Lowercase letters -> the written form a token with those letters should become, by kind.

    `forms`: `case_forms` of the acceptance dictionary's words written with capitals only (a dict, or the table
    the index cache keeps made ahead, `typofix.words.indexcache.SortedTable`: anything with `get`);
    `listed(word)`: whether the generation list has a word (its contractions: don't, i'm); `names`: names (any
    script), sorted by their lower case. Contractions and names are looked up per token, never indexed."""

    def __init__(self, forms, listed: Callable[[str], bool], names: Sequence[str]):
        self.listed = listed
        self._case = forms
        self._looked_up: dict[str, str | None] = {}  # letters -> their case form, of the tokens `look_up` was given
        self._names = names  # sorted by lower case (data/build_names_terms.py): found by bisection

    def repair(self, token: str) -> Repair | None:
        """The repair of a token typed in lower case (or with a capital first letter, as at a sentence start),
        or None: the cheapest kind first. The repaired form keeps a typed capital first letter
        (`Dont -> Don't`)."""
        if not (token.islower() or (token[:1].isupper() and token[1:].islower())):
            return None
        letters = token.lower()
        found = self._repair(letters)
        if found is None or found.form == token:
            return None
        if token[:1].isupper() and found.form[:1].islower():
            return Repair(found.form[:1].upper() + found.form[1:], found.kind)
        return found

    def look_up(self, tokens: list[str]) -> None:
        """Find the case forms of many tokens at once, ahead of their `repair`s (a text's words to correct): one
        search of the index cache's table for all of them (`SortedTable.get_many`) where one a token cost a
        tenth of a millisecond. Kept until the next `look_up`."""
        if hasattr(self._case, "get_many"):
            letters = list(dict.fromkeys(token.lower() for token in tokens))
            self._looked_up = dict(zip(letters, self._case.get_many(letters)))

    def _repair(self, letters: str) -> Repair | None:
        form = self._looked_up[letters] if letters in self._looked_up else self._case.get(letters)
        if form is not None:
            return Repair(form, CASE)
        contraction = self._contraction(letters)
        if contraction is not None:
            return Repair("I" + contraction[1:] if contraction.startswith("i'") else contraction, APOSTROPHE)
        at = bisect_left(self._names, letters, key=str.lower)
        if at < len(self._names) and self._names[at].lower() == letters:
            return Repair(self._names[at], NAME)
        return None

    def _contraction(self, letters: str) -> str | None:
        """The listed contraction these letters spell without their apostrophe (dont -> don't), if any."""
        for clitic in _CLITICS + ("'s",):
            bare = clitic.replace("'", "")
            if letters.endswith(bare) and len(letters) > len(bare):
                word = letters[:-len(bare)] + clitic
                if is_contraction(word) and self.listed(word):
                    return word
        return None


def case_forms(capitalised: Iterable[str]) -> dict[str, str]:
    """Lowercase letters -> the form of the capitalised words with those letters that a token typed in lower case
    is repaired to (`_preferred` of several; no acronym of three letters or fewer)."""
    forms: dict[str, str] = {}
    for word in capitalised:
        if word.isupper() and len(word) <= 3:
            continue
        held = forms.setdefault(word.lower(), word)
        if held != word and _preferred(word) < _preferred(held):
            forms[word.lower()] = word
    return forms


def _preferred(word: str) -> tuple[int, str]:
    """Of two forms of the same letters, fewest capitals first (Unix before UNIX), then alphabetical: the same
    form on every run, whatever order the forms come in."""
    return sum(c.isupper() for c in word), word
