"""The word lists: the generation list (membership, frequency prior, a prefix trie for lexicon-constrained
decoding) and the larger acceptance dictionary (the words never rewritten: the dictionary's, names, software
terms, the user's, and words derived from them by productive affixes)."""

from __future__ import annotations

import gzip
import hashlib
import math
import re
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from typofix.files.packagedata import packaged
from typofix.words.casing import case_forms
from typofix.words.indexcache import (Remembered, SortedStrings, SortedTable, TextList, cached, file_digest,
                                      find_string, find_strings, sorted_strings, strings, text_array)
from typofix.words.morphology import Morphology


class LexiconError(ValueError):
    """A word list that is missing or malformed; the message names the file and line."""


def bundled_words_path() -> Path:
    """The packaged data/words.tsv (shipped as package data `typofix.wordlist`)."""
    return packaged("words.tsv")


def bundled_accepted_path() -> Path:
    """The packaged data/accepted.txt.gz, the acceptance dictionary built by data/build_accepted.py."""
    return packaged("accepted.txt.gz")


def bundled_names_path() -> Path:
    """The packaged data/names.txt.gz: people's and companies' names (data/build_names_terms.py)."""
    return packaged("names.txt.gz")


def bundled_terms_path() -> Path:
    """The packaged data/terms.txt.gz: software terms in their case (data/build_names_terms.py)."""
    return packaged("terms.txt.gz")


def read_word_list(path: Path) -> list[str]:
    """The lines of a gzip UTF-8 list, one entry a line (names, terms: any script, apostrophes, digits)."""
    try:
        return gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    except FileNotFoundError:
        raise LexiconError(f"word list not found: {path}") from None
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as err:
        raise LexiconError(f"cannot read word list {path}: {err}") from None


# A derived word's stem must be a dictionary word, and a word this often counted must not be one edit from it
# (`typofix.words.morphology`): about the 40,000th most frequent listed word's count.
FREQUENT_COUNT = 100_000


_LETTERS_NEWLINE = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\n"
_ACRONYM_LINE = re.compile(r"^[A-Z]{4,}$", re.MULTILINE)
_CAPITALISED_LINE = re.compile(r"^[a-z]*[A-Z][A-Za-z]*$", re.MULTILINE)
# A capital after the first letter and a lowercase letter somewhere: McDonald, GitHub, LPNs (a superset of the
# words that are neither lower, Title nor UPPER case, which `_upper_only` keeps).
_MIXED_LINE = re.compile(r"^(?=[A-Za-z]*[a-z])[A-Za-z]+[A-Z][A-Za-z]*$", re.MULTILINE)


