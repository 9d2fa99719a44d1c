"""Build ``data/accepted.txt.gz``, typofix's acceptance dictionary: the words it
never rewrites, from SCOWL size 70 ("large"), American and British.

Source: the word lists Debian ships in ``wamerican-large`` and
``wbritish-large`` (``/usr/share/dict/american-english-large``,
``/usr/share/dict/british-english-large``), one word a line, UTF-8. See
``data/README.md`` for the version, the SCOWL copyright notice and the numbers
each filter drops.

This list only answers "is this a word?". It is separate from ``words.tsv``,
the smaller list a correction may become: a rare word is left alone, yet never
offered as a correction.

Filters, applied to each entry of either list in this order:

1. ``non_ascii``: drop entries with any character outside ASCII
   (``Asunción``, ``Atatürk's``).
2. ``possessive``: an entry ending in ``'s`` stands for its stem
   (``Kinko's`` -> ``Kinko``); the stem is kept when it is made of letters.
   Nearly every stem is also listed on its own; the few that are not are kept.
3. ``apostrophe``: drop the other entries with an apostrophe (``I'd``,
   ``Hallowe'en``, ``Baha'i``): typofix splits clitics off and never corrects
   a word with an inner apostrophe.

Then everything is lowercased, deduplicated and sorted. The output is one word
a line, gzip-compressed with a zero timestamp and no file name in the header,
so the same lists always give the same bytes. It is written atomically (temp
file in the output's directory, then ``os.replace``). Standard library only.

Usage::

    python data/build_accepted.py --out data/accepted.txt.gz
    python data/build_accepted.py --american PATH --british PATH --out data/accepted.txt.gz
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

AMERICAN = Path("/usr/share/dict/american-english-large")
BRITISH = Path("/usr/share/dict/british-english-large")

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


def build(paths: list[Path]) -> tuple[list[str], Counter]:
    """The sorted, lowercased words of all lists, and counts over the distinct entries of their union: how
    many each filter touched, the possessive stems no entry lists on its own (kept), the words left before
    and after lowercasing."""
    entries: set[str] = set()
    for path in paths:
        entries.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    counts: Counter = Counter(entries=len(entries))
    kept: set[str] = set()
    for entry in entries:
        word, rule = accepted_form(entry)
        if rule:
            counts[rule] += 1
        if word is not None:
            kept.add(word)
    counts["possessive_stem_kept"] = len(kept - entries)
    counts["before_lowercase"] = len(kept)
    return sorted({word.lower() for word in kept}), counts


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
    parser.add_argument("--american", type=Path, default=AMERICAN, help=f"default {AMERICAN}")
    parser.add_argument("--british", type=Path, default=BRITISH, help=f"default {BRITISH}")
    parser.add_argument("--out", type=Path, default=Path("data/accepted.txt.gz"))
    args = parser.parse_args(argv)

    for path in (args.american, args.british):
        if not path.is_file():
            parser.error(f"word list not found: {path} (Debian: apt-get install wamerican-large wbritish-large)")
    words, counts = build([args.american, args.british])
    # mtime=0 and no file name in the header: the bytes depend on the words alone.
    data = gzip.compress("".join(w + "\n" for w in words).encode("ascii"), compresslevel=9, mtime=0)
    write_atomic(args.out, data)

    print(f"sources: {args.american}, {args.british}: {counts['entries']} distinct entries")
    for rule in ("non_ascii", "possessive", "apostrophe"):
        print(f"{rule}: {counts[rule]}")
    print(f"possessive stems listed nowhere else, kept: {counts['possessive_stem_kept']}")
    print(f"words: {counts['before_lowercase']}, lowercased and deduplicated: {len(words)}")
    print(f"wrote {args.out}: {len(words)} words, {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
