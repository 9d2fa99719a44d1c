"""Build informal dev cases: clean text with the slips of text as people type it put in, as `../shared/eval/informal`.

Usage (from the repository root; ``make informal-dev`` makes the first)::

    python -m bench.informal --clean ../shared/eval/prose/clean.txt --rate 1.0 --seed 1 --out outputs/informal-all
    python -m bench.informal --clean README.md docs/*.md --rate 1.0 --out outputs/informal-docs

writes ``OUT/clean.txt`` (the clean text), ``OUT/typos.txt`` (the same text, token for token and with the same
white space, slips put in) and ``OUT/README.md`` (how it was made, with counts). ``bench.run --prose OUT``
scores it like the prose set: per white-space token, a slip is *fixed* when the output equals the clean token,
a clean token is *broken* when the output differs.

The two kinds of slip, as ``../shared/eval/README.md`` describes the shared set's (the rules are implemented
here from that description, not copied from its build):

* a capitalised word that the acceptance dictionary typofix ships (Aspell's en_US and en_GB lists,
  ``typofix.words.lexicon.bundled_accepted_path``) lists only capitalised, typed in lower case:
  ``Debian -> debian``, ``February -> february``, ``English -> english``. Only Title-case words (a capital
  then lower case): the shared set never lowercases an acronym (``GCC``, ``FSF``: 31 tokens of its text, none
  changed) or a word with inner capitals (``TeX``), so neither is done here;
* a contraction typed without its apostrophe where the letters left are no word, neither in that dictionary
  nor in the word list ``data/words.tsv`` (``typofix.words.lexicon.bundled_words_path``): ``don't -> dont``,
  ``you're -> youre``, ``isn't -> isnt``, but not ``we'll`` (``well``) or ``it's`` (``its``). The contractions
  are the word list's entries with an apostrophe that do not end in ``'s`` (``ain't`` ... ``y'all``,
  ``o'clock``) and, of those that do, the closed list ``S_CONTRACTIONS`` (``that's``, ``there's``, ...): the
  others are possessives (``pilot's``), whose apostrophe-less form is mostly a plural, a word anyway.
  The case of what is typed stays: ``Don't -> Dont``.

A token is eligible when it is one word with punctuation only around it (``(Debian``, ``Linux.``,
``"don't"``): ``Debian/GNU`` or ``Debian-specific`` is not. Each eligible token gets its slip with probability
``--rate``, drawn from ``random.Random(f"{seed}:{position}")`` where ``position`` counts the text's
white-space tokens from 0, so the same text, rate and seed always give the same slips, and one token's draw
does not depend on the others'. ``--rate 1.0`` puts a slip into every eligible token: the dev prose at rate
1.0, seed 1, is the set ``informal-all`` (``make informal-dev``), three times the shared set's 72 slips.

Clean text: the dev prose (``../shared/eval/prose/clean.txt``, every token of which Aspell or Hunspell
accepts) is the one to prefer. A second source is the project's own documentation (``README.md``,
``docs/*.md``): correct English mostly, but with code in it. Of a ``.md`` file only the paragraphs of plain
prose are kept: none with a code fence or span, a link target or HTML in it (what
``typofix.apps.check.prose.mask_markdown``, the reading of ``typofix check``, would blank), no heading, table
or quote, and only those whose every word the bundled dictionary accepts (in its case rules: as listed, Title
case of a lowercase word, all caps), as the prose set was built with Aspell and Hunspell. Those docs change
with the project, so a set built from them is only comparable with itself, and they are mostly code and
links: of this repository's README and docs the rule keeps about 270 words with a single slip in them, too few
to measure anything, hence the dev prose. Every other file is taken whole, as it is. Several files are joined
with a blank line between them.
"""

from __future__ import annotations

import argparse
import random
import re
import shlex
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from typofix.files.atomic import atomic_path
from typofix.words.lexicon import bundled_accepted_path, bundled_words_path, read_word_list

# The contractions in 's of the word list: every other word ending in 's there is a possessive.
S_CONTRACTIONS = frozenset({
    "he's", "she's", "it's", "that's", "what's", "who's", "where's", "there's", "here's", "how's", "when's",
    "why's", "let's",
})
TOKEN = re.compile(r"\S+")
# One word with punctuation (anything but letters) around it; the word may have apostrophes inside.
ONE_WORD = re.compile(r"([^A-Za-z]*)([A-Za-z]+(?:'[A-Za-z]+)*)([^A-Za-z]*)")
CASE = "case"  # the kinds of slip, as the README written beside the set counts them
APOSTROPHE = "apostrophe"


@dataclass(frozen=True)
class Slips:
    """What may be typed for a word: the capitalised-only words and the contractions whose letters are no word."""

    capitalised: frozenset[str]  # Title case, listed only so: Debian, February
    contractions: frozenset[str]  # lower case: don't, you're, that's

    @classmethod
    def from_lists(cls, accepted: Iterable[str], words: Iterable[str]) -> "Slips":
        """From the acceptance dictionary (words as listed, in their case) and the word list (lower case)."""
        accepted = set(accepted)
        words = set(words)
        capitalised = frozenset(w for w in accepted
                                if len(w) > 1 and w[0].isupper() and w[1:].islower() and w.lower() not in accepted)
        known = accepted | words
        contractions = frozenset(
            w for w in words
            if "'" in w and (not w.endswith("'s") or w in S_CONTRACTIONS) and w.replace("'", "") not in known
        )
        return cls(capitalised, contractions)

    @classmethod
    def bundled(cls) -> "Slips":
        """From the lists typofix ships: data/accepted.txt.gz and data/words.tsv."""
        with open(bundled_words_path(), encoding="utf-8") as lines:
            words = [line.split("\t", 1)[0] for line in lines]
        return cls.from_lists(read_word_list(bundled_accepted_path()), words)

    def slip(self, word: str) -> tuple[str, str] | None:
        """(kind, the word as typed) for an eligible word, None for any other."""
        if word in self.capitalised:
            return CASE, word.lower()
        if "'" in word and word.lower() in self.contractions:
            return APOSTROPHE, word.replace("'", "")
        return None