class AcceptedWords:
    """The words that are never rewritten, with their case as a dictionary spells them: `sam` is not accepted
    where only `Sam` is listed (it is more often a typo of "same"), `Sam`, `SAM` and `same` are. A listed
    lowercase word is accepted in lower, Title and UPPER case, a listed capitalised one in its own case and in
    UPPER case, a listed acronym of 4+ letters in lower case too; the user's words (`add`) in any case."""

    def __init__(self, words=()):
        # As listed: the dictionary's words (read in place from the index cache, `DictionaryIndex`) and the terms
        # accepted as written only (`_exact`).
        self._listed: SortedStrings | frozenset = frozenset()
        self._exact: set[str] = set()
        # An all-caps token is accepted where a listed word upper-cased is it. For a word in lower, Title or
        # UPPER case that is a lookup of the token's own forms in the listed words; only the rest are kept
        # upper-cased here (mixed case: McDonald, GitHub; the terms accepted as written): a set of every listed
        # word upper-cased was 9 MB and a tenth of a second of every start.
        self._upper: set[str] = set()
        self._any_case: set[str] = set()  # lowercase forms of words accepted in any case (the user's)
        # Acronyms of four or more letters written in lower case (html, ascii, unix): people do, and no common
        # word is that close to one. Shorter ones are not (dat, sam, mit are typos of that, same, might).
        self._acronyms: set[str] | frozenset = frozenset()
        self._as_written: set[str] = set()  # words accepted in any case, as their lists write them
        # For `typofix.words.casing`'s repairs of lowercase tokens: the dictionary's words written with a capital
        # (Monday, Paris, NASA), and the names, as written; both read in place from the index cache, the names on
        # first use.
        self._capitalised: Sequence[str] = []
        self._case_forms = None  # `typofix.words.casing.case_forms` of them, made ahead (the index cache's)
        self._names: Sequence[str] | None = []
        self._names_path: Path | None = None
        self.user: list[str] = []  # the user's own words, as written (the preferred answer one edit away)
        self.morphology: Morphology | None = None  # words derived from listed ones (see `derive_with`)
        self.add(words)

    @classmethod
    def load(cls, path: str | Path | None = None, extra=(), names: str | Path | None = None,
             terms: str | Path | None = None) -> "AcceptedWords":
        """Read a gzip file of a-z / A-Z words, one a line (None: the bundled dictionary), the names and the
        software terms (None: the bundled lists; each accepted as written and in upper case), plus `extra`
        words accepted in any case (the user's)."""
        path = Path(path) if path is not None else bundled_accepted_path()
        try:
            packed = path.read_bytes()
        except FileNotFoundError:
            raise LexiconError(f"accepted-word list not found: {path}") from None
        except OSError as err:
            raise LexiconError(f"cannot read accepted-word list {path}: {err}") from None
        # What the dictionary's lines give (its words sorted, the regexes' findings) is kept in the index cache:
        # reading and sorting them took a fifth of a second of every start.
        index = cached("accepted", hashlib.sha256(packed).hexdigest(), lambda: DictionaryIndex.read(path, packed),
                       DictionaryIndex.from_arrays)
        accepted = cls()
        accepted._listed = index.listed
        accepted._upper = set(index.upper)
        accepted._acronyms = index.acronyms
        accepted._capitalised, accepted._case_forms = index.capitalised, index.case_forms
        # Names are not accepted here: where a capital makes a word a name depends on the sentence (the text
        # pipeline's rule); `typofix.words.casing` offers them for the same letters typed in lower case.
        accepted._names_path, accepted._names = Path(names) if names is not None else bundled_names_path(), None
        # Software terms are typed in lower case as often as in their own (nginx, json, pytorch), but for those
        # one edit from a common word (`guid`/guide), marked "cased", which are accepted as written only.
        any_case, cased = [], []
        for line in read_word_list(Path(terms) if terms is not None else bundled_terms_path()):
            term, _, mark = line.partition("\t")
            (cased if mark == "cased" else any_case).append(term)
        accepted._exact.update(term for term in cased if not term.islower())  # `guid` no, `GUID` yes
        accepted._upper.update(term.upper() for term in cased)
        accepted.add(any_case)
        accepted._as_written.update(any_case)
        accepted.user = list(dict.fromkeys(extra))
        accepted.add(accepted.user)
        return accepted

    def add(self, words) -> None:
        """Accept more words, in any case."""
        words = list(words)
        self._any_case.update(word.lower() for word in words)
        self._as_written.update(words)

    def _is_listed(self, word: str) -> bool:
        """Whether the dictionary or a term accepted as written writes `word` exactly so."""
        return word in self._exact or word in self._listed

    def listed_as(self, word: str) -> bool:
        """Whether the dictionary, a term typed in any case or the user writes `word` exactly so: `dir` is a
        term written so, `debian` only an accepted form of Debian."""
        return self._is_listed(word) or word in self._as_written

    def listed_as_many(self, words: list[str]) -> list[bool]:
        """`listed_as` of each of `words`, the dictionary's lookups of all of them together."""
        return [found or word in self._exact or word in self._as_written
                for word, found in zip(words, _members(self._listed, words))]

    @property
    def capitalised(self) -> Sequence[str]:
        """The dictionary's words written with capitals only (Monday, Paris, NASA; `In`, indium, is no form of
        the word `in`), for `typofix.words.casing`'s repairs of lowercase tokens."""
        if not isinstance(self._capitalised, list):
            self._capitalised = list(self._capitalised)
        return self._capitalised

    @property
    def case_forms(self):
        """The forms `typofix.words.casing` repairs a lowercase token to (`case_forms` of `capitalised`: a dict,
        or the index cache's table, read in place)."""
        if self._case_forms is None:
            self._case_forms = case_forms(self.capitalised)
        return self._case_forms

    @property
    def names(self) -> Sequence[str]:
        """People's and companies' names (any script), as written, sorted by their lower case, for the same
        repairs; from the index cache, read in place (a repair looks up a few)."""
        if self._names is None:
            try:
                digest = file_digest(self._names_path)
            except OSError:  # missing or unreadable: read_word_list says so in one line
                self._names = read_word_list(self._names_path)
            else:
                lines = cached("names", digest, lambda: WordLines.read(self._names_path), WordLines.from_arrays)
                self._names = TextList(lines.text)
        return self._names

    def derive_with(self, counts_of) -> None:
        """Accept words derived from listed lowercase ones by productive affixes (`typofix.words.morphology`),
        `counts_of(words)` telling how common each of many words is (the generation list's `Lexicon.counts_of`)."""
        self.morphology = Morphology(self._is_listed,
                                     lambda words: bool((np.asarray(counts_of(words)) >= FREQUENT_COUNT).any()))

    def __contains__(self, word: str) -> bool:
        return self._accepts(word, self._is_listed, word in self._acronyms)

    def contains_many(self, words: list[str]) -> list[bool]:
        """`word in self` of each of `words` (the same answers), the dictionary's forms of all of them looked up
        together: one binary search in the mapped list for a text's distinct words, where one a word cost a tenth
        of a millisecond each, and no set of the whole list built (`SortedStrings.contains_many`)."""
        forms = list(dict.fromkeys(form for word in words for form in _forms_asked(word)))
        listed = {form for form, found in zip(forms, _members(self._listed, forms)) if found or form in self._exact}
        return [self._accepts(word, listed.__contains__, acronym)
                for word, acronym in zip(words, _members(self._acronyms, words))]

    def _accepts(self, word: str, is_listed, acronym: bool) -> bool:
        """Whether `word` is accepted, `is_listed` answering `_is_listed` of its `_forms_asked` and `acronym`
        whether it is a listed acronym in lower case."""
        if is_listed(word) or word.lower() in self._any_case or acronym:
            return True
        title = word[:1].isupper() and word[1:].islower()
        if title and is_listed(word.lower()):  # Title case: a listed lowercase word at a sentence start
            return True
        if word.isupper() and (word in self._upper or any(is_listed(form) and form.upper() == word
                                                          for form in (word.lower(), word.capitalize(), word))):
            return True
        return self.morphology is not None and (word.islower() or title) and self.morphology.derived(word.lower())

    def __len__(self) -> int:
        return len(self._exact | set(self._listed) | self._any_case)


