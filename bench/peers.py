"""The spell checkers the benchmark compares, behind one small interface.

Every checker has a ``name``, says whether it can run here (``available()``,
with the reason in ``notice`` when it cannot), builds its dictionaries or model
in ``load()`` (not timed), and corrects a whole list in one call:
``suggest_many(words, k)`` returns, per word, up to ``k`` candidates, best
first. A word the checker accepts comes back as itself in first place; an
empty list means it flagged the word and had nothing to offer.

A checker that is not installed is skipped with its notice, never imitated.
"""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

ALPHABET = "abcdefghijklmnopqrstuvwxyz"


class Checker:
    """One spell checker as the harness sees it: availability, a version line, and batched suggestions."""

    name = "checker"

    def __init__(self) -> None:
        self.notice = ""

    def available(self) -> bool:
        """True if the checker can run on this machine; otherwise ``notice`` says why."""
        return True

    def load(self) -> None:
        """Build whatever the checker needs before the timed call (dictionaries, model weights)."""

    def version(self) -> str:
        """The versions of the program and of its dictionary or model, for the report."""
        return ""

    def suggest_many(self, words: Sequence[str], k: int) -> list[list[str]]:
        """Up to ``k`` ranked candidates for each word, in one call for the whole list."""
        raise NotImplementedError


# --- Aspell and Hunspell: the ispell pipe protocol ---------------------------------------------------------


class IspellPipe(Checker):
    """A checker driven through the ``-a`` (ispell pipe) protocol: one process for the whole word list.

    Each input line is ``^word`` (the caret stops a word that starts with a
    protocol command character, such as ``*`` or ``#``, from being read as a
    command). For every input line the program answers zero or more result lines
    and then one blank line: ``*`` (correct), ``+ root`` or ``-`` (correct by
    affix or compounding), ``& word n offset: s1, s2, ...`` or ``? ...``
    (misspelled, with suggestions), ``# word offset`` (misspelled, none). A line
    gets several result lines when the program splits it into several words,
    e.g. at a hyphen.
    """

    def __init__(self, name: str, argv: list[str], dictionary_package: str) -> None:
        super().__init__()
        self.name = name
        self.argv = argv
        self.dictionary_package = dictionary_package

    def available(self) -> bool:
        """True if the program is on PATH and answers a probe word with its en_US dictionary."""
        if shutil.which(self.argv[0]) is None:
            self.notice = f"`{self.argv[0]}` not found (install the Debian package `{self.argv[0]}`)"
            return False
        try:
            self.suggest_many(["the"], 1)
        except (OSError, RuntimeError, subprocess.CalledProcessError) as err:
            detail = getattr(err, "stderr", "") or str(err)
            self.notice = f"`{' '.join(self.argv)}` failed: {detail.strip()[:200]}"
            return False
        return True

    def version(self) -> str:
        """The program's own version (from its ``-v`` banner) and the dictionary package's Debian version."""
        done = subprocess.run([self.argv[0], "-v"], capture_output=True, text=True)
        banner = (done.stdout.strip().splitlines() or ["?"])[0]  # hunspell adds a licence after the first line
        program = banner.split("but really ")[-1].rstrip(")") if "but really " in banner else banner
        return f"{program}; dictionary {self.dictionary_package} {_debian_version(self.dictionary_package)}"

    def suggest_many(self, words: Sequence[str], k: int) -> list[list[str]]:
        """Send the whole list to one process, then parse one answer block per word."""
        # Words never contain newlines here; a stray one would desynchronise the protocol.
        text = "".join(f"^{word.replace(chr(10), ' ')}\n" for word in words)
        done = subprocess.run(self.argv, input=text, capture_output=True, text=True, check=True)
        blocks = answer_blocks(done.stdout)
        if len(blocks) != len(words):
            raise RuntimeError(f"{self.name}: {len(blocks)} answers for {len(words)} words")
        return [_candidates(word, block)[:k] for word, block in zip(words, blocks)]


