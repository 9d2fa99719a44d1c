"""Where the search's CPU time goes: each step of `Passes.judged` timed with the process's CPU clock, inclusive
and exclusive of the timed steps inside it, start-up and a warm-up excluded.

Usage (from the repository root)::

    OMP_NUM_THREADS=1 taskset -c 0 python -m bench.search_split [--fast] [--limit 1500] [--words FILE]

The words: birkbeck-dev's distinct typos after the first 300 (which warm the run up), or FILE's (a word a
line, e.g. the words `typofix check` sends to the engine). cProfile is no guide here: its cost per Python call
tripled the share of the small steps around the model (the letter-to-phone hypotheses' phones, 0.34 s under it
for 0.02 s measured), so each step is wrapped with `time.process_time` instead (a few wrappers, a few hundred
calls). A step called inside itself is timed once, at the outside. Figures: docs/engine.md (the sixth round).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable

DEV = "data/eval/birkbeck-dev.tsv"
WARM_UP = 300


class Clock:
    """CPU seconds per step, inclusive and exclusive of the timed steps it calls."""

    def __init__(self):
        self.inclusive, self.exclusive = Counter(), Counter()
        self._open: list[list] = []  # [label, seconds spent in timed steps inside it]

    def wrap(self, function: Callable, label: str) -> Callable:
        def timed(*args, **kwargs):
            if any(frame[0] == label for frame in self._open):
                return function(*args, **kwargs)
            self._open.append([label, 0.0])
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent = time.process_time() - start
                _, inside = self._open.pop()
                self.inclusive[label] += spent
                self.exclusive[label] += spent - inside
                if self._open:
                    self._open[-1][1] += spent
        return timed

    def clear(self) -> None:
        self.inclusive.clear()
        self.exclusive.clear()


def instrument(clock: Clock) -> None:
    """Wrap the search's steps (methods on their classes, functions where their callers import them)."""
    from typofix.engine import candidates, onnx_stepper, passes, pronounce, ranking, scoring, search, sounds
    from typofix.words import neighbours, phoneindex, phonetic

    methods = [(onnx_stepper.OnnxStepper, "step"), (onnx_stepper.OnnxStepper, "encode"),
               (pronounce.Pronouncer, "pronounce_many"), (candidates.Neighbours, "one_edit"),
               (candidates.Neighbours, "shortlist_many"), (candidates.Neighbours, "said_alike"),
               (candidates.Neighbours, "wide"), (phonetic.SoundIndex, "near_many"),
               (neighbours.DeletionIndex, "near_rows_many"), (sounds.Sounds, "distances"),
               (phoneindex.PhoneIndex, "near_many"), (phoneindex.PhoneIndex, "said_as_many"),
               (ranking.Ranker, "rank_many"), (ranking.Ranker, "best_without_model"),
               (ranking.Ranker, "phone_distances"), (ranking.FittedScorer, "_features")]
    for owner, name in methods:
        setattr(owner, name, clock.wrap(getattr(owner, name), f"{owner.__name__}.{name}"))
    passes.trie_hypotheses = clock.wrap(scoring.trie_hypotheses, "trie_hypotheses")
    beam = search.beam_search
    passes.beam_search = clock.wrap(beam, "beam_search (greedy)")
    pronounce.beam_search = clock.wrap(beam, "beam_search (letter-to-phone)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fast", action="store_true", help="the fast preset")
    parser.add_argument("--limit", type=int, default=1500, help="words timed (default 1500)")
    parser.add_argument("--words", help="a file of words, one a line, instead of birkbeck-dev's typos")
    args = parser.parse_args(argv)

    from typofix import Corrector

    rows = [line.split("\t")[0] for line in open(DEV, encoding="utf-8") if line.strip()]
    typos = list(dict.fromkeys(w.lower() for w in rows))
    if args.words:
        words = [w.strip() for w in open(args.words, encoding="utf-8") if w.strip()][:args.limit]
    else:
        words = typos[WARM_UP:WARM_UP + args.limit]
    clock = Clock()
    instrument(clock)
    corrector = Corrector.load(fast=args.fast)
    corrector.passes.judged(typos[:WARM_UP], 5)
    clock.clear()
    start = time.process_time()
    corrector.passes.judged(words, 5)
    total = time.process_time() - start
    print(f"{len(words)} words, {total:.2f} CPU s ({1000 * total / len(words):.2f} ms a word)")
    print(f"{'step':40s} {'inclusive':>14s} {'exclusive':>14s}")
    for label, spent in clock.inclusive.most_common():
        own = clock.exclusive[label]
        print(f"{label:40s} {spent:7.2f} {100 * spent / total:5.1f}% {own:7.2f} {100 * own / total:5.1f}%")
    print(f"{'(outside the timed steps)':40s} {'':14s} {total - sum(clock.exclusive.values()):7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
