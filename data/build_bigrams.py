"""Build ``data/bigrams.bin.gz``, the word-bigram counts typofix ranks a word's candidates in context with.

Source: ``frequency_bigramdictionary_en_243_342.txt`` as bundled with the ``symspellpy`` package (MIT): the
most frequent word pairs of the Google Books Ngram data (CC BY 3.0), ``word1 word2 count`` per line, the same
provenance as ``words.tsv``. See ``data/README.md`` for attribution, filters and size.

Filters: a pair is kept when both its words are in ``words.tsv`` (lowercase a-z words typofix knows); a
repeated pair keeps its largest count. Counts are quantised to ``round(10 * ln(count))`` (one byte, steps of
about 10%). The words' own counts are not stored: the corrector has them (``words.tsv``).

Format (gzip, level 9, zero timestamp, no name: byte-reproducible), one header line, the words, two
little-endian arrays::

    typofix-bigrams 1 V N\\n   V words (those in some pair), N pairs
    V lines: the words, sorted
    uint32[N]  deltas of the sorted pair keys, key = left_id * V + right_id (V * V < 2**32)
    uint8[N]   quantised count of each pair

Usage::

    python data/build_bigrams.py --out data/bigrams.bin.gz
    python data/build_bigrams.py --source PATH --words data/words.tsv --out data/bigrams.bin.gz

Standard library only; the output is written atomically (temp file beside it, then ``os.replace``).
"""

from __future__ import annotations

import argparse
import array
import gzip
import importlib.util
import math
import os
import sys
import tempfile
from pathlib import Path

SOURCE_NAME = "frequency_bigramdictionary_en_243_342.txt"
MAGIC = "typofix-bigrams"
LOG_SCALE = 10


def default_source() -> Path | None:
    """The file inside the installed symspellpy package (found without importing it)."""
    spec = importlib.util.find_spec("symspellpy")
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / SOURCE_NAME
        if path.is_file():
            return path
    return None


def quantise(count: int) -> int:
    return min(255, max(0, round(LOG_SCALE * math.log(count))))


def read_words(path: Path) -> dict[str, int]:
    counts = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        word, count = line.split("\t")
        counts[word] = int(count)
    return counts


def read_pairs(path: Path, known: dict[str, int]) -> tuple[dict[tuple[str, str], int], int]:
    """The pairs of known words (largest count of a repeated pair) and how many source lines were read."""
    pairs: dict[tuple[str, str], int] = {}
    lines = 0
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 3:
                raise ValueError(f"{path}:{lineno}: expected 'word word count', got {line!r}")
            lines += 1
            left, right, count = parts[0].lower(), parts[1].lower(), int(parts[2])
            if left in known and right in known:
                pairs[left, right] = max(count, pairs.get((left, right), 0))
    return pairs, lines


def encode(pairs: dict[tuple[str, str], int]) -> bytes:
    words = sorted({w for pair in pairs for w in pair})
    ids = {w: i for i, w in enumerate(words)}
    size = len(words)
    if size * size >= 2 ** 32:
        raise ValueError(f"{size} words: pair keys would not fit 32 bits")
    keyed = sorted((ids[a] * size + ids[b], quantise(c)) for (a, b), c in pairs.items())
    deltas = array.array("I", [keyed[0][0]] + [b[0] - a[0] for a, b in zip(keyed, keyed[1:])])
    if sys.byteorder != "little":
        deltas.byteswap()
    header = f"{MAGIC} 1 {size} {len(keyed)}\n" + "".join(w + "\n" for w in words)
    return (header.encode("ascii") + deltas.tobytes()
            + bytes(q for _, q in keyed))


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(gzip.compress(data, compresslevel=9, mtime=0))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help=f"the bigram counts (default: {SOURCE_NAME} from the "
                        "installed symspellpy package)")
    parser.add_argument("--words", type=Path, default=Path(__file__).with_name("words.tsv"))
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("bigrams.bin.gz"))
    args = parser.parse_args(argv)
    source = args.source or default_source()
    if source is None:
        parser.error(f"symspellpy is not installed; pass --source PATH/TO/{SOURCE_NAME}")
    counts = read_words(args.words)
    pairs, lines = read_pairs(source, counts)
    write_atomic(args.out, encode(pairs))
    print(f"source: {source}: {lines} pairs; kept {len(pairs)} (both words in {args.words.name}); "
          f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