def _debian_version(package: str) -> str:
    """A Debian package's installed version, or ``?`` when dpkg cannot say."""
    try:
        done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    except OSError:
        return "?"
    return done.stdout.strip() or "?"


def answer_blocks(stdout: str) -> list[list[str]]:
    """Split the pipe's output into one list of result lines per input line (the banner line dropped)."""
    lines = stdout.split("\n")[1:]
    if lines and lines[-1] == "":
        lines.pop()  # the text after the final newline, not an answer
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        if line == "":
            blocks.append(current)
            current = []
        else:
            current.append(line)
    return blocks


class Miss(NamedTuple):
    """One word an ispell pipe rejected: the word, where it starts in its input line, and the suggestions."""

    word: str
    offset: int  # in the line as sent, so the leading ``^`` counts
    suggestions: list[str]


def rejected_words(block: list[str]) -> list[Miss]:
    """The misspelled parts of one answer block, each with its offset and suggestions (possibly none).

    ``& word count offset: s1, s2`` and ``? word 0 offset: s1, s2`` carry
    suggestions, ``# word offset`` none; the offset is always the last field
    before the colon.
    """
    found = []
    for line in block:
        if line[0] in "&?":
            head, _, tail = line.partition(": ")
            fields = head.split()
            found.append(Miss(fields[1], int(fields[-1]), [s.strip() for s in tail.split(", ") if s.strip()]))
        elif line[0] == "#":
            fields = line.split()
            found.append(Miss(fields[1], int(fields[-1]), []))
    return found


def _candidates(word: str, block: list[str]) -> list[str]:
    """Ranked corrections of the whole input word from its answer block.

    A word split into parts (``well-knwn``) is rebuilt: the first misspelled
    part takes each of its suggestions in turn, any other misspelled part its
    first suggestion. No misspelled part means the word is accepted.
    """
    misses = rejected_words(block)
    if not misses:
        return [word]
    first, _, suggestions = misses[0]
    if not suggestions:
        return []
    rest = word
    for part, _, others in misses[1:]:
        if others:
            rest = rest.replace(part, others[0], 1)
    return [rest.replace(first, suggestion, 1) for suggestion in suggestions]


def aspell() -> IspellPipe:
    """GNU Aspell in its default suggestion mode, en_US dictionary."""
    argv = ["aspell", "-a", "--sug-mode=normal", "--lang=en_US", "--encoding=utf-8"]
    return IspellPipe("Aspell", argv, "aspell-en")


def hunspell() -> IspellPipe:
    """Hunspell with the en_US dictionary."""
    return IspellPipe("Hunspell", ["hunspell", "-a", "-d", "en_US", "-i", "utf-8"], "hunspell-en-us")


# --- Python peers -----------------------------------------------------------------------------------------


