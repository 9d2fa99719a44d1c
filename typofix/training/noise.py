"""The noise model: turns a correct word into a realistic misspelling and says where the edits are.

Two families of error, as in the literature on human misspellings (Damerau 1964; Kukich 1992, "Techniques for
automatically correcting words in text"; Mitton 1996, "English Spelling and the Computer"):

* keyboard slips (typing): a QWERTY-neighbour substitution or insertion, an omission, an adjacent
  transposition, a doubled key;
* cognitive / phonetic errors (spelling): the writer knows the sound but not the letters, so one grapheme is
  swapped for another that spells the same sound: ie/ei, doubled/single consonants, unstressed vowels,
  silent letters, c/k/ck/s, ph/f, -tion/-sion, -ance/-ence, -able/-ible, ...

The second family is the larger one in real data (Birkbeck: most errors), so it is a data table
(`CONFUSIONS`), one row per grapheme swap, grouped so each group's weight is a config value.

That is the hand-set channel (`HandSetChannel`). The fitted one (`typofix.training.channel.FittedChannel`,
`data.channel=fitted`) takes its kinds, confusions, positions and edit counts from real misspellings of the dev
sets instead; `TypoGenerator` draws from either the same way.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from typofix.training.channel import FittedChannel
from typofix.training.respelling import SoundRespelling

# --- keyboard geometry ------------------------------------------------------------------------------------
# Rows of a QWERTY keyboard with their horizontal stagger (in key widths); neighbours are keys whose centres
# lie within 1.3 key widths, which gives the usual 3-6 neighbours per key.
QWERTY_ROWS = (("qwertyuiop", 0.0), ("asdfghjkl", 0.25), ("zxcvbnm", 0.75))


def _keyboard_neighbours() -> dict[str, str]:
    centres = {ch: (x + offset, y) for y, (row, offset) in enumerate(QWERTY_ROWS) for x, ch in enumerate(row)}
    return {
        a: "".join(b for b, (bx, by) in centres.items() if b != a and (ax - bx) ** 2 + (ay - by) ** 2 <= 1.3**2)
        for a, (ax, ay) in centres.items()
    }


KEYBOARD_NEIGHBOURS = _keyboard_neighbours()
VOWELS = "aeiou"
CONSONANTS = "bcdfghjklmnpqrstvwxyz"

# --- grapheme confusions ----------------------------------------------------------------------------------
# (group, pattern, replacement, weight). "^" anchors a pattern at the word start, "$" at its end. Rows come
# from the error classes in Kukich (1992) and Mitton (1996) and from the dev sets' most frequent confusions
# (e.g. seperate, definately, recieve, occured, goverment, accomodate, neccessary, beleive, untill).
CONFUSIONS: tuple[tuple[str, str, str, float], ...] = (
    # ie / ei (recieve, beleive, wierd)
    ("ie_ei", "ie", "ei", 1.0), ("ie_ei", "ei", "ie", 1.0),
    ("ie_ei", "ie", "i", 0.3), ("ie_ei", "ei", "e", 0.3), ("ie_ei", "ie", "ee", 0.3), ("ie_ei", "ea", "ee", 0.4),
    ("ie_ei", "ee", "ea", 0.4), ("ie_ei", "ea", "e", 0.5), ("ie_ei", "ai", "a", 0.4), ("ie_ei", "ai", "ay", 0.2),
    ("ie_ei", "ay", "ai", 0.2), ("ie_ei", "ou", "o", 0.4), ("ie_ei", "ou", "ow", 0.2), ("ie_ei", "ow", "ou", 0.2),
    ("ie_ei", "oo", "u", 0.2), ("ie_ei", "u", "oo", 0.1), ("ie_ei", "au", "a", 0.2), ("ie_ei", "eau", "o", 0.2),
    ("ie_ei", "ue$", "u", 0.2), ("ie_ei", "oa", "o", 0.3), ("ie_ei", "ui", "u", 0.2),
    # silent letters dropped (nite, rite, lam, goverment, enviroment, wich)
    ("silent", "^kn", "n", 1.0), ("silent", "^wr", "r", 1.0), ("silent", "mb$", "m", 1.0), ("silent", "gh", "", 0.6),
    ("silent", "ght", "t", 0.6), ("silent", "^gn", "n", 0.5), ("silent", "gn", "n", 0.3), ("silent", "^ps", "s", 0.5),
    ("silent", "wh", "w", 1.0), ("silent", "rh", "r", 0.5), ("silent", "gu", "g", 0.4), ("silent", "bt", "t", 0.5),
    ("silent", "stl", "sl", 0.4), ("silent", "mn$", "m", 0.6), ("silent", "rnm", "rm", 0.8), ("silent", "ronm", "rom", 0.8),
    ("silent", "e$", "", 1.0), ("silent", "ould", "oud", 0.3), ("silent", "alk", "ak", 0.3), ("silent", "^h", "", 0.3),
    ("silent", "sc", "s", 0.6), ("silent", "dge", "ge", 0.6), ("silent", "tch", "ch", 0.6), ("silent", "ck", "c", 0.5),
    ("silent", "nds", "ns", 0.2), ("silent", "dn", "n", 0.2), ("silent", "sten", "sen", 0.3), ("silent", "w", "", 0.1),
    ("silent", "h", "", 0.2), ("silent", "u", "", 0.15), ("silent", "r", "", 0.15), ("silent", "n", "", 0.1),
    # c / k / ck / s / ss / z / x / q (sience, excercise, reconise, realise/realize)
    ("c_k_s", "c", "k", 0.8), ("c_k_s", "k", "c", 0.8), ("c_k_s", "ck", "k", 0.8), ("c_k_s", "k", "ck", 0.3),
    ("c_k_s", "c", "s", 1.0), ("c_k_s", "s", "c", 1.0), ("c_k_s", "ss", "s", 0.3), ("c_k_s", "s", "z", 0.6),
    ("c_k_s", "z", "s", 0.6), ("c_k_s", "ise", "ize", 0.5), ("c_k_s", "ize", "ise", 0.5), ("c_k_s", "x", "ks", 0.4),
    ("c_k_s", "x", "cs", 0.2), ("c_k_s", "ks", "x", 0.2), ("c_k_s", "xc", "x", 0.5), ("c_k_s", "x", "xc", 0.3),
    ("c_k_s", "qu", "kw", 0.3), ("c_k_s", "que$", "k", 0.3), ("c_k_s", "ch", "c", 0.3), ("c_k_s", "ch", "sh", 0.3),
    ("c_k_s", "sh", "ch", 0.2), ("c_k_s", "ce$", "se", 0.4), ("c_k_s", "se$", "ce", 0.4), ("c_k_s", "cc", "c", 0.3),
    ("c_k_s", "s", "sh", 0.1), ("c_k_s", "ge", "je", 0.2), ("c_k_s", "g", "j", 0.3), ("c_k_s", "j", "g", 0.2),
    ("c_k_s", "ci", "si", 0.4), ("c_k_s", "ture", "cher", 0.3), ("c_k_s", "su", "shu", 0.1), ("c_k_s", "d", "t", 0.3),
    ("c_k_s", "t", "d", 0.3), ("c_k_s", "b", "p", 0.1), ("c_k_s", "p", "b", 0.1), ("c_k_s", "v", "f", 0.1),
    ("c_k_s", "th", "f", 0.1), ("c_k_s", "th", "t", 0.1), ("c_k_s", "m", "n", 0.2), ("c_k_s", "n", "m", 0.2),
    # ph / f / gh
    ("ph_f", "ph", "f", 1.0), ("ph_f", "f", "ph", 0.3), ("ph_f", "gh$", "f", 0.4), ("ph_f", "ough", "uf", 0.2),
    ("ph_f", "ough", "ow", 0.2), ("ph_f", "ough", "o", 0.2), ("ph_f", "augh", "af", 0.2), ("ph_f", "augh", "or", 0.2),
    # suffixes (-tion/-sion/-cian, -ance/-ence, -ant/-ent, -able/-ible, -ary/-ery, ...)
    ("suffix", "tion", "sion", 1.0), ("suffix", "sion", "tion", 1.0), ("suffix", "cian", "tion", 0.5),
    ("suffix", "tion", "cian", 0.3), ("suffix", "tion", "shun", 0.2), ("suffix", "ssion", "tion", 0.4),
    ("suffix", "ance", "ence", 1.0), ("suffix", "ence", "ance", 1.0), ("suffix", "ant", "ent", 0.8),
    ("suffix", "ent", "ant", 0.8), ("suffix", "able", "ible", 1.0), ("suffix", "ible", "able", 1.0),
    ("suffix", "ary$", "ery", 0.8), ("suffix", "ery$", "ary", 0.8), ("suffix", "ory$", "ary", 0.4),
    ("suffix", "ary$", "ory", 0.3), ("suffix", "er$", "or", 0.5), ("suffix", "or$", "er", 0.5), ("suffix", "er$", "a", 0.4),
    ("suffix", "our$", "or", 0.5), ("suffix", "or$", "our", 0.3), ("suffix", "re$", "er", 0.4), ("suffix", "er$", "re", 0.2),
    ("suffix", "le$", "el", 0.6), ("suffix", "el$", "le", 0.5), ("suffix", "al$", "le", 0.4), ("suffix", "le$", "al", 0.3),
    ("suffix", "ally$", "ly", 0.8), ("suffix", "ly$", "ley", 0.3), ("suffix", "ful$", "full", 0.6), ("suffix", "ed$", "t", 0.4),
    ("suffix", "ed$", "d", 0.4), ("suffix", "ied$", "yed", 0.3), ("suffix", "ies$", "ys", 0.3), ("suffix", "ious", "ous", 0.4),
    ("suffix", "eous", "ous", 0.4), ("suffix", "ous", "us", 0.4), ("suffix", "ise$", "ice", 0.2), ("suffix", "ment", "mant", 0.3),
    ("suffix", "ness", "nes", 0.4), ("suffix", "ing$", "in", 0.4), ("suffix", "ing$", "eing", 0.2), ("suffix", "ssion", "sion", 0.3),
    ("suffix", "ity$", "aty", 0.2), ("suffix", "ely$", "ly", 0.4), ("suffix", "ily$", "aly", 0.2), ("suffix", "es$", "s", 0.4),
    # y / i
    ("y_i", "y", "i", 1.0), ("y_i", "i", "y", 0.6), ("y_i", "y$", "ie", 0.4), ("y_i", "ie$", "y", 0.3), ("y_i", "y$", "ey", 0.3),
    ("y_i", "ey$", "y", 0.3), ("y_i", "i", "ee", 0.2), ("y_i", "ee", "i", 0.3), ("y_i", "y$", "ee", 0.2),
    # vowel digraph / r-controlled vowels (furst, ferst, thurd)
    ("vowel", "er", "ur", 0.5), ("vowel", "ir", "er", 0.5), ("vowel", "ur", "er", 0.5), ("vowel", "ir", "ur", 0.4),
    ("vowel", "or", "er", 0.3), ("vowel", "ar", "er", 0.3), ("vowel", "er", "ar", 0.3), ("vowel", "ea", "e", 0.3),
)
# Unstressed vowel swaps and vowel drops (seperate, definately, independant, privilege->privelege): every
# word-internal vowel can become another; rows generated from the vowel set rather than typed out.
CONFUSIONS += tuple(("vowel", f"{a}", f"{b}", 1.0) for a in VOWELS for b in VOWELS if a != b)
CONFUSIONS += tuple(("vowel", f"{a}", "", 0.6) for a in VOWELS)
# Doubled / single consonants, both ways (occured, accomodate, untill, neccessary).
CONFUSIONS += tuple(("double_single", c + c, c, 1.0) for c in CONSONANTS)
CONFUSIONS += tuple(("double_single", c, c + c, 0.5) for c in CONSONANTS if c not in "hjqwxy")

KEYBOARD_KINDS = ("substitution", "insertion", "omission", "transposition", "doubling")
CONFUSION_GROUPS = tuple(dict.fromkeys(group for group, *_ in CONFUSIONS))
# Whole sounds respelt from the word's pronunciation (typofix.training.respelling): off unless weighted.
SOUND_KINDS = (SoundRespelling.kind,)


@dataclass(frozen=True)
class Edit:
    """One change: `kind`, the span [start, end) it occupies in the typo, and the text before and after."""

    kind: str
    start: int
    end: int
    before: str
    after: str


@dataclass
class Typo:
    """A generated misspelling of `word`; `edits` locate every change in `text` (empty for identity pairs)."""

    word: str
    text: str
    edits: list[Edit] = field(default_factory=list)


def rng_for(seed: int, epoch: int, index: int) -> random.Random:
    """The generator for one sample: a pure function of (seed, epoch, index), stable across processes."""
    # Random() seeds a str through SHA-512, unlike hash(), which PYTHONHASHSEED randomises per process.
    return random.Random(f"{seed}/{epoch}/{index}")


DEFAULT_WEIGHTS = {
    "substitution": 1.0, "insertion": 0.5, "omission": 1.2, "transposition": 0.6, "doubling": 0.4,
    "ie_ei": 0.6, "silent": 0.8, "c_k_s": 0.8, "ph_f": 0.2, "suffix": 0.9, "y_i": 0.3, "vowel": 1.8,
    "double_single": 1.2,
}


CHANNELS = ("handset", "fitted", "mixed")


class HandSetChannel:
    """The hand-set noise model: keyboard slips and the `CONFUSIONS` table, each kind with a configured weight,
    and a configured distribution of the number of edits per word."""

    def __init__(self, weights: dict[str, float] | None = None, edit_count_probs=(0.45, 0.3, 0.15, 0.1)):
        self.weights = dict(DEFAULT_WEIGHTS if weights is None else weights)
        unknown = set(self.weights) - set(KEYBOARD_KINDS) - set(CONFUSION_GROUPS) - set(SOUND_KINDS)
        if unknown:
            raise ValueError(f"unknown typo kinds {sorted(unknown)}; "
                             f"known: {list(KEYBOARD_KINDS + CONFUSION_GROUPS + SOUND_KINDS)}")
        if any(w < 0 for w in self.weights.values()) or not any(self.weights.values()):
            raise ValueError("typo weights must be >= 0 with at least one positive")
        if not edit_count_probs or any(p < 0 for p in edit_count_probs) or sum(edit_count_probs) <= 0:
            raise ValueError(f"edit_count_probs must be non-negative with a positive sum: {edit_count_probs}")
        self.edit_count_probs = tuple(edit_count_probs)
        self.kinds = tuple(k for k, w in self.weights.items() if w > 0)
        self.kind_weights = tuple(self.weights[k] for k in self.kinds)
        # CMUdict is read only by a channel that respells.
        self.respelling = SoundRespelling() if self.weights.get(SoundRespelling.kind, 0) > 0 else None
        self._rules_by_group: dict[str, list[tuple[str, str, float]]] = {}
        for group, pattern, replacement, weight in CONFUSIONS:
            self._rules_by_group.setdefault(group, []).append((pattern, replacement, weight))

    def propose(self, kind: str, text: str, free: list[int], rng: random.Random):
        """(kind, start, end, replacement) on `text`, touching only `free` positions, or None if `kind` does
        not fit."""
        if kind in KEYBOARD_KINDS:
            return self._keyboard(kind, text, free, rng)
        if kind == SoundRespelling.kind:
            return self.respelling.propose(text, free, rng)
        matches = []
        for pattern, replacement, weight in self._rules_by_group[kind]:
            for start in _find_all(text, pattern):
                end = start + len(pattern.strip("^$"))
                is_vowel_rule = kind == "vowel" and len(pattern) == 1
                # Vowel swaps model unstressed vowels: never the first letter, which readers anchor on.
                if is_vowel_rule and start == 0:
                    continue
                if all(i in free for i in range(start, end)):
                    matches.append(((kind, start, end, replacement), weight))
        if not matches:
            return None
        return rng.choices([m for m, _ in matches], weights=[w for _, w in matches])[0]

    @staticmethod
    def _keyboard(kind: str, text: str, free: list[int], rng: random.Random):
        letters = [i for i in free if text[i] in KEYBOARD_NEIGHBOURS]
        if kind == "substitution" and letters:
            i = rng.choice(letters)
            return kind, i, i + 1, rng.choice(KEYBOARD_NEIGHBOURS[text[i]])
        if kind == "insertion" and letters:
            i = rng.choice(letters)  # a neighbouring key struck with the intended one, before or after it
            extra = rng.choice(KEYBOARD_NEIGHBOURS[text[i]])
            return (kind, i, i + 1, extra + text[i]) if rng.random() < 0.5 else (kind, i, i + 1, text[i] + extra)
        if kind == "omission" and len(text) > 1 and free:
            i = rng.choice(free)
            return kind, i, i + 1, ""
        if kind == "transposition":
            pairs = [i for i in free if i + 1 in free and text[i] != text[i + 1]]
            if pairs:
                i = rng.choice(pairs)
                return kind, i, i + 2, text[i + 1] + text[i]
        if kind == "doubling" and free:
            i = rng.choice(free)
            return kind, i, i + 1, text[i] * 2
        return None


class TypoGenerator:
    """Samples misspellings: how many edits, which kinds, where, as its channel says.

    `channel` is "handset" (`HandSetChannel` with `weights` and `edit_count_probs`), "fitted" (the table that
    `bench/fit_channel.py` counted on the dev sets, `typofix.training.channel.FittedChannel`, which brings its own kinds,
    weights and edit counts: `weights` and `edit_count_probs` are then unused), "mixed" (each typo drawn from
    the fitted channel with probability `fitted_share`, else from the hand-set one), or a channel object."""

    def __init__(self, weights: dict[str, float] | None = None, edit_count_probs=(0.45, 0.3, 0.15, 0.1),
                 identity_rate: float = 0.1, max_tries: int = 8, channel="handset", fitted_share: float = 0.5):
        if not 0.0 <= identity_rate < 1.0:
            raise ValueError(f"identity_rate must be in [0, 1): {identity_rate}")
        if not 0.0 <= fitted_share <= 1.0:
            raise ValueError(f"fitted_share must be in [0, 1]: {fitted_share}")
        if isinstance(channel, str) and channel not in CHANNELS:
            raise ValueError(f"unknown channel {channel!r}; known: {', '.join(CHANNELS)}")
        # The fitted table alone drifts towards short frequent words (the stage-3 note in conf/experiment), the
        # hand-set one alone misses how real writers err: "mixed" draws each typo from one of them.
        if not isinstance(channel, str):  # a channel object serves every typo
            self.handset, self.fitted, self.fitted_share = channel, None, 0.0
        else:
            self.fitted_share = {"handset": 0.0, "fitted": 1.0}.get(channel, fitted_share)
            self.handset = HandSetChannel(weights, edit_count_probs) if self.fitted_share < 1.0 else None
            self.fitted = FittedChannel.load() if self.fitted_share > 0.0 else None
        self.identity_rate = identity_rate
        self.max_tries = max_tries

    def sample(self, word: str, seed: int, epoch: int, index: int) -> Typo:
        """The typo for sample `index` of `epoch`: the same arguments always give the same typo."""
        return self.generate(word, rng_for(seed, epoch, index))

    def generate(self, word: str, rng: random.Random) -> Typo:
        if not word or rng.random() < self.identity_rate:
            return Typo(word, word)
        channel = self.handset
        if self.fitted is not None and (self.handset is None or rng.random() < self.fitted_share):
            channel = self.fitted
        counts = channel.edit_count_probs
        n_edits = rng.choices(range(1, len(counts) + 1), weights=counts)[0]
        text, edits = word, []
        for _ in range(n_edits * self.max_tries):
            if len(edits) == n_edits:
                break
            kind = rng.choices(channel.kinds, weights=channel.kind_weights)[0]
            # Each proposal is (kind, start, end, replacement) on the current text, never touching an earlier
            # edit, so every edit's span in the final typo stays exact.
            free = [i for i in range(len(text)) if not any(e.start <= i < e.end for e in edits)]
            proposal = channel.propose(kind, text, free, rng)
            # Never erase the whole word: an empty typo carries nothing to correct from.
            if (proposal is not None and len(text) - (proposal[2] - proposal[1]) + len(proposal[3]) > 0
                    and _untouched_boundary(proposal[1], proposal[2], edits)):
                text, edits = _apply(text, edits, *proposal)
        if text == word:  # edits that cancelled out (e.g. a doubling undone): call it an identity pair
            return Typo(word, word)
        return Typo(word, text, edits)


def _find_all(text: str, pattern: str):
    """Start indices of `pattern` in `text`, honouring the ^ / $ anchors."""
    core = pattern.strip("^$")
    if pattern.startswith("^"):
        return [0] if text.startswith(core) else []
    if pattern.endswith("$"):
        return [len(text) - len(core)] if text.endswith(core) and len(text) > len(core) else []
    starts, i = [], text.find(core)
    while i >= 0:
        starts.append(i)
        i = text.find(core, i + 1)
    return starts


def _untouched_boundary(start: int, end: int, edits: list[Edit]) -> bool:
    """No earlier zero-width edit (an omission) may sit inside or at either end of the span about to be
    rewritten: two changes at one point would leave their order, and so the edit spans, ambiguous."""
    return not any(e.start == e.end and start <= e.start <= end for e in edits)


def _apply(text: str, edits: list[Edit], kind: str, start: int, end: int, replacement: str):
    """Rewrite text[start:end] and shift the spans of earlier edits that lie after it."""
    delta = len(replacement) - (end - start)
    moved = [Edit(e.kind, e.start + delta, e.end + delta, e.before, e.after) if e.start >= end else e for e in edits]
    new_text = text[:start] + replacement + text[end:]
    return new_text, moved + [Edit(kind, start, start + len(replacement), text[start:end], replacement)]
