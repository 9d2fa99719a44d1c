"""Phone and word error rates of a letter-to-phone model on CMUdict words it never saw.

    python -m bench.g2p_error [--model PATH] [--limit N] [--beam N]

The held-out words are the g2p recipe's test split (`--split val`: its validation split, for choosing) (`conf/data/cmudict.yaml`: 5% of the words, chosen by a hash
of the word, so the same words whatever the model), pronounced through the engine (`typofix.engine.pronounce`,
the bundled int8 model by default) with a beam of `--beam`. Two references, both reported:

* first: the word's first CMUdict pronunciation (what training validates against);
* any: the nearest of its listed pronunciations (a word said two ways is right either way), as G2P papers on
  CMUdict commonly score.

PER is phone edits over reference phones, summed over words; WER the share of words not exactly right.
Stress is not predicted (the dictionary is read without it), which makes the task a little easier than the
anchors' with stress-free phone sets of 39 (Rao et al. 2015; Yao & Zweig 2015 use the same 39).
"""

from __future__ import annotations

import argparse
import sys

from rapidfuzz.distance import Levenshtein


def main(argv=None) -> int:
    from typofix.engine.pronounce import Pronouncer
    from typofix.training.data import split_of
    from typofix.training.pronunciation_data import read_pronunciations

    parser = argparse.ArgumentParser(prog="python -m bench.g2p_error", description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="letter-to-phone model file (default: the bundled one)")
    parser.add_argument("--limit", type=int, default=0, help="at most N held-out words (0: all)")
    parser.add_argument("--beam", type=int, default=4, help="beam width (1: greedy)")
    parser.add_argument("--split", choices=("test", "val"), default="test",
                        help="the held-out words to score: test (the reported figures) or val (for choosing)")
    args = parser.parse_args(argv)

    found = read_pronunciations(None)
    pronouncer = Pronouncer.load(args.model)
    words = [w for w in sorted(found) if split_of(w, 0.02, 0.05) == args.split and len(w) <= 24
             and pronouncer.readable(w) == w]
    words = words[:args.limit] if args.limit else words
    best = pronouncer.pronounce_many(words, k=1, beam=args.beam)
    totals = {"first": [0, 0, 0], "any": [0, 0, 0]}  # phone edits, reference phones, wrong words
    for word, guess in zip(words, best):
        said = guess[0].phones if guess else ""
        references = found[word]
        for name, reference in (("first", references[0]),
                                ("any", min(references, key=lambda r: (Levenshtein.distance(said, r), len(r))))):
            edits = Levenshtein.distance(said, reference)
            totals[name][0] += edits
            totals[name][1] += len(reference)
            totals[name][2] += edits > 0
    model = args.model or "the bundled g2p-int8.onnxz"
    print(f"{len(words):,} held-out CMUdict words ({args.split}), {model}, beam {args.beam}:")
    for name, (edits, phones, wrong) in totals.items():
        print(f"  reference {name:5}: PER {100 * edits / phones:.1f}%  WER {100 * wrong / len(words):.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
