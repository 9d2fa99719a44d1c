"""Build ``data/words.tsv``, typofix's English word list (what a correction may become), from SymSpell's
frequency dictionary and GNU Aspell's English dictionaries.

Sources:

* ``frequency_dictionary_en_82_765.txt`` as bundled with the ``symspellpy`` package (MIT). Its words are the
  intersection of SCOWL and the Google Books Ngram data (CC BY 3.0); each line is ``word<SPACE>count``.
  These give the counts.
* The expanded master lists of Aspell's ``en_US``, ``en_GB-ise`` and ``en_GB-ize`` (Debian ``aspell-en``,
  SCOWL size 60 and its variants): the same lists ``build_accepted.py`` reads, here with their possessives
  (``pilot's``) and contractions (``didn't``) kept. They make every word Aspell accepts, American or British,
  a possible correction too.

See ``data/README.md`` for attribution and the numbers each step keeps or drops.

Output: ``word<TAB>count`` per line, lowercase, no header, sorted by count descending then word ascending.

Step 1, the SymSpell words. Filters, applied in this order:

1. ``non_az``: keep only words made of the letters a-z. The source has no hyphenated words; its only non-a-z
   entries are 65 apostrophe forms (contractions such as ``don't`` plus ``o'clock``), which symspellpy appends
   at the end of the file with a flat placeholder count of 300,000 (not a corpus count). They are dropped
   here; those Aspell lists come back in step 2 with the floor count.
2. ``single_letter``: drop one-letter words other than ``a`` and ``i``.
3. ``roman_numeral``: drop well-formed Roman numerals of two or more letters (``ii``, ``xiv``, ``xxx``,
   ``clix`` ...), junk for a spelling corrector, except those that are also an ordinary word or common
   abbreviation (``ROMAN_KEEP``: ``mix``, ``cd``, ``div``).
4. ``below_min_count``: drop words whose count is below ``--min-count`` (default 20,000), unless Aspell lists
   them (then they stay, with their count).

Step 2, the Aspell words. An entry is added when it is written in lower case (letters, an inner apostrophe
allowed: ``colour``, ``pilot's``, ``mustn't``) or is a contraction of the pronoun I (``I'd``, ``I'll``,
``I'm``, ``I've``, lowercased); capitalised entries (names: ``Sam``, ``NASA``) are not, since the ones with a
Google Books count are already in step 1. Filters 2 and 3 hold here too. The source has no count for an
added word (every Aspell word it counts is already kept), so each gets ``--floor`` (default 1,000, a
thirteenth of the smallest count in the source, 12,714: an uncounted word never outranks a counted one).

Everything else (abbreviations such as ``ltd``, interjections such as ``hmm``, lowercased proper nouns,
British spellings) is kept as it is in the sources.

The output is written atomically: a temporary file in the output's directory, then ``os.replace``.
Standard library only (plus Debian's ``aspell`` and ``aspell-en`` when no ``--aspell-lists`` are given).

``--coverage`` builds nothing: it prints, for each dev set (``data/eval/*.tsv``), how many of its rows and
distinct targets the list (``--out``) has, and the targets it lacks.

Usage::

    python data/build_words.py --out data/words.tsv
    python data/build_words.py --source PATH --aspell-lists US.txt GB-ise.txt GB-ize.txt --out data/words.tsv
    python data/build_words.py --coverage
"""

from __future__ import annotations

import argparse
import importlib.metadata
import subprocess
import importlib.util
import os
import re
import sys
import tempfile
from collections import Counter, OrderedDict
from pathlib import Path

SOURCE_NAME = "frequency_dictionary_en_82_765.txt"
DEFAULT_MIN_COUNT = 20_000
DEFAULT_FLOOR = 1_000
ASPELL_DICTIONARIES = ("en_US", "en_GB-ise", "en_GB-ize")
EVAL_DIR = Path(__file__).resolve().parent / "eval"
SINGLE_LETTERS_KEPT = frozenset({"a", "i"})
ROMAN_KEEP = frozenset({"mix", "cd", "div"})

