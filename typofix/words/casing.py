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

from collections.abc import Iterable
from typing import NamedTuple

CASE, APOSTROPHE, NAME = "case", "apostrophe", "name"
# Contractions the letters of which people type without the apostrophe: every n't, 're, 've, 'll, 'd and 'm
# form, and 's only after the pronouns and question words it contracts (`agencys` is a misspelled plural, not
# agency's).
_CLITICS = ("n't", "'re", "'ve", "'ll", "'d", "'m")
_S_STEMS = frozenset("it that what there here who he she let where how when why everyone everybody someone "
                     "somebody nobody".split())


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

    `capitalised`: the acceptance dictionary's words written with capitals; `contractions`: the generation
    list's apostrophe forms; `names`: names lists (any script); `is_word(letters)`: whether a lowercase token
    is itself a word as typed, which no repair may override (`cant`, `wont`, `ill` stay)."""

    def __init__(self, capitalised: Iterable[str], contractions: Iterable[str], names: Iterable[str]):
        self._forms: dict[str, Repair] = {}
        for word in names:
            self._offer(word.lower(), Repair(word, NAME))
        # Fewest capitals first (Unix before UNIX), then alphabetical: the same form on every run.
        for word in sorted(capitalised, key=lambda w: (sum(c.isupper() for c in w), w)):
            if not (word.isupper() and len(word) <= 3):
                self._offer(word.lower(), Repair(word, CASE))
        for word in contractions:
            if is_contraction(word):
                written = "I" + word[1:] if word.startswith("i'") else word
                self._offer(word.replace("'", ""), Repair(written, APOSTROPHE))

    def _offer(self, letters: str, repair: Repair) -> None:
        """Keep the cheapest kind for `letters`; among equals, the first offered."""
        held = self._forms.get(letters)
        if held is None or _RANK[repair.kind] < _RANK[held.kind]:
            self._forms[letters] = repair

    def repair(self, token: str) -> Repair | None:
        """The repair of a token typed in lower case (or with a capital first letter, as at a sentence start),
        or None. The repaired form keeps a typed capital first letter (`Dont -> Don't`)."""
        if not (token.islower() or (token[:1].isupper() and token[1:].islower())):
            return None
        found = self._forms.get(token.lower())
        if found is None or found.form == token:
            return None
        if token[:1].isupper() and found.form[:1].islower():
            return Repair(found.form[:1].upper() + found.form[1:], found.kind)
        return found

    def __len__(self) -> int:
        return len(self._forms)


_RANK = {CASE: 0, APOSTROPHE: 1, NAME: 2}
