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

import numpy as np

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
    """What writing phone `b` for phone `a` costs (0 for the same phone)."""
    if a == b:
        return 0.0
    kind_a, kind_b = CLASS_OF.get(a), CLASS_OF.get(b)
    if kind_a == kind_b == "vowel":
        return VOWEL_FOR_VOWEL
    if frozenset(a + b) in _TWINS:
        return TWIN_FOR_TWIN
    return SAME_CLASS if kind_a == kind_b else OTHER


def gap_cost(a: str) -> float:
    """What leaving out (or putting in) phone `a` costs."""
    if a == _SCHWA:
        return SCHWA_GAP
    return VOWEL_GAP if CLASS_OF.get(a) == "vowel" else CONSONANT_GAP


# The costs as tables over phone numbers (0..38), for the vectorised distance.
_NUMBER = {char: i for i, char in enumerate(PHONE_ALPHABET)}
_SUBSTITUTION = np.array([[substitution_cost(a, b) for b in PHONE_ALPHABET] for a in PHONE_ALPHABET])  # (39, 39)
_GAP = np.array([gap_cost(a) for a in PHONE_ALPHABET])  # (39,)
_NUMBER_OF_CODE = np.full(256, -1, dtype=np.int64)  # an ASCII code -> its phone's number, -1 for no phone
_NUMBER_OF_CODE[[ord(c) for c in PHONE_ALPHABET]] = np.arange(len(PHONE_ALPHABET))


def phone_distances(a: list[str], b: list[str]) -> np.ndarray:
    """(M,) the weighted edit distance between each pair of phone strings a[i], b[i] (see the module docstring):
    symmetric, 0 only for equal strings. One dynamic programme for many pairs at once, row by row, each cell a
    numpy step over every pair: thousands of pairs cost about what one does. The pairs go in groups of similar
    length (`_GROUP` pairs or more), each group's table as wide as its longest pair: pronunciations are short (a
    median of 6 phones), and one table as wide as the longest of all worked out four times the cells."""
    size = len(a)
    if not size:
        return np.zeros(0)
    length_a, length_b = _lengths(a), _lengths(b)
    if size < 2 * _GROUP:
        return _distances(a, b, length_a, length_b)
    out = np.empty(size)
    order = np.lexsort([length_b, length_a]).tolist()
    groups = size // _GROUP  # the last one takes the rest
    for g in range(groups):
        part = order[g * _GROUP:(g + 1) * _GROUP if g + 1 < groups else size]
        out[part] = _distances([a[k] for k in part], [b[k] for k in part], length_a[part], length_b[part])
    return out


_GROUP = 4096  # pairs per table: enough that a numpy step's overhead is small beside its work


def _distances(a: list[str], b: list[str], length_a: np.ndarray, length_b: np.ndarray) -> np.ndarray:
    """`phone_distances` of pairs in one table; their lengths given."""
    size = len(a)
    rows, cols = int(length_a.max()), int(length_b.max())
    # (rows, M), (cols, M); the padding is phone 0, never read past a length
    x, y = _numbers(a, length_a, rows), _numbers(b, length_b, cols)
    gap_x, gap_y = _GAP[x], _GAP[y]
    # Pairs last: every cell's step reads and writes one contiguous row of M numbers. Two rows of the table are
    # kept, the one before and the one being filled; each pair's answer is read when its row is done.
    before = np.zeros((cols + 1, size))  # (cols + 1, M)
    before[1:] = np.cumsum(gap_y, axis=0)
    first_column = np.cumsum(gap_x, axis=0)  # (rows, M)
    out = np.where(length_a == 0, before[length_b, np.arange(size)], 0.0)
    for i in range(1, rows + 1):
        # A cell is the least of: the cell above and a gap, the cell above-left and a substitution (both known
        # for the whole row at once), and the cell to its left and a gap (known one cell at a time).
        substitute = _SUBSTITUTION[x[i - 1][None, :], y]  # (cols, M)
        known = np.minimum(before[1:] + gap_x[i - 1], before[:-1] + substitute)  # (cols, M)
        row = np.empty_like(before)
        row[0] = first_column[i - 1]
        for j in range(1, cols + 1):
            np.minimum(known[j - 1], row[j - 1] + gap_y[j - 1], out=row[j])
        ending = np.flatnonzero(length_a == i)
        out[ending] = row[length_b[ending], ending]
        before = row
    return out


def phone_distance(a: str, b: str) -> float:
    """`phone_distances` of one pair."""
    return float(phone_distances([a], [b])[0])


def _lengths(strings: list[str]) -> np.ndarray:
    return np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))


def _numbers(strings: list[str], lengths: np.ndarray, width: int) -> np.ndarray:
    """(width, M) the phone numbers of each string, a column each, 0 past its end."""
    codes = np.frombuffer("".join(strings).encode("ascii", errors="replace"), dtype=np.uint8)
    phones = _NUMBER_OF_CODE[codes]
    if len(phones) and phones.min() < 0:
        bad = next(c for s in strings for c in s if c not in _NUMBER)
        raise KeyError(bad)
    numbers = np.zeros((width, len(strings)), dtype=np.int64)
    column = np.repeat(np.arange(len(strings)), lengths)
    numbers[np.arange(len(phones)) - np.repeat(np.cumsum(lengths) - lengths, lengths), column] = phones
    return numbers


def read_pronunciations(path) -> dict[str, list[str]]:
    """word -> its pronunciations as phone strings, in file order, from a `word<TAB>PH PH ...` file (gzipped
    when its name ends in .gz). PhoneError, naming the file and line, for a line that is not one."""
    found: dict[str, list[str]] = {}
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            word, tab, arpabet = line.rstrip("\n").partition("\t")
            try:
                if not tab or not word:
                    raise PhoneError("expected word<TAB>phones")
                found.setdefault(word, []).append(to_chars(arpabet))
            except PhoneError as err:
                raise PhoneError(f"{path}:{number}: {err}") from None
    return found


class Pronunciations:
    """Word -> its pronunciations as phone strings, the most common first: the CMU Pronouncing Dictionary
    (`bundled`, data/cmudict.txt.gz), or the model's for the listed words it lacks (`for_lexicon`,
    data/lexicon-phones.txt.gz, built by data/build_lexicon_phones.py)."""

    def __init__(self, entries: dict[str, tuple[str, ...]]):
        self.entries = entries

    @classmethod
    def bundled(cls) -> "Pronunciations":
        return _packaged("cmudict.txt.gz")

    @classmethod
    def for_lexicon(cls) -> "Pronunciations":
        return _packaged("lexicon-phones.txt.gz")

    def __contains__(self, word: str) -> bool:
        return word in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def of(self, word: str) -> tuple[str, ...]:
        """The listed pronunciations of `word` (lowercase), () when it has none."""
        return self.entries.get(word, ())


@lru_cache(maxsize=2)
def _packaged(name: str) -> Pronunciations:
    return Pronunciations({w: tuple(found) for w, found in read_pronunciations(packaged(name)).items()})
