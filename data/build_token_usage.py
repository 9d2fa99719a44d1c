"""Build ``data/token-usage.tsv.gz``: how often people write each token, as written, in any register: the
misspelling detector's usage evidence (``typofix.engine.detector``).

``usage.tsv.gz`` covers only the word list's words, for ranking corrections. The detector asks of every
unknown token how common it is in real text: chat abbreviations (``idk``), commands and jargon (``npm``,
``gcc``), names and loanwords are frequent in wordfreq's pooled corpora (subtitles, Wikipedia, news, web text,
Reddit, Twitter, books), while most misspellings are rare there. wordfreq is by Robyn Speer (code Apache-2.0,
data CC BY-SA 4.0).

Rows: ``token<TAB>zipf`` (two decimals) for every token of wordfreq's "large" English list made of ASCII
letters with at most one inner apostrophe, most frequent first; gzip with a zero timestamp, so the same inputs
give the same bytes; written atomically. Needs wordfreq at build time only::

    pip install wordfreq==3.1.1 && python data/build_token_usage.py
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from build_usage import write_zipf_table  # run as a script, data/ is on the path

HERE = Path(__file__).resolve().parent
TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "token-usage.tsv.gz")
    args = parser.parse_args(argv)
    try:
        from wordfreq import get_frequency_dict, zipf_frequency
    except ImportError:
        sys.exit("build_token_usage.py needs wordfreq at build time: pip install wordfreq==3.1.1")
    rows = [(token, zipf_frequency(token, "en", wordlist="large"))
            for token in get_frequency_dict("en", wordlist="large") if TOKEN.fullmatch(token)]  # most frequent first
    write_zipf_table(args.out, rows)
    print(f"wrote {args.out}: {len(rows)} tokens", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