def put_slips(text: str, slips: Slips, rate: float, seed: int) -> tuple[str, Counter]:
    """``text`` with a slip in each eligible token drawn (probability ``rate``, seeded by the token's position),
    white space kept; and how many of each kind were put in."""
    pieces, counts, end = [], Counter(), 0
    for position, token in enumerate(TOKEN.finditer(text)):
        found = ONE_WORD.fullmatch(token.group())
        typed = slips.slip(found.group(2)) if found else None
        if typed is None or random.Random(f"{seed}:{position}").random() >= rate:
            continue
        kind, word = typed
        counts[kind] += 1
        pieces += [text[end:token.start()], found.group(1), word, found.group(3)]
        end = token.end()
    pieces.append(text[end:])
    return "".join(pieces), counts


# --- clean text from Markdown ------------------------------------------------------------------------------

_PARAGRAPH = re.compile(r"\S(?:.|\n(?![ \t]*\n))*")  # text up to the next blank line
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")


def markdown_prose(text: str, accepted: Iterable[str]) -> str:
    """The paragraphs of a Markdown text that are prose whole: none with code, a link target or HTML in it
    (what ``mask_markdown`` would blank), no heading, table, quote or picture, and every word one ``accepted``
    takes (see ``accepts``)."""
    from typofix.apps.check.prose import mask_markdown  # only this source needs it

    exact = set(accepted)
    upper = {w.upper() for w in exact}
    masked = mask_markdown(text)  # same length and lines as the text
    kept = []
    for found in _PARAGRAPH.finditer(text):
        paragraph = found.group()
        lines = [line.strip() for line in paragraph.splitlines()]
        if masked[found.start():found.end()] != paragraph or any(
                line.startswith(("#", "|", ">", "!", "<", "---", "===", "[")) for line in lines):
            continue
        words = _WORD.findall(paragraph)
        if words and all(accepts(word, exact, upper) for word in words):
            kept.append("\n".join(lines))
    return "\n\n".join(kept) + "\n" if kept else ""


def accepts(word: str, exact: set[str], upper: set[str]) -> bool:
    """The dictionary's case rules: a word as listed, a listed lowercase word in Title case, any listed word in
    all caps. A possessive or contraction counts by the letters before its apostrophe when it is not listed."""
    for form in (word, word.split("'", 1)[0]):
        title = form[:1].isupper() and form[1:].islower()
        if form in exact or (title and form.lower() in exact) or (form.isupper() and form in upper):
            return True
    return False


def read_clean(paths: Sequence[Path]) -> str:
    """The clean text: each file whole, or the prose of a Markdown file; several joined with a blank line (one
    file is kept byte for byte)."""
    accepted = None
    parts = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".md":
            accepted = accepted if accepted is not None else read_word_list(bundled_accepted_path())
            text = markdown_prose(text, accepted)
        parts.append(text)
    parts = [part for part in parts if part.strip()] or [""]
    return parts[0] if len(parts) == 1 else "\n".join(part.rstrip("\n") + "\n" for part in parts)


# --- command line ------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.informal", description=__doc__.split("\n")[0])
    parser.add_argument("--clean", type=Path, nargs="+", required=True,
                        help="clean text file(s); a .md file gives its prose paragraphs only")
    parser.add_argument("--rate", type=float, default=0.5, help="probability of a slip per eligible token")
    parser.add_argument("--seed", type=int, default=1, help="seed of the per-token draws")
    parser.add_argument("--out", type=Path, required=True, help="folder for clean.txt, typos.txt and README.md")
    args = parser.parse_args(argv)
    if not 0.0 <= args.rate <= 1.0:
        parser.error("--rate must be between 0 and 1")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    """Write the set and say what is in it."""
    args = parse_args(argv)
    clean = read_clean(args.clean)
    typos, counts = put_slips(clean, Slips.bundled(), args.rate, args.seed)
    tokens = len(clean.split())
    args.out.mkdir(parents=True, exist_ok=True)
    command = "python -m bench.informal " + shlex.join(sys.argv[1:] if argv is None else list(argv))
    summary = (f"{sum(counts.values()):,} slips in {tokens:,} tokens: {counts[CASE]:,} capitalised words typed in "
               f"lower case, {counts[APOSTROPHE]:,} contractions typed without their apostrophe")
    readme = (f"# Informal dev cases\n\nClean text ({', '.join(f'`{p}`' for p in args.clean)}) with slips of text as "
              f"people type it put in at rate {args.rate:g}, seed {args.seed}: {summary}.\n\n"
              f"Made by `{command}`; `bench/informal.py` says how.\n")
    for name, text in (("clean.txt", clean), ("typos.txt", typos), ("README.md", readme)):
        with atomic_path(args.out / name) as temporary:
            Path(temporary).write_text(text, encoding="utf-8")
    print(f"{args.out}: {summary}")


if __name__ == "__main__":
    main()
