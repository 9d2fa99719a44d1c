"""The project's own vocabulary: the words of the files being checked that are not typos, whatever a
dictionary says.

* The language's words: Python's keywords, builtins and standard-library modules; the keywords and
  builtins of any other language's lexer (`typofix.apps.check.lexed.lexer_words`) and those it met.
* The code's words: every identifier of the files, whole and split into its words (`parse_args`,
  `parseArgs` -> parse, args): `numpy`, `np`, `kwargs` in a comment name what the code names. A word the
  code uses only inside one name (`mesage` of `recieve_mesage`, however often that name is used) names
  nothing of its own: it does not excuse the same word in text. One-word
  string literals (keys, modes: `"rb"`) are uses of their words, no more: tests hold typos as literals.
* Words used consistently: a word written `REPEATS` times or more across the files (`Bitstream` three
  times, `ispell`, `logit`) is the project's term, unless the model is sure (`SURE_SLIP`) it is one
  edit from a common English word that the files write more often than it: a slip repeated (test data does)
  is a slip still, but people slip on a word less often than they write it right, so a word written more
  often than its common neighbour is the files' own (`cidr` beside cider, `nicht` beside night).
* The software terms typofix knows (data/terms.txt.gz, from `cspell`'s software dictionaries, and
  data/terms-extra.txt: nginx, kubectl, PyTorch, kwargs), in any case, wherever they stand: those one edit
  from a common word too (`trie`, `umount`: marked "cased"), however sure the model is of a slip, unless they
  are a known misspelling (a software term written once in a man page, `sudo umount`, had been reported as
  often as any unknown word; the few slips the lists hold, `sended`, are the price); and people's and
  companies' names (data/names.txt.gz: Guido, Nvidia), written with a capital.

A plain slip is never a word used consistently, however often the files write it: a known misspelling of
its correction (`typofix.apps.check.known`; not even as a name) or a common word with two neighbouring
letters swapped (unless it is a software term we know, `uint`, `colno`, or the code names it `NAMED_SLIP`
times or more; a test's few variables named after a typo do not excuse it everywhere); a project that
writes them in every comment still hears about it.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from operator import add, itemgetter

from typofix.apps.check.lexed import lexer_words
from typofix.apps.check.pysource import python_words
from typofix.apps.check.regions import Scan
from typofix.files.packagedata import packaged
from typofix.words.distance import is_swap, osa_distance
from typofix.words.identifiers import identifier_words
from typofix.words.lexicon import Lexicon

REPEATS = 3
# A swap of a common word excused as a name only when the code names it this often: the standard library
# names `proto` 194 times, `uint` 63, `colno` 25; this project's tests name `teh` 3 times.
NAMED_SLIP = 5
COMMON = 1_000_000  # a word this frequent in the word list (about its 22,000 most frequent) is common
# A repeated word one edit from a common word is a slip when the model's confidence is at least this: on the dev
# trees, repeated slips scored 5.5-9.8, repeated terms one edit from a common word 2.8-5.2 (docs/check.md).
SURE_SLIP = 5.5
_WORD = re.compile(r"[A-Za-z]+")


@dataclass
class WordUse:
    """What one file contributes to the vocabulary (small and picklable: --jobs workers send it back)."""

    counts: Counter = field(default_factory=Counter)  # lowercase word -> uses, in text and in names
    names: Counter = field(default_factory=Counter)  # lowercase words of identifiers (whole, split) -> uses
    # lowercase word of names -> the one name it is a part of (its words joined by "_"), for a word seen only
    # inside one name of several words; a word that is a name itself, or in two names, is not here
    only_in: dict[str, str] = field(default_factory=dict)
    language: set[str] = field(default_factory=set)  # the language's words (keywords, builtins)

    @classmethod
    def of(cls, scan: Scan, lowered: Counter | None = None) -> "WordUse":
        """The words of `scan`; `lowered`: the counts of its masked text's runs of letters, in lower case
        (`lowered_words`), where the caller has them (it is kept). Each distinct word and name is split once."""
        use = cls(counts=lowered if lowered is not None else lowered_words(scan.masked))
        # (counted in plain dicts, added to the Counters at once: a Counter's += calls its __missing__ in Python
        # for each new word)
        in_names: dict[str, int] = {}  # word of names -> uses
        whole: dict[str, int] = {}  # a name of several words that is one run of letters (getName) -> uses
        inside: dict[str, set[str]] = {}  # word -> the names of several words it is a part of
        alone: set[str] = set()  # words that are a name of their own
        for name, uses in scan.name_uses().items():
            parts = _name_words(name)
            for part in parts:
                in_names[part] = in_names.get(part, 0) + uses
            if len(parts) == 1:
                alone.update(parts)
            else:
                key = "_".join(parts)
                for part in parts:
                    if part in inside:
                        inside[part].add(key)
                    else:
                        inside[part] = {key}
                if _WORD.fullmatch(name):
                    lower = name.lower()
                    whole[lower] = whole.get(lower, 0) + uses
                    alone.add(lower)
        add_counts(use.counts, in_names)
        add_counts(use.names, in_names)
        add_counts(use.names, whole)
        use.only_in = {word: next(iter(keys)) for word, keys in inside.items()
                       if len(keys) == 1 and word not in alone}
        in_literals: dict[str, int] = {}
        for text, uses in Counter(map(itemgetter(1), scan.literals)).items():
            for part in _name_words(text):
                in_literals[part] = in_literals.get(part, 0) + uses
        add_counts(use.counts, in_literals)
        use.language.update(scan.keywords)
        if scan.language.kind == "python":
            use.language.update(python_words())
        elif scan.language.kind == "code" and scan.language.lexer:
            use.language.update(lexer_words(scan.language.lexer))
        return use


@lru_cache(maxsize=1 << 16)  # the files of a project name the same things: each name split once a run
def _name_words(name: str) -> tuple[str, ...]:
    return tuple(identifier_words(name))


def add_counts(counts: Counter, more: dict[str, int]) -> None:
    """`counts.update(more)` (the same counts, new words in `more`'s order), in C: `Counter.update` adds a
    mapping to a Counter that is not empty one word at a time in Python, and a run adds every file's words."""
    words = list(more)
    dict.update(counts, zip(words, map(add, map(counts.get, words, repeat(0)), more.values())))


def lowered_words(text: str) -> Counter:
    """The runs of ASCII letters of `text`, in lower case, with their counts."""
    return Counter(word.lower() for word in _WORD.findall(text))


class Vocabulary:
    """The words of all the files being checked (`add` each file's `WordUse`), and the judgement."""

    def __init__(self, known: dict[str, frozenset[str]] | None = None):
        self.use = WordUse()
        self.known = known or {}  # known misspelling -> its corrections (`typofix.apps.check.known`)

    def add(self, use: WordUse) -> None:
        named, only_in = self.use.names, self.use.only_in
        for word in use.names:
            if word not in named:
                if word in use.only_in:
                    only_in[word] = use.only_in[word]
            elif word in only_in and use.only_in.get(word) != only_in[word]:
                del only_in[word]  # a name of its own, or a part of another name, here
        add_counts(self.use.counts, use.counts)
        add_counts(named, use.names)
        self.use.language |= use.language

    def named(self, word: str) -> bool:
        """Whether the code names lowercase `word`: a name of its own, or a part of two names or more."""
        return word in self.use.names and word not in self.use.only_in

    def accepts_language(self, word: str) -> bool:
        """Whether `word` is a word of the files' languages, a software term or a name (capitalised)."""
        lower = word.lower()
        return (lower in self.use.language or lower in software_terms()
                or (lower in cased_terms() and lower not in self.known)
                or (word[:1].isupper() and lower in names()))

    def accepts(self, word: str, correction: str, confidence: float | None = None, in_name: bool = False) -> bool:
        """Whether `word`, which the model would make `correction` with `confidence`, is the project's own word.
        `in_name`: the word is a part of a name (--identifiers), which its being a name cannot excuse."""
        lower, fixed = word.lower(), correction.lower()
        if self.accepts_language(word):
            return True
        if fixed in self.known.get(lower, ()):
            return False
        slip = self.is_slip(lower, fixed)
        if self.named(lower) and not in_name and (not slip or self.use.names[lower] >= NAMED_SLIP):
            return True  # a swap of a common word too, where the code names it consistently (`proto`, `uint`)
        if self.use.counts[lower] < REPEATS or slip:
            return False
        if lower in cased_terms():  # a term we know that is also a known misspelling, used consistently
            return True
        if not (confidence is not None and confidence >= SURE_SLIP and osa_distance(lower, fixed) == 1
                and common_word(fixed)):
            return True
        # A slip is rarer than the word it slips from: a word the files write more often than the common word
        # it is one edit from is theirs (a command, an acronym, another language's word), however sure the
        # model is; its uses inside the one name it is a part of do not count (`mesage` of `recieve_mesage`).
        own = self.use.counts[lower] - (self.use.names[lower] if lower in self.use.only_in else 0)
        return own >= REPEATS and own > self.use.counts[fixed]

    def is_slip(self, word: str, correction: str) -> bool:
        """A plain slip, whatever the files say: a known misspelling of `correction`, or a common word with two
        neighbouring letters swapped (what fast fingers do), unless the swap is a software term we know (`uint`
        of unit, `proto` of porto: `cased_terms`)."""
        return correction in self.known.get(word, ()) or (is_swap(word, correction) and common_word(correction)
                                                          and word not in cased_terms())


def swaps(word: str) -> list[str]:
    """`word` with each two neighbouring letters swapped (the slips `is_swap` recognises)."""
    return [word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1) if word[i] != word[i + 1]]


