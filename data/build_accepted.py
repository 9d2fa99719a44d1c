"""Build ``data/accepted.txt.gz``, typofix's acceptance dictionary: the words it
never rewrites, as GNU Aspell's English dictionaries spell them (SCOWL size 60
and its variants), American and British.

Source: the master word lists of Debian's ``aspell-en`` (2020.12.07), expanded
from their affix-compressed form by Aspell itself, one list per dictionary::

    aspell -d en_US dump master | aspell -l en expand

for ``en_US``, ``en_GB-ise`` and ``en_GB-ize`` (this script runs that when no
lists are given). Aspell's lists, not a larger SCOWL size: SCOWL 70 and 80 list
hundreds of obscure lowercase forms (``ane``, ``fo``, ``dat``, ``att``,
``instal``) that are far more often misspellings of common words; what Aspell
accepts is what users already expect a spell checker to accept. Case is kept:
``Sam`` is accepted, ``sam`` is not (see ``typofix.words.lexicon.AcceptedWords``).

This list only answers "is this a word?". It is separate from ``words.tsv``,
the list a correction may become. See ``data/README.md`` for the licence and
the numbers each filter drops.

Filters, applied to each entry in this order:

1. ``non_ascii``: drop entries with any character outside ASCII.
2. ``possessive``: an entry ending in ``'s`` stands for its stem; the stem is
   kept when it is made of letters.
3. ``apostrophe``: drop the other entries with an apostrophe (``I'd``):
   typofix splits clitics off and never corrects a word with an inner one.

Then deduplicated (case kept) and sorted. The output is one word a line,
gzip-compressed with a zero timestamp and no file name in the header, so the
same lists always give the same bytes. It is written atomically (temp file in
the output's directory, then ``os.replace``). Standard library only.

Usage::

    python data/build_accepted.py --out data/accepted.txt.gz
    python data/build_accepted.py --lists US.txt GB-ise.txt GB-ize.txt --out data/accepted.txt.gz
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

DICTIONARIES = ("en_US", "en_GB-ise", "en_GB-ize")

_LETTERS = re.compile(r"[A-Za-z]+")


def accepted_form(entry: str) -> tuple[str | None, str | None]:
    """(the word an entry contributes, or None; the filter that changed or dropped it, or None)."""
    if not entry.isascii():
        return None, "non_ascii"
    if entry.endswith("'s"):
        stem = entry[:-2]
        return (stem if _LETTERS.fullmatch(stem) else None), "possessive"
    if _LETTERS.fullmatch(entry):
        return entry, None
    return None, "apostrophe"


def build(lists: list[str]) -> tuple[list[str], Counter]:
    """The sorted words of all lists (case kept), and counts over the distinct entries of their union: how many
    each filter touched, the possessive stems no entry lists on its own (kept), the words left."""
    entries: set[str] = set()
    for text in lists:
        entries.update(text.split())
    counts: Counter = Counter(entries=len(entries))
    kept: set[str] = set()
    for entry in entries:
        word, rule = accepted_form(entry)
        if rule:
            counts[rule] += 1
        if word is not None:
            kept.add(word)
    counts["possessive_stem_kept"] = len(kept - entries)
    return sorted(kept), counts


def aspell_list(dictionary: str) -> str:
    """Every word of one Aspell dictionary, its affixes expanded (needs Debian's aspell and aspell-en)."""
    dump = subprocess.run(["aspell", "-d", dictionary, "dump", "master"], capture_output=True, check=True).stdout
    return subprocess.run(["aspell", "-l", "en", "expand"], input=dump, capture_output=True,
                          check=True).stdout.decode("utf-8", "replace")


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lists", type=Path, nargs="+", help="expanded word lists (default: ask aspell for "
                        + ", ".join(DICTIONARIES) + ")")
    parser.add_argument("--out", type=Path, default=Path("data/accepted.txt.gz"))
    args = parser.parse_args(argv)

    if args.lists:
        missing = [p for p in args.lists if not p.is_file()]
        if missing:
            parser.error(f"word list not found: {missing[0]}")
        lists, names = [p.read_text(encoding="utf-8") for p in args.lists], [str(p) for p in args.lists]
    else:
        try:
            lists, names = [aspell_list(d) for d in DICTIONARIES], [f"aspell -d {d}" for d in DICTIONARIES]
        except (OSError, subprocess.CalledProcessError) as err:
            parser.error(f"cannot run aspell ({err}); Debian: apt-get install aspell aspell-en")
    words, counts = build(lists)
    # mtime=0 and no file name in the header: the bytes depend on the words alone.
    data = gzip.compress("".join(w + "\n" for w in words).encode("ascii"), compresslevel=9, mtime=0)
    write_atomic(args.out, data)

    print(f"sources: {', '.join(names)}: {counts['entries']} distinct entries")
    for rule in ("non_ascii", "possessive", "apostrophe"):
        print(f"{rule}: {counts[rule]}")
    print(f"possessive stems listed nowhere else, kept: {counts['possessive_stem_kept']}")
    print(f"wrote {args.out}: {len(words)} words, {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
