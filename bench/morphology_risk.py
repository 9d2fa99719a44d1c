"""How often the acceptance of derived words (`typofix.words.morphology`) would let a real misspelling pass:
the misspellings of the dev lists and the dev prose that the dictionary does not accept but morphology does.

    python -m bench.morphology_risk [--prose ../shared/eval/prose]

Each is a typo the corrector would now leave alone; the issue asks for "near zero". Prints the counts and the
words, and the issue's derived words with whether they pass.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from typofix.files.misspellings import read_misspellings
from typofix.words.lexicon import AcceptedWords, Lexicon

DEV_LISTS = (Path("data/eval/norvig-testset1.tsv"), Path("data/eval/birkbeck-dev.tsv"))
ISSUE_WORDS = ("unshareable", "reupload", "nonblocking", "overcommitted", "reconfigurable", "unfollowed",
               "rewatchable")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prose", type=Path, default=Path("../shared/eval/prose"))
    args = parser.parse_args(argv)
    plain, derived = AcceptedWords.load(), AcceptedWords.load()
    derived.derive_with(Lexicon.from_tsv().counts_of)
    for path in DEV_LISTS:
        rows = read_misspellings(path)
        passed = [(typo, right) for typo, right in rows if typo != right and typo not in plain and typo in derived]
        print(f"{path.name}: {len(passed)} of {len(rows):,} misspellings accepted as derived words: {passed}")
    if (args.prose / "typos.txt").is_file():
        typos = (args.prose / "typos.txt").read_text(encoding="utf-8").split()
        clean = (args.prose / "clean.txt").read_text(encoding="utf-8").split()
        words = [(t, c) for t, c in zip(typos, clean) if t != c and re.fullmatch("[a-z]+", t)]
        passed = [(t, c) for t, c in words if t not in plain and t in derived]
        print(f"{args.prose}: {len(passed)} of {len(words):,} misspelled words accepted as derived words: {passed}")
    print("the issue's derived words:", {word: word in derived for word in ISSUE_WORDS})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