def listed_word(word: str) -> bool:
    """Whether `word` is in the bundled word list (a correction the engine can offer)."""
    return _word_list().count(word) > 0


def words_beginning(prefix: str, most: int) -> int:
    """How many listed words begin with lowercase `prefix` (itself included, if listed), counted up to `most`."""
    trie = _word_list().trie
    node = trie.walk(prefix)
    found, stack = 0, [node] if node >= 0 else []
    while stack and found < most:
        node = stack.pop()
        found += bool(trie.is_word[node])
        stack.extend(trie.children(node).values())
    return found


def common_word(word: str) -> bool:
    """Whether `word` is among the common English words of the bundled word list."""
    return _word_list().count(word) >= COMMON


@lru_cache(maxsize=1)
def _word_list() -> Lexicon:
    return Lexicon.from_tsv()


@lru_cache(maxsize=1)
def software_terms() -> frozenset[str]:
    """The software terms typofix knows, lowercase (data/terms.txt.gz and data/terms-extra.txt), but those one
    edit from a common word (`cased_terms`)."""
    return frozenset(term.lower() for term, mark in _terms() if mark != "cased")


@lru_cache(maxsize=1)
def cased_terms() -> frozenset[str]:
    """The software terms one edit from a common word (`trie`/tree, `guid`/guide: marked "cased" in
    data/terms.txt.gz), lowercase: words wherever they stand, but for the known misspellings among them;
    they are no plain slip (a swap) of their common neighbour (the list holds a few slips too: `sended`)."""
    return frozenset(term.lower() for term, mark in _terms() if mark == "cased")


def _terms() -> list[tuple[str, str]]:
    """Each listed software term with its mark ("" or "cased"): the entries are `term` or `term<TAB>mark`."""
    return [(entry.partition("\t")[0].strip(), entry.partition("\t")[2].strip())
            for entry in _listed("terms.txt.gz") + _listed("terms-extra.txt")]


@lru_cache(maxsize=1)
def names() -> frozenset[str]:
    """People's and companies' names, lowercase: data/names.txt.gz."""
    return frozenset(w.lower() for w in _listed("names.txt.gz"))


def _listed(name: str) -> list[str]:
    """The entries of a packaged word list (gzip or not), one a line, `#` comments and blank lines skipped;
    a list this install lacks is empty (the check works without it, less sure of what is a term)."""
    path = packaged(name)
    try:
        data = path.read_bytes()
    except OSError:
        return []
    text = (gzip.decompress(data) if name.endswith(".gz") else data).decode("utf-8")
    return [entry for line in text.splitlines() if (entry := line.split("#", 1)[0].strip())]
