"""Build ``data/words.tsv``, typofix's English word list, from SymSpell's
frequency dictionary.

Source: ``frequency_dictionary_en_82_765.txt`` as bundled with the
``symspellpy`` package (MIT). Its words are the intersection of SCOWL and the
Google Books Ngram data (CC BY 3.0); each line is ``word<SPACE>count``.
See ``data/README.md`` for attribution and the numbers each filter drops.

Output: ``word<TAB>count`` per line, lowercase, no header, sorted by count
descending then word ascending. Filters, applied in this order:

1. ``non_az``: keep only words made of the letters a-z. The source has no
   hyphenated words; its only non-a-z entries are 65 apostrophe forms
   (contractions such as ``don't`` plus ``o'clock``), which symspellpy appends
   at the end of the file with a flat placeholder count of 300,000. typofix
   works on a-z only, so they are dropped.
2. ``single_letter``: drop one-letter words other than ``a`` and ``i``.
3. ``roman_numeral``: drop well-formed Roman numerals of two or more letters
   (``ii``, ``xiv``, ``xxx``, ``clix`` ...), junk for a spelling corrector,
   except those that are also an ordinary word or common abbreviation
   (``ROMAN_KEEP``: ``mix``, ``cd``, ``div``).
4. ``below_min_count``: drop words whose count is below ``--min-count``
   (default 20,000, which keeps about 77,000 words; every dev-set target that
   the full a-z list covers is still covered).

Everything else (abbreviations such as ``ltd``, interjections such as ``hmm``,
lowercased proper nouns, British spellings) is kept as it is in the source.

The output is written atomically: a temporary file in the output's directory,
then ``os.replace``. Standard library only.

Usage::

    python data/build_words.py --out data/words.tsv
    python data/build_words.py --source PATH --out data/words.tsv
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import re
import sys
import tempfile
from collections import OrderedDict
from pathlib import Path

SOURCE_NAME = "frequency_dictionary_en_82_765.txt"
DEFAULT_MIN_COUNT = 20_000
SINGLE_LETTERS_KEPT = frozenset({"a", "i"})
ROMAN_KEEP = frozenset({"mix", "cd", "div"})

_AZ = re.compile(r"[a-z]+")
_ROMAN = re.compile(r"m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})")


def default_source() -> Path | None:
    """Locate the dictionary inside the installed symspellpy package.

    Uses ``find_spec`` so symspellpy itself is not imported (it needs
    third-party modules; this script does not).
    """
    spec = importlib.util.find_spec("symspellpy")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / SOURCE_NAME
        if path.is_file():
            return path
    return None


def symspellpy_version() -> str:
    try:
        return importlib.metadata.version("symspellpy")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def is_roman_numeral(word: str) -> bool:
    return len(word) >= 2 and _ROMAN.fullmatch(word) is not None


def read_source(path: Path) -> dict[str, int]:
    """Parse ``word count`` lines; lowercase; on duplicates keep the max count."""
    counts: dict[str, int] = {}
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 2:
                raise ValueError(f"{path}:{lineno}: expected 'word count', got {line!r}")
            word, count = parts[0].lower(), int(parts[1])
            counts[word] = max(count, counts.get(word, 0))
    return counts


def apply_filters(
    counts: dict[str, int], min_count: int
) -> tuple[dict[str, int], "OrderedDict[str, list[str]]"]:
    """Return the kept words and, per filter, the words it dropped."""
    filters = [
        ("non_az", lambda w, c: _AZ.fullmatch(w) is None),
        ("single_letter", lambda w, c: len(w) == 1 and w not in SINGLE_LETTERS_KEPT),
        ("roman_numeral", lambda w, c: is_roman_numeral(w) and w not in ROMAN_KEEP),
        ("below_min_count", lambda w, c: c < min_count),
    ]
    dropped: OrderedDict[str, list[str]] = OrderedDict((name, []) for name, _ in filters)
    kept: dict[str, int] = {}
    for word, count in counts.items():
        for name, drop in filters:
            if drop(word, count):
                dropped[name].append(word)
                break
        else:
            kept[word] = count
    return kept, dropped


def write_atomic(path: Path, rows: list[tuple[str, int]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            for word, count in rows:
                f.write(f"{word}\t{count}\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--source",
        type=Path,
        default=None,
        help=f"SymSpell frequency dictionary (default: {SOURCE_NAME} from the "
        "installed symspellpy package)",
    )
    parser.add_argument("--out", type=Path, default=Path("data/words.tsv"))
    parser.add_argument(
        "--min-count",
        type=int,
        default=DEFAULT_MIN_COUNT,
        help=f"drop words with a lower count (default {DEFAULT_MIN_COUNT})",
    )
    args = parser.parse_args(argv)

    source = args.source or default_source()
    if source is None:
        parser.error(f"symspellpy is not installed; pass --source PATH/TO/{SOURCE_NAME}")

    counts = read_source(source)
    kept, dropped = apply_filters(counts, args.min_count)
    rows = sorted(kept.items(), key=lambda wc: (-wc[1], wc[0]))
    write_atomic(args.out, rows)

    print(f"source: {source} (symspellpy {symspellpy_version()}): {len(counts)} words")
    for name, words in dropped.items():
        print(f"dropped {name}: {len(words)}")
    print(f"wrote {args.out}: {len(rows)} words (min count {args.min_count})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
