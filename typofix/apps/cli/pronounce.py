"""`typofix pronounce`: how words sound, in ARPAbet, from the CMU Pronouncing Dictionary or the letter-to-phone
model (`typofix.engine.pronounce`).

A word the dictionary lists gets its listed pronunciations, marked (CMUdict): they are what the phone channel
uses for it, and a dictionary's answer beats a model's guess. Any other word (a typo, a name, a new word) gets
the model's. --model-only asks the model for every word, to see what it makes of a listed one.
"""

from __future__ import annotations

import argparse

from typofix.apps.cli.options import json_line, positive_int
from typofix.files.exits import OK, UsageError

LISTED = "CMUdict"


def add(subcommands) -> None:
    parser = subcommands.add_parser(
        "pronounce", help="how words sound: their phones in ARPAbet (CMUdict, or the letter-to-phone model)",
        description="Print each word's pronunciation in ARPAbet (stress left out), one line per word: "
                    "`recieve<TAB>R IY S IY V`. A word the CMU Pronouncing Dictionary lists gets its listed "
                    "pronunciation, marked (CMUdict); any other word, the letter-to-phone model's likeliest. "
                    "Words are read in lower case; a word must hold a letter and nothing but letters, ' and -.")
    parser.add_argument("words", nargs="+", metavar="WORD", help="words to pronounce")
    parser.add_argument("--top-k", type=positive_int, default=1, metavar="K",
                        help="up to K pronunciations per word, each with its score (the model's length-normalised "
                             "log probability) or (CMUdict)")
    parser.add_argument("--json", action="store_true", help='JSON lines: {"input", "pronunciations": [{"word", '
                        '"phones", "score", "source"}]}, source "cmudict" (score null) or "model"')
    parser.add_argument("--model-only", action="store_true", help="ask the model for every word, listed ones too")
    parser.add_argument("--model", metavar="PATH", help="letter-to-phone model file (.onnxz, .pt or .ckpt; made by "
                        "typofix-train experiment=g2p) (default: the bundled one)")
    parser.set_defaults(handler=run)


def words_read(pronouncer, words: list[str]) -> list[str]:
    """The words as the model reads them (lower case), all checked before any is pronounced: UsageError, one
    line, for one with no letter or with a character the model cannot read."""
    from typofix.words.phones import PHONE_ALPHABET

    alphabet = "".join(c for c in pronouncer.vocab.alphabet if c not in PHONE_ALPHABET)
    read = []
    for word in words:
        letters = word.lower()
        if not any(c.isalpha() for c in letters):
            raise UsageError(f"cannot pronounce {word!r}: it has no letters")
        strange = "".join(sorted({c for c in letters if c not in alphabet}))
        if strange:
            raise UsageError(f"cannot pronounce {word!r}: the model reads only the characters {alphabet!r}, "
                             f"not {strange!r}")
        read.append(letters)
    return read


def pronounce(pronouncer, words: list[str], k: int, model_only: bool) -> list[tuple[str, list]]:
    """Per word: (its source, "cmudict" or "model", and up to `k` `Pronunciation`s, likeliest first)."""
    from typofix.engine.pronounce import Pronunciation
    from typofix.words.phones import Pronunciations

    listed = {} if model_only else Pronunciations.bundled().entries
    asked = [w for w in words if w not in listed]
    found = dict(zip(asked, pronouncer.pronounce_many(asked, k)))
    return [("cmudict", [Pronunciation(w, p) for p in listed[w][:k]]) if w in listed else ("model", found[w])
            for w in words]


def as_json(pronunciation, source: str) -> dict:
    """A pronunciation's JSON record: the engine's, with its source (a listed one has no score)."""
    record = {**pronunciation.as_json(), "source": source}
    if source == "cmudict":
        record["score"] = None
    return record


def run(args: argparse.Namespace) -> int:
    from typofix.engine.pronounce import Pronouncer

    pronouncer = Pronouncer.load(args.model)
    letters = words_read(pronouncer, args.words)
    for word, (source, found) in zip(args.words, pronounce(pronouncer, letters, args.top_k, args.model_only)):
        if args.json:
            print(json_line({"input": word, "pronunciations": [as_json(p, source) for p in found]}))
        elif not found:
            print(f"{word}\t(none)")  # the model wrote no phone at all (an untrained model, a lone "-")
        elif source == "cmudict":
            print(f"{word}\t" + "\t".join(f"{p.arpabet} ({LISTED})" for p in found))
        elif args.top_k == 1:
            print(f"{word}\t{found[0].arpabet}")
        else:
            print(f"{word}\t" + "\t".join(f"{p.arpabet} ({p.score:.3f})" for p in found))
    return OK
