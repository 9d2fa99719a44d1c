"""Builds lexicon-phones.txt.gz: how the letter-to-phone model says the listed words CMUdict lacks.

    python data/build_lexicon_phones.py

Needs typofix installed (it runs the bundled model, typofix/models/g2p-int8.onnxz, through
`typofix.engine.pronounce`, greedy). The phone channel (`typofix.engine.sounds`) indexes every word of
words.tsv by its pronunciation: CMUdict's where it lists the word (58,104 of 125,116), this file's for the
rest, so that no run waits for the model to pronounce a candidate. Rebuild it whenever the bundled
letter-to-phone model changes. Output: `word<TAB>PH PH ...`, sorted by word.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

OUT = Path(__file__).with_name("lexicon-phones.txt.gz")


def main() -> int:
    from typofix.engine.pronounce import Pronouncer
    from typofix.words.lexicon import Lexicon
    from typofix.words.phones import Pronunciations, to_arpabet

    cmudict = Pronunciations.bundled()
    missing = sorted(w for w in Lexicon.from_tsv(None).counts if w not in cmudict)
    said = Pronouncer.load().pronounce_many(missing, 1, beam=1)
    lines = "".join(f"{word}\t{to_arpabet(found[0].phones)}\n" for word, found in zip(missing, said) if found)
    with gzip.GzipFile(OUT, "wb", mtime=0) as out:
        out.write(lines.encode("utf-8"))
    print(f"{OUT.name}: {lines.count(chr(10)):,} words, {OUT.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