class DictionaryIndex:
    """What `AcceptedWords` reads from the acceptance dictionary's lines, as arrays for the index cache: the
    words (sorted, looked up in place: `SortedStrings`), the mixed-case ones upper-cased (`_upper`), the acronyms
    of four or more letters lower-cased and the words written with capitals only (`capitalised`)."""

    def __init__(self, listed: SortedStrings, upper: list[str], acronyms: SortedStrings, capitalised: Sequence[str],
                 case_forms: SortedTable):
        self.listed, self.upper, self.acronyms, self.capitalised = listed, upper, acronyms, capitalised
        self.case_forms = case_forms

    @classmethod
    def read(cls, path: Path, packed: bytes) -> "DictionaryIndex":
        """The index of the gzip dictionary file at `path` whose bytes are `packed` (LexiconError if malformed)."""
        try:
            data = gzip.decompress(packed)
        except (OSError, EOFError, zlib.error) as err:  # gzip.BadGzipFile is an OSError
            raise LexiconError(f"cannot read accepted-word list {path}: {err}") from None
        # Checked whole, in C (deleting the allowed bytes leaves nothing): a regex or a loop over the lines
        # would cost more than the rest of the load.
        if (data.translate(None, _LETTERS_NEWLINE) or not data.endswith(b"\n") or data.startswith(b"\n")
                or b"\n\n" in data):
            raise LexiconError(f"{path}: expected a-z / A-Z words, one a line")
        text = data[:-1].decode("ascii")
        words = text.split("\n")
        exact = set(words)
        upper = sorted({w.upper() for w in _MIXED_LINE.findall(text) if _upper_only(w)})
        acronyms = {w.lower() for w in _ACRONYM_LINE.findall(text)}  # in C, not a test per word
        capitalised = [w for w in _CAPITALISED_LINE.findall(text) if w.lower() not in exact]
        return cls(SortedStrings.of(words), upper, SortedStrings.of(acronyms), capitalised,
                   SortedTable.of(case_forms(capitalised)))

    @classmethod
    def from_arrays(cls, arrays) -> "DictionaryIndex":
        return cls(SortedStrings(arrays["listed"]), strings(arrays["upper"]), SortedStrings(arrays["acronyms"]),
                   TextList(arrays["capitalised"]), SortedTable(arrays["case_keys"], arrays["case_forms"]))

    def arrays(self) -> dict[str, np.ndarray]:
        return {"listed": self.listed.listed, "upper": text_array(self.upper), "acronyms": self.acronyms.listed,
                "capitalised": text_array(list(self.capitalised)), "case_keys": self.case_forms.keys,
                "case_forms": self.case_forms.values}


