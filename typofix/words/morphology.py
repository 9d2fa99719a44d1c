"""Words built from a known stem by productive affixes: `unshareable`, `reupload`, `nonblocking`,
`overcommitted`, `rewatchable` are words although no dictionary lists them.

Hunspell accepts such words through the affix rules its dictionary declares per stem; those rules are
conservative (`reupload` and `unfollowed` are not in them). Here any prefix of `PREFIXES` and any suffix of
`SUFFIXES` may attach to any known stem, with English's spelling changes at the seam (a final e dropped before a
vowel, a doubled final consonant, y to i), but only where the result is safely far from a misspelling: the stem
must be long enough (`MIN_STEM`) that a misspelled common word rarely splits into affix + stem (`untill` is `un`
+ `till`, a misspelling of `until`), and a derived word is refused where the same letters without one of them
(or with two neighbours swapped) are a common word (`FREQUENT_NEIGHBOUR`): the shape of a slip, not a coinage.
How often this wrongly accepts a dev misspelling: `python -m bench.morphology_risk`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from string import ascii_lowercase

from typofix.words.distance import one_edit_strings

PREFIXES = ("re", "un", "non", "sub", "pre", "mis", "over", "multi", "co", "anti", "semi", "cross", "micro")
# Suffixes a dictionary seldom lists on every stem that takes them (watchable, shareable, scriptless).
DERIVING = ("able", "ability", "ably", "ness", "less", "lessly", "lessness")
# Inflections a dictionary does list for its own words (begin -> beginning, not begining): allowed only on a word
# this module derived, never on a listed one.
INFLECTING = ("s", "es", "ed", "ing", "er", "ers", "or", "ors", "ly")
_DERIVING_INSIDE = re.compile("|".join(DERIVING))
MIN_STEM = 4  # letters of the known stem under a suffix
MIN_PREFIXED_STEM = 6  # under a two-letter prefix (un, re, co): `untill` (un + till), `unstand` stay unknown


def stems_of(word: str, suffix: str) -> list[str]:
    """The stems `word` may be built from with `suffix` attached, by English's spelling at the seam."""
    if not word.endswith(suffix) or len(word) - len(suffix) < 2:
        return []
    base = word[:-len(suffix)]
    found = [base]
    if suffix[0] in "aeiouy":
        found.append(base + "e")  # shar(e)able
        if len(base) >= 3 and base[-1] == base[-2] and base[-1] not in "aeiouswlz":
            found.append(base[:-1])  # reupload-ed, but committ-ed -> commit
    if base.endswith("i"):
        found.append(base[:-1] + "y")  # happi-ness -> happy
    return found


class Morphology:
    """Decides whether a word is a known stem with productive affixes. `known(stem)` says whether a stem is a
    dictionary word; `any_frequent(words)` whether any of `words` is common enough that a slip of it must not
    pass for a coinage (asked of all of a word's few hundred neighbours at once: one lookup in the word list for
    the lot, where one a neighbour cost a tenth of a millisecond each)."""

    def __init__(self, known: Callable[[str], bool], any_frequent: Callable[[list[str]], bool]):
        self.known, self.any_frequent = known, any_frequent
        self.derived = lru_cache(maxsize=65536)(self._derived)

    def _derived(self, word: str) -> bool:
        if not word.isalpha() or not word.islower() or len(word) < MIN_STEM + 2:
            return False
        # Every derived word has a prefix or a deriving suffix (an inflection attaches to a derived word only):
        # most words are turned away here, at the cost of one startswith and one search.
        if not (word.startswith(PREFIXES) or _DERIVING_INSIDE.search(word)):
            return False
        return self._built(word, depth=0) and not near_frequent(word, self.any_frequent)

    def _built(self, word: str, depth: int, prefixed: bool = False) -> bool:
        """`word` is a known stem under one prefix at most and at most three affixes in all, at least one."""
        if depth >= 4:
            return False
        for prefix in () if prefixed else PREFIXES:
            rest = word[len(prefix):]
            if word.startswith(prefix) and len(rest) >= MIN_PREFIXED_STEM - max(0, len(prefix) - 2):
                rest = rest[1:] if rest[0] == "-" else rest
                if self.known(rest) or self._built(rest, depth + 1, prefixed=True):
                    return True
        for suffix in DERIVING:
            if suffix.startswith("abl") and self.known(word.replace("abl", "ibl")):
                return False  # responsable: a misspelling of a listed -ible word
            for stem in stems_of(word, suffix):
                if len(stem) >= MIN_STEM and (self.known(stem) or self._built(stem, depth + 1, prefixed)):
                    return True
        for suffix in INFLECTING:
            for stem in stems_of(word, suffix):
                if len(stem) >= MIN_STEM + 2 and not self.known(stem) and self._built(stem, depth + 1, prefixed):
                    return True
        return False


def near_frequent(word: str, any_frequent: Callable[[list[str]], bool]) -> bool:
    """Whether a common word is one edit away (a letter left out, doubled, swapped with its neighbour or
    mistaken): the shape of the usual slips (`untill`/until, `recomending`/recommending, `guid`/guide)."""
    return any_frequent(list(one_edit_strings(word, ascii_lowercase)))
