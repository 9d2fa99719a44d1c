"""Phones: ARPAbet as one character a phone, the CMU Pronouncing Dictionary, and a distance between sounds.

The letter-to-phone model is the corrector's own `Seq2Seq`, which reads and writes characters. Writing each of
ARPAbet's 39 phones (stress dropped) as one character of its own lets that model, its search, its exports and
its plots serve pronunciation unchanged: a pronunciation is a string like any word (`S IY` is "S6"). The
model's alphabet is the letters followed by these phone characters (`G2P_ALPHABET`).

`phone_distance` is an edit distance over those strings whose costs follow how sounds are confused when people
spell by ear: a vowel for another vowel, a voiced consonant for its voiceless twin, a dropped or added schwa
cost less than a consonant for an unrelated one.
"""

from __future__ import annotations

import gzip
from functools import lru_cache

from typofix.files.packagedata import packaged
from typofix.words.vocab import DEFAULT_ALPHABET

# Phone -> (its character, its class). One-letter phones keep their letter; the rest take other upper-case
# letters, digits and three signs. None of these occurs in a word the model reads (lower case, ' and -).
PHONES: dict[str, tuple[str, str]] = {
    "AA": ("A", "vowel"), "AE": ("0", "vowel"), "AH": ("1", "vowel"), "AO": ("O", "vowel"), "AW": ("2", "vowel"),
    "AY": ("3", "vowel"), "EH": ("E", "vowel"), "ER": ("4", "vowel"), "EY": ("5", "vowel"), "IH": ("I", "vowel"),
    "IY": ("6", "vowel"), "OW": ("7", "vowel"), "OY": ("8", "vowel"), "UH": ("U", "vowel"), "UW": ("9", "vowel"),
    "B": ("B", "stop"), "D": ("D", "stop"), "G": ("G", "stop"), "K": ("K", "stop"), "P": ("P", "stop"),
    "T": ("T", "stop"), "CH": ("C", "affricate"), "JH": ("J", "affricate"), "DH": ("X", "fricative"),
    "F": ("F", "fricative"), "S": ("S", "fricative"), "SH": ("^", "fricative"), "TH": ("H", "fricative"),
    "V": ("V", "fricative"), "Z": ("Z", "fricative"), "ZH": ("~", "fricative"), "HH": ("Q", "aspirate"),
    "L": ("L", "liquid"), "R": ("R", "liquid"), "M": ("M", "nasal"), "N": ("N", "nasal"), "NG": ("@", "nasal"),
    "W": ("W", "semivowel"), "Y": ("Y", "semivowel"),
}
PHONE_OF = {char: phone for phone, (char, _) in PHONES.items()}
CLASS_OF = {char: kind for char, kind in PHONES.values()}
PHONE_ALPHABET = "".join(char for char, _ in PHONES.values())
G2P_ALPHABET = DEFAULT_ALPHABET + PHONE_ALPHABET  # what the letter-to-phone model reads and writes
assert len(set(G2P_ALPHABET)) == len(G2P_ALPHABET), "a phone character twice, or one that is also a letter"

# Consonants that differ in voicing only (the typo writer's "s" for "z", "f" for "v").
_TWINS = {frozenset(PHONES[a][0] + PHONES[b][0]) for a, b in
          [("P", "B"), ("T", "D"), ("K", "G"), ("F", "V"), ("S", "Z"), ("SH", "ZH"), ("CH", "JH"), ("TH", "DH"),
           ("S", "SH"), ("Z", "ZH"), ("CH", "SH"), ("JH", "ZH"), ("M", "N"), ("N", "NG")]}
# Costs per edit. A vowel for a vowel (English spells its vowels every which way) and a schwa in or out are the
# cheapest; the numbers are a hand-set scale, not fitted (docs/tuning.md has their history).
VOWEL_FOR_VOWEL, TWIN_FOR_TWIN, SAME_CLASS, OTHER = 0.4, 0.5, 0.8, 1.0
SCHWA_GAP, VOWEL_GAP, CONSONANT_GAP = 0.4, 0.7, 1.0
_SCHWA = PHONES["AH"][0]


class PhoneError(ValueError):
    """Text that is not an ARPAbet pronunciation; the message names the symbol."""


def to_chars(arpabet: str) -> str:
    """`"S IY1"` -> "S6": ARPAbet phones, stress digits allowed and dropped, as the model's characters."""
    chars = []
    for phone in arpabet.split():
        bare = phone.rstrip("012").upper()
        if bare not in PHONES:
            raise PhoneError(f"not an ARPAbet phone: {phone!r}")
        chars.append(PHONES[bare][0])
    return "".join(chars)


def to_arpabet(chars: str) -> str:
    """"S6" -> `"S IY"`; characters that are not phones (a model's stray letter) are left out."""
    return " ".join(PHONE_OF[c] for c in chars if c in PHONE_OF)


def symbol_label(symbol: str) -> str:
    """How a plot names one of a model's symbols: a phone character as its ARPAbet phone ("6" -> "IY"), anything
    else (a letter, "</s>") as itself."""
    return PHONE_OF.get(symbol, symbol)


def phone_labels(chars: str) -> list[str]:
    """"S6" -> ["S", "IY"]: a pronunciation's rows in an attention plot, one label a phone."""
    return [symbol_label(c) for c in chars]


def substitution_cost(a: str, b: str) -> float:
    if a == b:
        return 0.0
    kind_a, kind_b = CLASS_OF.get(a), CLASS_OF.get(b)
    if kind_a == kind_b == "vowel":
        return VOWEL_FOR_VOWEL
    if frozenset(a + b) in _TWINS:
        return TWIN_FOR_TWIN
    return SAME_CLASS if kind_a == kind_b else OTHER


def gap_cost(a: str) -> float:
    if a == _SCHWA:
        return SCHWA_GAP
    return VOWEL_GAP if CLASS_OF.get(a) == "vowel" else CONSONANT_GAP


@lru_cache(maxsize=65536)
def phone_distance(a: str, b: str) -> float:
    """Weighted edit distance between two phone strings (see the module docstring). Symmetric; 0 only for equal
    strings. Pronunciations are short (a median of 6 phones), so the plain dynamic programme is cheap."""
    previous = [0.0]
    for char in b:
        previous.append(previous[-1] + gap_cost(char))
    for x in a:
        current = [previous[0] + gap_cost(x)]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + gap_cost(x), current[j - 1] + gap_cost(y),
                               previous[j - 1] + substitution_cost(x, y)))
        previous = current
    return previous[-1]


class Pronunciations:
    """The CMU Pronouncing Dictionary (data/cmudict.txt.gz): word -> its pronunciations as phone strings, the
    most common first."""

    def __init__(self, entries: dict[str, tuple[str, ...]]):
        self.entries = entries

    @classmethod
    @lru_cache(maxsize=1)
    def bundled(cls) -> "Pronunciations":
        entries: dict[str, list[str]] = {}
        with gzip.open(packaged("cmudict.txt.gz"), "rt", encoding="utf-8") as lines:
            for line in lines:
                word, arpabet = line.rstrip("\n").split("\t")
                entries.setdefault(word, []).append(to_chars(arpabet))
        return cls({word: tuple(found) for word, found in entries.items()})

    def __contains__(self, word: str) -> bool:
        return word in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def of(self, word: str) -> tuple[str, ...]:
        """The listed pronunciations of `word` (lowercase), () when it has none."""
        return self.entries.get(word, ())