class WordLines:
    """A word list's lines (`read_word_list`) as one array for the index cache, read in place (`TextList`)."""

    def __init__(self, text: np.ndarray):
        self.text = text

    @classmethod
    def read(cls, path: Path) -> "WordLines":
        return cls(text_array(read_word_list(path)))

    @classmethod
    def from_arrays(cls, arrays) -> "WordLines":
        return cls(arrays["lines"])

    def arrays(self) -> dict[str, np.ndarray]:
        return {"lines": self.text}


def _forms_asked(word: str) -> tuple[str, ...]:
    """The forms of `word` whose listing `AcceptedWords._accepts` may ask about: itself, and its lower case in
    Title case, its lower and capitalised case in UPPER case."""
    if word.isupper():
        return word, word.lower(), word.capitalize()
    if word[:1].isupper() and word[1:].islower():
        return word, word.lower()
    return (word,)


def _members(words_in, words: list[str]) -> list[bool]:
    """`word in words_in` of each of `words`: a list read in place looks them all up at once."""
    if isinstance(words_in, SortedStrings):
        return words_in.contains_many(words)
    return [word in words_in for word in words]


def _upper_only(word: str) -> bool:
    """Whether an all-caps token matches `word` upper-cased only through `_upper`: a word in none of lower, Title
    and UPPER case, which `AcceptedWords.__contains__` tries from the token itself."""
    return word not in (word.lower(), word.capitalize(), word.upper())


