"""The spell checkers as a user runs them over a file of text: text in, corrected text out, start-up included.

``correct_file(path)`` is the whole run the prose section times: starting the
program (typofix, Aspell, Hunspell) or building the dictionary (the Python
peers), reading the file, correcting it. Every character that is not part of a
corrected word comes back as it was, so the output splits into the same tokens.

Each kind of checker is used the way its users would use it on text:

* typofix: its command line, ``typofix correct --file F`` plus a variant's options;
* Aspell and Hunspell: an "accept the first suggestion" user. One ``-a`` pipe
  process gets every line of the text; every word it rejects is replaced by its
  first suggestion, at the offset it reports (a word it rejects with no
  suggestion stays);
* word-level peers (SymSpell, the Norvig-style corrector): each alphabetic run
  of the text is looked up in lower case, each distinct run once, and replaced
  by the first suggestion in the run's case; a run the peer knows or has no
  suggestion for stays. The letters after an apostrophe inside a word
  (``don't``, ``program's``) are kept with the run before them and not looked
  up: their dictionaries have no ``t`` or ``s``, so word by word they would turn
  every ``don't`` into ``don'to``, half of SymSpell's broken words on the dev prose.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from typofix.words.text import match_case

from bench import peers

# The typofix rows of the prose table: (row name, extra options of `typofix correct`). One line per variant.
TYPOFIX_VARIANTS: list[tuple[str, list[str]]] = [
    ("typofix (default)", []),
    ("typofix (fast)", ["--fast"]),
    ("typofix (--no-context)", ["--no-context"]),
]
WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")  # an alphabetic run, with its contraction or possessive ending


class TextChecker:
    """One checker over a text file: availability, a version line, and the whole correction run."""

    name = "checker"

    def __init__(self) -> None:
        self.notice = ""

    def available(self) -> bool:
        """True if the checker can run on this machine; otherwise ``notice`` says why."""
        return True

    def warm_up(self) -> None:
        """One untimed tiny run, so that every checker is timed with its files in the page cache."""

    def version(self) -> str:
        return ""

    def correct_file(self, path: Path) -> str:
        """The corrected text of the file at ``path``; everything the run needs is started or loaded in here."""
        raise NotImplementedError


WARM_UP_TEXT = "Teh speling was simerly korrect aboute it."


class TypofixCLI(TextChecker):
    """The ``typofix correct --file`` command in a child process (it inherits the benchmark's pinned core)."""

    def __init__(self, name: str, options: list[str]) -> None:
        super().__init__()
        self.name = name
        self.options = options
        script = Path(sys.executable).with_name("typofix")  # the console script users run, beside this Python
        self.program = [str(script)] if script.is_file() else [sys.executable, "-m", "typofix"]

    def available(self) -> bool:
        """True if the command answers ``--version``."""
        done = subprocess.run([*self.program, "--version"], capture_output=True, text=True)
        if done.returncode != 0:
            self.notice = f"`typofix --version` failed: {_last_line(done.stderr)}"
            return False
        return True

    def warm_up(self) -> None:
        """A few typos of which some need the wide pass: besides the page cache, this fills typofix's index
        cache (`typofix.words.indexcache`) as any earlier run would; `make startup` times the first run, cold."""
        subprocess.run([*self.program, "correct", *self.options, WARM_UP_TEXT], capture_output=True)

    def version(self) -> str:
        done = subprocess.run([*self.program, "--version"], capture_output=True, text=True)
        return f"{done.stdout.strip()}; bundled model; `{' '.join(['typofix correct', *self.options, '--file F'])}`"

    def correct_file(self, path: Path) -> str:
        done = subprocess.run([*self.program, "correct", *self.options, "--file", str(path)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"typofix exited with {done.returncode}: {_last_line(done.stderr)}")
        return done.stdout


class OverWords(TextChecker):
    """A text checker made from a word-level ``bench.peers.Checker``: its name, availability and version."""

    def __init__(self, checker: peers.Checker) -> None:
        super().__init__()
        self.checker = checker
        self.name = checker.name

    def available(self) -> bool:
        """The word-level check (Aspell's and Hunspell's runs the program once, so it doubles as the warm-up)."""
        ok = self.checker.available()
        self.notice = self.checker.notice
        return ok

    def version(self) -> str:
        return self.checker.version()  # after correct_file: some peers name what they loaded


class IspellText(OverWords):
    """Aspell or Hunspell through the ``-a`` pipe, every rejected word replaced by its first suggestion."""

    checker: peers.IspellPipe

    def correct_file(self, path: Path) -> str:
        lines = path.read_text(encoding="utf-8").split("\n")
        # ``^`` keeps a line starting with a command character (``*``, ``#``, ``&``, ...) text, not a command.
        sent = "".join(f"^{line}\n" for line in lines)
        done = subprocess.run(self.checker.argv, input=sent, capture_output=True, text=True, check=True)
        blocks = peers.answer_blocks(done.stdout)
        if len(blocks) != len(lines):
            raise RuntimeError(f"{self.name}: {len(blocks)} answers for {len(lines)} lines")
        return "\n".join(first_suggestions(line, block) for line, block in zip(lines, blocks))


def first_suggestions(line: str, block: list[str]) -> str:
    """``line`` with every word its answer block rejects replaced by that word's first suggestion.

    Offsets count the ``^`` sent in front of the line, hence the ``- 1``. A
    suggestion of several words (Hunspell offers ``a lot`` for ``alot``) is
    written with ``_`` for its spaces, so the line keeps its token count; a
    clean token is one word, so such a suggestion is never a fix either way.
    """
    for miss in sorted(peers.rejected_words(block), key=lambda m: m.offset, reverse=True):
        start = miss.offset - 1
        if line[start:start + len(miss.word)] != miss.word:
            raise RuntimeError(f"offset {miss.offset} of {miss.word!r} does not point at it in {line!r}")
        if miss.suggestions:
            line = line[:start] + "_".join(miss.suggestions[0].split()) + line[start + len(miss.word):]
    return line


class WordByWord(OverWords):
    """A word-level peer (SymSpell, the Norvig-style corrector) applied to the alphabetic runs of the text."""

    def correct_file(self, path: Path) -> str:
        self.checker.load()  # timed: building the dictionary is this kind of checker's start-up
        text = path.read_text(encoding="utf-8")
        distinct = list(dict.fromkeys(match.group().split("'")[0].lower() for match in WORD.finditer(text)))
        best = {word: found[0] for word, found in zip(distinct, self.checker.suggest_many(distinct, 1)) if found}

        def replace(match: re.Match) -> str:
            word, apostrophe, ending = match.group().partition("'")
            correction = best.get(word.lower(), word.lower())
            return (word if correction == word.lower() else match_case(word, correction)) + apostrophe + ending

        return WORD.sub(replace, text)


def _last_line(text: str) -> str:
    """The last non-empty line of a program's error output (typofix's errors are one line)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "no error output"


def all_text_checkers(words_path: Path) -> list[TextChecker]:
    """Every checker of the prose section, in report order. pyspellchecker is left out: at 4 to 30 misspelled
    words per second (the word-list tables) it would take minutes on the text's 1,160 misspellings."""
    return [
        *(TypofixCLI(name, options) for name, options in TYPOFIX_VARIANTS),
        IspellText(peers.aspell()),
        IspellText(peers.hunspell()),
        WordByWord(peers.SymSpellChecker(2)),
        WordByWord(peers.NorvigChecker(words_path)),
    ]