class SymSpellChecker(Checker):
    """SymSpell (symspellpy) with its bundled English frequency dictionary and a maximum edit distance."""

    DICTIONARY = "frequency_dictionary_en_82_765.txt"

    def __init__(self, max_edit_distance: int, dictionary: Path | None = None) -> None:
        super().__init__()
        self.max_edit_distance = max_edit_distance
        self.dictionary = dictionary  # None: the bundled one; tests pass a tiny ``word count`` file
        self.name = f"SymSpell (ED {max_edit_distance})"
        self._symspell = None

    def available(self) -> bool:
        """True if symspellpy is importable."""
        return _importable("symspellpy", "symspellpy", self)

    def load(self) -> None:
        """Build SymSpell's delete index for the bundled dictionary (the slow part, seconds)."""
        from symspellpy import SymSpell

        self._symspell = SymSpell(max_dictionary_edit_distance=self.max_edit_distance)
        if self.dictionary is not None:
            self._symspell.load_dictionary(str(self.dictionary), term_index=0, count_index=1)
            return
        path = importlib.resources.files("symspellpy") / self.DICTIONARY
        with importlib.resources.as_file(path) as file:
            self._symspell.load_dictionary(str(file), term_index=0, count_index=1)

    def version(self) -> str:
        """symspellpy's version and the dictionary it uses."""
        dictionary = self.DICTIONARY if self.dictionary is None else str(self.dictionary)
        return f"symspellpy {importlib.metadata.version('symspellpy')}; {dictionary}"

    def suggest_many(self, words: Sequence[str], k: int) -> list[list[str]]:
        """The dictionary words at the nearest edit distance, highest count first (``Verbosity.CLOSEST``).

        CLOSEST is the mode symspellpy documents for correcting a word. ``ALL``
        would let top-5 reach past the nearest distance (on a 600-row sample of
        birkbeck-dev at distance 3: top-5 54% instead of 44%, same top-1) but is
        over 20 times slower, which is not how SymSpell is used. Like the
        Norvig-style corrector and pyspellchecker, its lists stay in one tier.
        """
        from symspellpy import Verbosity

        lookup = self._symspell.lookup
        return [[s.term for s in lookup(w, Verbosity.CLOSEST, self.max_edit_distance)[:k]] for w in words]


class PySpellChecker(Checker):
    """pyspellchecker (Norvig's algorithm over its own English frequency list), distance 2."""

    name = "pyspellchecker"

    def __init__(self) -> None:
        super().__init__()
        self._spell = None

    def available(self) -> bool:
        """True if pyspellchecker is importable."""
        return _importable("spellchecker", "pyspellchecker", self)

    def load(self) -> None:
        """Load the bundled English word frequencies."""
        from spellchecker import SpellChecker

        self._spell = SpellChecker(language="en", distance=2)

    def version(self) -> str:
        """pyspellchecker's version and dictionary language."""
        return f"pyspellchecker {importlib.metadata.version('pyspellchecker')}; language en"

    def suggest_many(self, words: Sequence[str], k: int) -> list[list[str]]:
        """Its candidate set ranked by its word counts; equal counts by spelling, so the order is reproducible."""
        spell = self._spell
        ranked = []
        for word in words:
            candidates = spell.candidates(word) or set()
            # Top-1 equals spell.correction(word) except among equal counts, where correction() is set-order luck.
            ranked.append(sorted(candidates, key=lambda c: (-spell[c], c))[:k])
        return ranked


def _importable(module: str, distribution: str, checker: Checker) -> bool:
    """Try to import a peer's module; on failure set the checker's notice and return False."""
    try:
        __import__(module)
    except ImportError as err:
        checker.notice = f"`{module}` not importable ({err}); pip install {distribution}"
        return False
    return True


class NorvigChecker(Checker):
    """A Norvig-style corrector: the known words at the fewest edits (0, 1, then 2), most frequent first.

    Written for this benchmark after Peter Norvig's essay "How to Write a
    Spelling Corrector"; its language model is ``data/words.tsv`` (word counts).
    Only the nearest non-empty tier is a candidate, as in the essay, so its
    top-k lists never mix distances (and it never computes distance 2 when a
    distance-1 word exists, which is what keeps it fast).
    """

    name = "Norvig-style (ED 2)"

    def __init__(self, words_path: Path) -> None:
        super().__init__()
        self.words_path = Path(words_path)
        self.counts: dict[str, int] = {}

    def available(self) -> bool:
        """True if the word list exists."""
        if not self.words_path.is_file():
            self.notice = f"{self.words_path} not found"
            return False
        return True

    def load(self) -> None:
        """Read ``word<TAB>count`` lines into the count table."""
        self.counts = read_word_counts(self.words_path)

    def version(self) -> str:
        """Where the code and the counts come from."""
        return f"bench/peers.py; {self.words_path} ({len(self.counts):,} words)"

    def suggest_many(self, words: Sequence[str], k: int) -> list[list[str]]:
        """The nearest tier of known words for each word, ranked by count (then spelling, for ties)."""
        counts = self.counts
        return [sorted(self.nearest_known(w), key=lambda c: (-counts[c], c))[:k] for w in words]

    def nearest_known(self, word: str) -> set[str]:
        """The known words at the smallest edit distance (0, 1 or 2) from ``word``; empty beyond 2."""
        if word in self.counts:
            return {word}
        one = edits1(word)
        known = {w for w in one if w in self.counts}
        if known:
            return known
        return {w2 for w1 in one for w2 in edits1(w1) if w2 in self.counts}