class PrefixTrie:
    """Every prefix of every word as a node; node 0 is the empty prefix.

    Stored as flat numpy arrays, so a decoder holds plain int node ids per hypothesis and moves all of them
    with one lookup, and `within` walks a whole depth at once: `parent` and `chars` (the node's last character
    as a code point, 0 for the root) per node, `is_word`, and the children of node i, sorted by character, at
    `child_ids[child_start[i]:child_start[i + 1]]`. Built in one pass over the sorted words (a tenth of a
    second for the bundled list), which is most of a cold start's work besides reading the list.
    """

    def __init__(self, words):
        parent, chars, ends = [0], [0], []
        path = [0]  # node ids of the previous word's prefixes: path[d] is its prefix of length d
        previous = ""
        for word in sorted(set(words)):
            shared = 0  # length of the prefix this word shares with the previous one (sorted: all of it is on path)
            for a, b in zip(previous, word):
                if a != b:
                    break
                shared += 1
            del path[shared + 1:]
            for char in word[shared:]:
                parent.append(path[-1])
                chars.append(ord(char))
                path.append(len(parent) - 1)
            ends.append(path[-1])
            previous = word
        is_word = np.zeros(len(parent), dtype=bool)
        is_word[ends] = True
        self._set(np.array(parent, dtype=np.int64), np.array(chars, dtype=np.int64), is_word)

    @classmethod
    def from_arrays(cls, arrays) -> "PrefixTrie":
        """The trie whose `arrays()` these are (for `typofix.words.indexcache`), its child tables included: sorting
        a million keys again took a tenth of a second and 30 MB of every run that decodes."""
        trie = cls.__new__(cls)
        trie._set(arrays["parent"], arrays["chars"], arrays["is_word"],
                  (arrays["child_ids"], arrays["child_keys"], arrays["child_start"]))
        if not (len(trie.child_ids) == len(trie._child_keys) == len(trie.parent) - 1
                and len(trie.child_start) == len(trie.parent) + 1):
            raise ValueError("prefix trie arrays do not agree")
        return trie

    def arrays(self) -> dict[str, np.ndarray]:
        return {"parent": self.parent, "chars": self.chars, "is_word": self.is_word, "child_ids": self.child_ids,
                "child_keys": self._child_keys, "child_start": self.child_start}

    def _set(self, parent: np.ndarray, chars: np.ndarray, is_word: np.ndarray, children=None) -> None:
        self.parent, self.chars, self.is_word = parent, chars, is_word  # (N,) each
        if children is not None:
            self.child_ids, self._child_keys, self.child_start = children
            return
        # Children grouped by parent and sorted by character: (parent, char) keys in sorted order, so that
        # `child` finds any (node, char) pair by binary search.
        keys = self.parent[1:] * _KEY_BASE + self.chars[1:]
        order = np.argsort(keys, kind="stable")
        self.child_ids = order + 1  # (N - 1,) node ids
        self._child_keys = keys[order]
        self.child_start = np.searchsorted(self.parent[self.child_ids], np.arange(len(parent) + 1))  # (N + 1,)

    def __len__(self) -> int:
        return len(self.parent)

    def children(self, node: int) -> dict[str, int]:
        """{character: child node} of one node."""
        ids = self.child_ids[self.child_start[node]:self.child_start[node + 1]]
        return {chr(c): int(i) for c, i in zip(self.chars[ids].tolist(), ids.tolist())}

    def child(self, nodes: np.ndarray, chars: np.ndarray) -> np.ndarray:
        """The child of each `nodes[i]` by character `chars[i]` (code points), -1 where there is none."""
        keys = np.asarray(nodes, dtype=np.int64) * _KEY_BASE + np.asarray(chars, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._child_keys, keys), len(self._child_keys) - 1)
        return np.where(self._child_keys[at] == keys, self.child_ids[at], -1)

    def walk(self, prefix: str) -> int:
        """Node id of `prefix`, or -1 when no word starts with it."""
        node = 0
        for char in prefix:
            node = int(self.child(np.array([node]), np.array([ord(char)]))[0])
            if node < 0:
                return -1
        return node

    def spell(self, node: int) -> str:
        """The prefix that `node` stands for."""
        letters = []
        while node:
            letters.append(chr(self.chars[node]))
            node = int(self.parent[node])
        return "".join(reversed(letters))

    def within(self, word: str, max_edits: int) -> list[str]:
        """Every word at most `max_edits` optimal-string-alignment edits from `word` (insertions, deletions,
        substitutions, adjacent transpositions).

        Walks the trie one depth at a time with one row of the edit-distance table per node, all nodes of a
        depth in one numpy array, and stops extending a node once no cell of its row is within reach: the words
        two edits from a typo in a few milliseconds, where generating every string two edits away and looking
        each up takes seconds."""
        target = np.array([ord(c) for c in word], dtype=np.int64)  # (n,)
        width = len(word) + 1
        nodes = np.zeros(1, dtype=np.int64)  # the frontier: trie nodes of one depth (M,)
        rows = np.arange(width, dtype=np.int64)[None, :]  # (M, n + 1) edit distances of their prefixes
        above = np.full_like(rows, width)  # (M, n + 1) the parents' rows (for transpositions)
        found = []
        while len(nodes):
            alive = rows.min(axis=1) <= max_edits  # (M,) a node all of whose cells are out of reach has no heirs
            nodes, rows, above = nodes[alive], rows[alive], above[alive]
            counts = self.child_start[nodes + 1] - self.child_start[nodes]  # (M,)
            heir_of = np.repeat(np.arange(len(nodes)), counts)  # (M',) frontier index of each child's parent
            offsets = np.arange(len(heir_of)) - np.repeat(np.cumsum(counts) - counts, counts)  # (M',) 0, 1, ...
            children = self.child_ids[self.child_start[nodes][heir_of] + offsets]  # (M',)
            parent_rows, grand_rows = rows[heir_of], above[heir_of]  # (M', n + 1)
            char, parent_char = self.chars[children], self.chars[nodes][heir_of]  # (M',)
            new = np.empty_like(parent_rows)
            new[:, 0] = parent_rows[:, 0] + 1
            for j in range(1, width):
                cost = np.minimum(new[:, j - 1] + 1, parent_rows[:, j] + 1)
                cost = np.minimum(cost, parent_rows[:, j - 1] + (target[j - 1] != char))
                if j > 1:  # the last two characters swapped
                    swapped = (target[j - 1] == parent_char) & (target[j - 2] == char)
                    cost = np.where(swapped, np.minimum(cost, grand_rows[:, j - 2] + 1), cost)
                new[:, j] = cost
            hits = children[self.is_word[children] & (new[:, -1] <= max_edits)]
            found.extend(self.spell(node) for node in hits.tolist())
            nodes, rows, above = children, new, parent_rows
        return found


