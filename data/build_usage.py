"""Build ``data/usage.tsv.gz``: how often today's English uses each word of ``words.tsv``, for the fitted
scorer's ``usage`` feature (``typofix.engine.ranking``).

``words.tsv``'s counts are Google Books counts: formal, and old (``pome``, ``propylene`` and ``splined`` are
not rare there). The Zipf frequencies of `wordfreq <https://github.com/rspeer/wordfreq>`_ (Robyn Speer;
code Apache-2.0, data CC BY-SA 4.0) pool subtitles, Wikipedia, news, web text, Reddit and Twitter as well as
books, which is closer to the words people misspell in the dev sets (birkbeck-dev's are school essays).
Zipf frequency is log10 of a word's uses per billion words; wordfreq's "large" English list goes down to
about 1 (once in a billion words).

Rows: ``word<TAB>zipf`` (two decimals), one for each word of ``words.tsv`` that wordfreq knows, in
``words.tsv``'s order; a word it lacks has no row (the scorer reads 0). gzip-compressed with a zero timestamp,
so the same inputs give the same bytes; written atomically by ``build_accepted.write_atomic``. Needs wordfreq
at build time only (typofix reads the file, never the library)::

    pip install wordfreq==3.1.1 && python data/build_usage.py
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

from build_accepted import write_atomic  # run as a script, data/ is on the path

HERE = Path(__file__).resolve().parent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=Path, default=HERE / "words.tsv")
    parser.add_argument("--out", type=Path, default=HERE / "usage.tsv.gz")
    args = parser.parse_args(argv)
    try:
        from wordfreq import zipf_frequency
    except ImportError:
        sys.exit("build_usage.py needs wordfreq at build time: pip install wordfreq==3.1.1")
    with open(args.words, encoding="utf-8") as lines:
        words = [line.split("\t", 1)[0] for line in lines]
    rows = [(word, zipf) for word in words if (zipf := zipf_frequency(word, "en", wordlist="large")) > 0]
    write_zipf_table(args.out, rows)
    print(f"wrote {args.out}: {len(rows)} of the words with a frequency", file=sys.stderr)
    return 0


def write_zipf_table(path: Path, rows: list[tuple[str, float]]) -> None:
    """`word<TAB>zipf` rows (two decimals), gzip-compressed with a zero timestamp (the same rows, the same
    bytes), written atomically: the format `typofix.words.usage` reads."""
    text = "".join(f"{word}\t{zipf:.2f}\n" for word, zipf in rows)
    write_atomic(path, gzip.compress(text.encode("ascii"), compresslevel=9, mtime=0))


if __name__ == "__main__":
    sys.exit(main())