def edits1(word: str) -> set[str]:
    """Every string one deletion, adjacent transposition, substitution or insertion (a-z) away from ``word``."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = [a + b[1:] for a, b in splits if b]
    transposes = [a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1]
    replaces = [a + c + b[1:] for a, b in splits if b for c in ALPHABET]
    inserts = [a + c + b for a, b in splits for c in ALPHABET]
    return set(deletes + transposes + replaces + inserts)


def read_word_counts(path: Path) -> dict[str, int]:
    """``word<TAB>count`` lines as a dict, in file order."""
    counts = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            word, _, count = line.rstrip("\n").partition("\t")
            if word:
                counts[word] = int(count)
    return counts


# --- typofix itself ---------------------------------------------------------------------------------------


class TypofixChecker(Checker):
    """typofix's bundled model through its public ``Corrector`` API, with one named decoding preset."""

    def __init__(self, name: str, preset: str) -> None:
        super().__init__()
        self.name = name
        self.preset = preset  # a name of typofix.engine.settings.PRESETS: "default" or "fast"
        self._corrector = None

    def available(self) -> bool:
        """True if ``typofix.engine.corrector`` imports and the bundled model file is there."""
        try:
            from typofix.engine.corrector import Corrector  # noqa: F401
            from typofix.files.modelfile import bundled_model_path
        except Exception as err:  # any import failure means there is nothing to benchmark
            self.notice = f"`typofix.engine.corrector` not importable ({type(err).__name__}: {err})"
            return False
        if not bundled_model_path().is_file():
            self.notice = f"no bundled model at {bundled_model_path()} (make it with `typofix export`)"
            return False
        return True

    def load(self) -> None:
        """Load the bundled model with the preset's settings.

        No torch import: the bundled model runs on onnxruntime, and the one
        thread comes from ``OMP_NUM_THREADS=1``, which ``bench.run`` sets
        before anything is imported.
        """
        from typofix.engine.corrector import Corrector
        from typofix.engine.settings import DecodingSettings

        self._corrector = Corrector.load(None, settings=DecodingSettings.preset(self.preset))

    def version(self) -> str:
        """typofix's version, the runtime that ran the model (after load), the preset and how it differs from the
        tuned default."""
        import typofix
        from typofix.engine.settings import DecodingSettings

        settings, default = DecodingSettings.preset(self.preset).as_dict(), DecodingSettings().as_dict()
        changed = ", ".join(f"{k}={v}" for k, v in settings.items() if v != default[k]) or "the tuned default"
        runtime = type(self._corrector.stepper).__name__ if self._corrector is not None else "?"
        return (f"typofix {getattr(typofix, '__version__', '?')}; bundled model on {runtime}, "
                f"preset {self.preset!r} ({changed})")

    def suggest_many(self, words: Sequence[str], k: int) -> list[list[str]]:
        """The corrector's batched top-k, scores dropped."""
        return [[s.word for s in ranked] for ranked in self._corrector.suggest_many(list(words), k)]


def all_checkers(words_path: Path) -> list[Checker]:
    """Every checker in the benchmark, in report order: typofix first, then the peers."""
    return [
        TypofixChecker("typofix (default)", "default"),
        TypofixChecker("typofix (fast)", "fast"),
        aspell(),
        hunspell(),
        SymSpellChecker(2),
        SymSpellChecker(3),
        PySpellChecker(),
        NorvigChecker(words_path),
    ]
