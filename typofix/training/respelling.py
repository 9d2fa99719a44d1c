"""Sound respelling: a word's sounds written with other common spellings of the same sounds, the misspellings
of people who spell by ear (`juice -> juse`, `phone -> fone`, `night -> nite`, `receive -> reseeve`).

The word's pronunciation comes from CMUdict (`typofix.words.phones`). Its letters are aligned to its phones by
the cheapest split into chunks, each chunk a spelling of one phone (or of a phone pair, `x` for K S, `u` for
Y UW) from `SPELLINGS`, or a silent letter. A respelling swaps one chunk for another spelling of its sound,
drawn by how common that spelling is. The spellings and their rough weights follow the phoneme-grapheme
correspondences of English spelling (Hanna et al. 1966, "Phoneme-Grapheme Correspondences as Cues to Spelling
Improvement"; Carney 1994, "A Survey of English Spelling"); they are a hand-set table, not fitted.
"""

from __future__ import annotations

import random
from functools import lru_cache

from typofix.words.phones import PHONES, Pronunciations, to_chars

_SPELLINGS_BY_ARPABET: dict[str, dict[str, float]] = {
    "AA": {"o": 3, "a": 2, "au": 0.3, "aw": 0.2, "ah": 0.2},
    "AE": {"a": 5, "ai": 0.1},
    "AH": {"a": 2, "u": 2, "o": 1, "e": 1, "i": 0.5, "ou": 0.5, "io": 0.2},
    "AO": {"o": 2, "au": 1, "aw": 1, "a": 1, "ough": 0.3, "augh": 0.3, "ou": 0.3, "oa": 0.2, "al": 0.3},
    "AW": {"ou": 2, "ow": 2},
    "AY": {"i": 3, "y": 1, "igh": 1, "ie": 0.5, "ye": 0.2, "uy": 0.1},
    "EH": {"e": 4, "ea": 1, "ai": 0.2, "a": 0.3, "ie": 0.1},
    "ER": {"er": 3, "ir": 1, "ur": 1, "or": 0.5, "ear": 0.5, "our": 0.3, "ar": 0.3, "re": 0.2},
    "EY": {"a": 3, "ai": 1, "ay": 1, "ei": 0.5, "ey": 0.3, "eigh": 0.3, "ea": 0.2},
    "IH": {"i": 5, "y": 1, "e": 1, "ie": 0.1, "ui": 0.1},
    "IY": {"e": 2, "ee": 2, "ea": 2, "ie": 1, "ei": 0.5, "y": 1, "i": 1, "ey": 0.3},
    "OW": {"o": 4, "oa": 1, "ow": 1, "oe": 0.3, "ou": 0.3, "ough": 0.2, "eau": 0.1},
    "OY": {"oi": 2, "oy": 2},
    "UH": {"oo": 2, "u": 2, "ou": 0.5},
    "UW": {"oo": 2, "u": 2, "ew": 1, "ue": 1, "ou": 0.5, "ui": 0.5, "o": 0.5, "oe": 0.1},
    "B": {"b": 5, "bb": 1},
    "CH": {"ch": 3, "tch": 1, "t": 0.5},
    "D": {"d": 5, "dd": 1, "ed": 0.5},
    "DH": {"th": 1},
    "F": {"f": 4, "ff": 1, "ph": 1, "gh": 0.3},
    "G": {"g": 4, "gg": 1, "gh": 0.2, "gu": 0.3},
    "HH": {"h": 3, "wh": 0.3},
    "JH": {"j": 2, "g": 2, "dg": 0.5, "dge": 0.5, "ge": 0.5, "gg": 0.1, "d": 0.3},
    "K": {"c": 3, "k": 2, "ck": 1, "ch": 0.5, "cc": 0.3, "q": 0.3, "qu": 0.3},
    "L": {"l": 5, "ll": 2, "le": 0.3},
    "M": {"m": 5, "mm": 1, "mb": 0.2, "mn": 0.1},
    "N": {"n": 5, "nn": 1, "kn": 0.3, "gn": 0.3},
    "NG": {"ng": 3, "n": 2},
    "P": {"p": 5, "pp": 1},
    "R": {"r": 5, "rr": 1, "wr": 0.3, "rh": 0.1},
    "S": {"s": 5, "ss": 1, "c": 2, "ce": 0.5, "sc": 0.5, "se": 0.3},
    "SH": {"sh": 3, "ti": 2, "ci": 1, "ssi": 0.5, "ch": 0.3, "s": 0.3, "si": 0.3, "sc": 0.1},
    "T": {"t": 5, "tt": 1, "ed": 0.3},
    "TH": {"th": 1},
    "V": {"v": 5, "ve": 0.5},
    "W": {"w": 4, "wh": 1, "u": 0.5},
    "Y": {"y": 3, "i": 0.5},
    "Z": {"z": 2, "s": 3, "zz": 0.5, "ze": 0.3, "se": 0.5},
    "ZH": {"s": 2, "si": 1, "g": 0.5, "z": 0.3},
    # One chunk, two sounds.
    "K S": {"x": 3, "ks": 1, "cks": 0.5, "cs": 0.3},
    "Y UW": {"u": 3, "ew": 1, "ue": 0.5, "eu": 0.3},
    "K W": {"qu": 3, "kw": 0.3},
    "G Z": {"x": 1, "gz": 0.2},
}
# Sound (one or two phone characters) -> {spelling: weight}.
SPELLINGS: dict[str, dict[str, float]] = {to_chars(sound): spellings
                                          for sound, spellings in _SPELLINGS_BY_ARPABET.items()}