# A word list in its usual form: word<TAB>count lines, nothing else. Checked whole by one regex, it is read with
# one split (a third of the time of the line-by-line check, which stays for anything else and for its messages).
_WELL_FORMED = re.compile(r"(?:[^\s]+\t[0-9]+\n)*(?:[^\s]+\t[0-9]+)?")


def _decoded(path: Path, data: bytes) -> str:
    """A word list's bytes as text (LexiconError, one line, where they are not UTF-8)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise LexiconError(f"cannot read word list {path}: {err}") from None


def _parsed_counts(path: Path, text: str, min_count: int) -> dict[str, int]:
    counts = _well_formed_counts(text)
    if counts is None:
        counts = _counts_checked_by_line(path, text)
    return {word: count for word, count in counts.items() if count >= min_count} if min_count > 1 else counts


def _well_formed_counts(text: str) -> dict[str, int] | None:
    """The counts of a word list in the usual form (lowercase, no word twice), else None."""
    if not _WELL_FORMED.fullmatch(text) or text != text.lower():
        return None
    fields = text.split()
    counts = dict(zip(fields[0::2], map(int, fields[1::2])))
    return counts if 2 * len(counts) == len(fields) else None


def _counts_checked_by_line(path: Path, text: str) -> dict[str, int]:
    """The counts of any word list, line by line: blank lines skipped, space around fields allowed, a word
    listed twice counted twice; the first malformed line raises LexiconError."""
    counts: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not parts[1].strip().isdigit() or not parts[0]:
            raise LexiconError(f"{path}:{lineno}: expected 'word<TAB>count', got {line[:60]!r}")
        word, count = parts[0].strip(), int(parts[1])
        if word != word.lower():
            raise LexiconError(f"{path}:{lineno}: words must be lowercase, got {word!r}")
        counts[word] = counts.get(word, 0) + count
    return counts


_KEY_BASE = 0x110000  # one more than the largest code point: (node, char) -> node * base + char is unique


class ListedCounts(Mapping):
    """A word list's {word: count} read in place from the index cache: its words (`TextList`, in the list's
    order), their counts (N,) and the words' sorted UTF-8 bytes with their rows (`sorted_strings`). One word is
    found by bisection and its answer remembered (`Remembered`), many at once by one binary search
    (`counts_of`): no dict of the list is ever made (125,116 words: 16 MB with their strings, and a tenth of a
    second, which every text's run paid)."""

    def __init__(self, words: TextList, counts: np.ndarray, listed: np.ndarray, rows: np.ndarray):
        self._words, self._counts, self._listed, self._rows = words, counts, listed, rows
        self._answers = Remembered()  # word -> its count, -1 where it is not listed

    def _count(self, word: str) -> int:
        row = find_string(self._listed, word)
        return int(self._counts[int(self._rows[row])]) if row >= 0 else -1

    def get(self, word, default=None):
        count = self._answers.answer(word, self._count) if isinstance(word, str) else -1
        return count if count >= 0 else default

    def __getitem__(self, word: str) -> int:
        count = self.get(word)
        if count is None:
            raise KeyError(word)
        return count

    def __contains__(self, word) -> bool:
        return self.get(word) is not None

    def counts_of(self, words: list[str]) -> np.ndarray:
        """(N,) the count of each of `words`, 0 where it is not listed: one binary search for all of them."""
        rows = find_strings(self._listed, self._rows, words)
        return np.where(rows >= 0, self._counts[np.maximum(rows, 0)], 0)

    def contains_many(self, words: list[str]) -> list[bool]:
        """`word in self` of each of `words`: one binary search for all of them."""
        return (find_strings(self._listed, None, words) >= 0).tolist()

    def in_order(self) -> tuple[TextList, np.ndarray]:
        """The words in the list's order, read in place, and their counts (N,)."""
        return self._words, np.asarray(self._counts)

    def __iter__(self):
        return iter(self._words)

    def __len__(self) -> int:
        return len(self._words)

    def values(self) -> list[int]:
        return self._counts.tolist()

    def items(self):
        return zip(self._words, self._counts.tolist())


class Lexicon:
    """Known words with corpus counts; `log_prior` is the smoothed unigram log-probability.

    Read from the index cache, the words and counts stay arrays there, looked up in place (`ListedCounts`, which
    `counts` then is); made from a dict (a list read without the cache), or once the user's words are added, the
    dict is kept."""

    def __init__(self, counts: dict[str, int]):
        if not counts:
            raise LexiconError("the word list is empty")
        self._counts: Mapping[str, int] = counts
        self._size = len(counts)
        self.total = sum(counts.values())
        self._trie: PrefixTrie | None = None
        self._digest: str | None = None  # of what the counts were made from (see `digest`)

    @classmethod
    def from_tsv(cls, path: str | Path | None = None, min_count: int = 1) -> "Lexicon":
        """Read `word<TAB>count` lines (lowercase); None reads the bundled list."""
        path = Path(path) if path is not None else bundled_words_path()
        try:
            digest = file_digest(path, f"\nmin_count={min_count}".encode())
        except FileNotFoundError:
            raise LexiconError(f"word list not found: {path}") from None
        except OSError as err:
            raise LexiconError(f"cannot read word list {path}: {err}") from None
        lexicon = cached("words", digest,
                         lambda: cls(_parsed_counts(path, _decoded(path, path.read_bytes()), min_count)),
                         cls.from_arrays)
        lexicon._digest = digest
        return lexicon

    @classmethod
    def from_arrays(cls, arrays) -> "Lexicon":
        """The lexicon whose `arrays()` these are (for `typofix.words.indexcache`: faster than parsing the list)."""
        counts = arrays["counts"]
        if not len(counts) or not (len(arrays["sorted"]) == len(arrays["sorted_rows"]) == len(counts)):
            raise ValueError("word list arrays do not agree")
        lexicon = cls.__new__(cls)
        words = TextList(arrays["words"])
        if len(words) != len(counts):
            raise ValueError("word list arrays do not agree")
        lexicon._counts = ListedCounts(words, counts, arrays["sorted"], arrays["sorted_rows"])
        lexicon._size = len(counts)
        lexicon.total = int(arrays["total"][0])  # kept: summing the counts read all of their pages
        lexicon._trie = lexicon._digest = None
        return lexicon

    def arrays(self) -> dict[str, np.ndarray]:
        words = list(self.counts)
        listed, rows = sorted_strings(words)
        return {"words": text_array(words),
                "counts": np.fromiter(self.counts.values(), dtype=np.int64, count=len(words)),
                "total": np.array([self.total], dtype=np.int64), "sorted": listed, "sorted_rows": rows}

    @property
    def counts(self) -> Mapping[str, int]:
        """{word: count}, in the list's order: a dict, or read in place where the list came from the index cache
        (`ListedCounts`)."""
        return self._counts

    def in_order(self) -> tuple[Sequence[str], np.ndarray]:
        """The words in the list's order and their counts (N,) (read from a cache, the words are read in place:
        `TextList`)."""
        if isinstance(self._counts, ListedCounts):
            return self._counts.in_order()
        return list(self._counts), np.fromiter(self._counts.values(), dtype=np.int64, count=len(self._counts))

    def add_words(self, words, count: int) -> None:
        """List `words` not yet listed with `count` (the user's words, so that they can be corrections)."""
        added = [word for word in dict.fromkeys(words) if word not in self]
        if added:
            if not isinstance(self._counts, dict):  # the arrays are the cached list's: a dict of it, added to
                self._counts = dict(self._counts.items())
            self._counts.update(dict.fromkeys(added, count))
            self._size += len(added)
            self.total += count * len(added)
            self._trie = None
            self._digest = hashlib.sha256("\n".join([self.digest, str(count), *added]).encode()).hexdigest()

    @property
    def digest(self) -> str:
        """A digest of the word list, which names its indexes in `typofix.words.indexcache`: of the file it was read
        from (cheap), or of its counts."""
        if self._digest is None:
            self._digest = hashlib.sha256("\n".join(f"{w}\t{c}" for w, c in self.counts.items()).encode()).hexdigest()
        return self._digest

    def __contains__(self, word: str) -> bool:
        return word in self._counts

    def contains_many(self, words: list[str]) -> list[bool]:
        """`word in self` of each of `words` (the same answers), read in place by one binary search for all of
        them."""
        if isinstance(self._counts, ListedCounts):
            return self._counts.contains_many(words)
        return [word in self._counts for word in words]

    def __len__(self) -> int:
        return self._size

    def count(self, word: str) -> int:
        return self._counts.get(word, 0)

    def counts_of(self, words: list[str]) -> np.ndarray:
        """(N,) `count` of each of `words`: read in place, by one binary search for all of them."""
        if isinstance(self._counts, ListedCounts):
            return self._counts.counts_of(words)
        return np.fromiter((self._counts.get(word, 0) for word in words), dtype=np.int64, count=len(words))

    def log_prior(self, word: str) -> float:
        """log P(word) with add-one smoothing, so unknown words get a finite, low score."""
        return math.log((self._counts.get(word, 0) + 1) / (self.total + self._size))

    def log_priors(self, words: list[str]) -> list[float]:
        """`log_prior` of each of `words` (the same floats), looked up together: read in place, by one binary
        search for all of them instead of one a word (the ranking asks about a batch's candidates)."""
        denominator = self.total + self._size
        return [math.log((count + 1) / denominator) for count in self.counts_of(words).tolist()]

    @property
    def trie(self) -> PrefixTrie:
        """Built on first use: correcting without the lexicon constraint never pays for it."""
        if self._trie is None:
            self._trie = cached("trie", self.digest, lambda: PrefixTrie(self.counts), PrefixTrie.from_arrays)
        return self._trie