_AZ = re.compile(r"[a-z]+")
_ASPELL_KEPT = re.compile(r"[a-z]+(?:'[a-z]+)?|I'(?:d|ll|m|ve)")  # lowercase words, possessives, contractions
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
    counts: dict[str, int], min_count: int, listed: frozenset[str] = frozenset()
) -> tuple[dict[str, int], "OrderedDict[str, list[str]]"]:
    """Return the kept words and, per filter, the words it dropped; a word in `listed` (Aspell's) is not
    dropped for its count."""
    filters = [
        ("non_az", lambda w, c: _AZ.fullmatch(w) is None),
        ("single_letter", lambda w, c: len(w) == 1 and w not in SINGLE_LETTERS_KEPT),
        ("roman_numeral", lambda w, c: is_roman_numeral(w) and w not in ROMAN_KEEP),
        ("below_min_count", lambda w, c: c < min_count and w not in listed),
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


def aspell_words(lists: list[str]) -> frozenset[str]:
    """The entries of Aspell's expanded lists that step 2 adds, lowercased (see the module docstring)."""
    return frozenset(entry.lower() for text in lists for entry in text.split() if _ASPELL_KEPT.fullmatch(entry))


def aspell_list(dictionary: str) -> str:
    """Every word of one Aspell dictionary, its affixes expanded (needs Debian's aspell and aspell-en)."""
    dump = subprocess.run(["aspell", "-d", dictionary, "dump", "master"], capture_output=True, check=True).stdout
    return subprocess.run(["aspell", "-l", "en", "expand"], input=dump, capture_output=True,
                          check=True).stdout.decode("utf-8", "replace")


def add_listed(kept: dict[str, int], listed: frozenset[str], floor: int) -> Counter:
    """Step 2: add the `listed` words `kept` lacks with the count `floor`, except single letters and Roman
    numerals (filters 2 and 3); returns how many went each way."""
    added: Counter = Counter()
    for word in sorted(listed - kept.keys()):
        if (len(word) == 1 and word not in SINGLE_LETTERS_KEPT) or (is_roman_numeral(word) and word not in ROMAN_KEEP):
            added["dropped_letter_or_numeral"] += 1
            continue
        kept[word] = floor
        added["possessive" if word.endswith("'s") else "apostrophe" if "'" in word else "plain"] += 1
    return added


def coverage(words: set[str], eval_dir: Path = EVAL_DIR) -> list[str]:
    """Lines saying, per dev set, how many rows and distinct targets `words` has, and which targets it lacks."""
    lines = []
    for path in sorted(eval_dir.glob("*.tsv")):
        rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        targets = [row[1] for row in rows]
        distinct = set(targets)
        missing = Counter(t for t in targets if t not in words)
        covered = len(targets) - sum(missing.values())
        lines.append(f"{path.name}: rows {covered}/{len(targets)} ({100 * covered / len(targets):.2f}%), "
                     f"distinct targets {len(distinct) - len(missing)}/{len(distinct)} "
                     f"({100 * (len(distinct) - len(missing)) / len(distinct):.2f}%)")
        if missing:
            lines.append("  missing (rows): " + " ".join(f"{t} ({n})" for t, n in sorted(
                missing.items(), key=lambda tn: (-tn[1], tn[0]))))
    return lines


def read_list(path: Path) -> set[str]:
    return {line.split("\t", 1)[0] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


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
    parser.add_argument("--aspell-lists", type=Path, nargs="+", metavar="LIST", help="Aspell's expanded "
                        "lists (default: ask aspell for " + ", ".join(ASPELL_DICTIONARIES) + ")")
    parser.add_argument("--out", type=Path, default=Path("data/words.tsv"))
    parser.add_argument(
        "--min-count",
        type=int,
        default=DEFAULT_MIN_COUNT,
        help=f"drop SymSpell words Aspell does not list with a lower count (default {DEFAULT_MIN_COUNT})",
    )
    parser.add_argument("--floor", type=int, default=DEFAULT_FLOOR,
                        help=f"count of an Aspell word the source has no count for (default {DEFAULT_FLOOR})")
    parser.add_argument("--coverage", action="store_true", help="build nothing: print the dev sets' coverage "
                        "by the list at --out")
    args = parser.parse_args(argv)

    if args.coverage:
        if not args.out.is_file():
            parser.error(f"word list not found: {args.out}")
        words = read_list(args.out)
        print(f"{args.out}: {len(words)} words")
        print("\n".join(coverage(words)))
        return 0

    source = args.source or default_source()
    if source is None:
        parser.error(f"symspellpy is not installed; pass --source PATH/TO/{SOURCE_NAME}")
    if args.aspell_lists:
        missing = [p for p in args.aspell_lists if not p.is_file()]
        if missing:
            parser.error(f"word list not found: {missing[0]}")
        lists = [p.read_text(encoding="utf-8") for p in args.aspell_lists]
        names = [str(p) for p in args.aspell_lists]
    else:
        try:
            lists = [aspell_list(d) for d in ASPELL_DICTIONARIES]
        except (OSError, subprocess.CalledProcessError) as err:
            parser.error(f"cannot run aspell ({err}); Debian: apt-get install aspell aspell-en")
        names = [f"aspell -d {d}" for d in ASPELL_DICTIONARIES]

    counts = read_source(source)
    listed = aspell_words(lists)
    kept, dropped = apply_filters(counts, args.min_count, listed)
    from_source = len(kept)
    added = add_listed(kept, listed, args.floor)
    rows = sorted(kept.items(), key=lambda wc: (-wc[1], wc[0]))
    write_atomic(args.out, rows)

    print(f"source: {source} (symspellpy {symspellpy_version()}): {len(counts)} words")
    for name, words in dropped.items():
        print(f"dropped {name}: {len(words)}")
    print(f"kept from the source: {from_source}")
    print(f"aspell: {', '.join(names)}: {len(listed)} lowercase words, possessives and contractions")
    for kind in ("dropped_letter_or_numeral", "plain", "possessive", "apostrophe"):
        print(f"added {kind}: {added[kind]}")
    print(f"wrote {args.out}: {len(rows)} words (min count {args.min_count}, floor {args.floor})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