# Letters that may spell no sound at all (the e of "phone", the p of "receipt", the h of "honest").
SILENT = set("ehbkwuptlgd")
SILENT_COST, CHUNK_COST = 1.0, 0.1
# Long vowels a writer marks with a final e (nite, fone, juse): after a swap to one of their one-letter
# spellings before a word's last consonant, "e" is added with this probability.
MAGIC_E = {PHONES[p][0] for p in ("AY", "EY", "OW", "UW", "IY")}
MAGIC_E_RATE = 0.5


@lru_cache(maxsize=200_000)
def align(word: str, phones: str) -> tuple[tuple[str, str], ...] | None:
    """The cheapest split of `word` into (chunk, sound) pairs, a silent chunk's sound empty; None when none
    exists. Cost: a silent letter 1, a spelled chunk 0.1, so the fewest silent letters win, then fewer chunks."""
    n, m = len(word), len(phones)
    best: dict[tuple[int, int], tuple[float, tuple]] = {(0, 0): (0.0, ())}
    for i in range(n + 1):
        for j in range(m + 1):
            if (i, j) not in best:
                continue
            cost, path = best[(i, j)]
            steps = []
            if i < n and word[i] in SILENT:
                steps.append((i + 1, j, SILENT_COST, (word[i], "")))
            for width in (1, 2):
                sound = phones[j:j + width]
                if len(sound) == width:
                    for spelling in SPELLINGS.get(sound, ()):
                        if word.startswith(spelling, i):
                            steps.append((i + len(spelling), j + width, CHUNK_COST, (spelling, sound)))
            for i2, j2, step_cost, chunk in steps:
                if (i2, j2) not in best or cost + step_cost < best[(i2, j2)][0]:
                    best[(i2, j2)] = (cost + step_cost, path + (chunk,))
    found = best.get((n, m))
    return found[1] if found else None


class SoundRespelling:
    """Proposes one respelling of a word (see the module docstring), in `HandSetChannel.propose`'s terms:
    (kind, start, end, replacement) on the word's text."""

    kind = "respell"

    def __init__(self, pronunciations: Pronunciations | None = None):
        self.pronunciations = pronunciations or Pronunciations.bundled()

    def propose(self, text: str, free: list[int], rng: random.Random):
        listed = self.pronunciations.of(text)
        if not listed:  # not a listed word, or already changed by an earlier edit
            return None
        chunks = align(text, rng.choice(listed))
        if chunks is None:
            return None
        choices, start = [], 0
        for index, (spelling, sound) in enumerate(chunks):
            end = start + len(spelling)
            # No doubled letter at a word's start (nobody writes "ppoetry").
            others = {s: w for s, w in SPELLINGS.get(sound, {}).items()
                      if s != spelling and not (start == 0 and len(s) == 2 and s[0] == s[1])}
            if others and all(i in free for i in range(start, end)):
                choices.append((start, end, sound, others, index == len(chunks) - 2))
            start = end
        if not choices:
            return None
        start, end, sound, others, before_last = rng.choice(choices)
        replacement = rng.choices(list(others), weights=list(others.values()))[0]
        last_is_consonant = before_last and chunks[-1][1] and chunks[-1][1][0] not in MAGIC_E
        if (sound in MAGIC_E and len(replacement) == 1 and last_is_consonant and end < len(text)
                and rng.random() < MAGIC_E_RATE):
            return self.kind, start, len(text), replacement + text[end:] + "e"
        return self.kind, start, end, replacement
