"""Score a checker's output of running text: misspellings fixed, correct words broken.

The rule is the one ``shared/eval/prose/README.md`` states for its figures:
split ``clean.txt``, ``typos.txt`` and the checker's output of ``typos.txt`` on
white space; a token that differs between clean and typos is a misspelling,
*fixed* when the output token equals the clean one; every other token is a
correct word, *broken* when the output token differs from it. Tokens are
compared exactly, so a changed case or a lost comma counts.

The three texts must split into the same number of tokens: anything else would
compare every later token with the wrong one, so it is an error, never a score.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


class ProseError(ValueError):
    """The texts cannot be compared token for token."""


@dataclass
class ProseScore:
    """One checker's output of the prose text, scored, and how long the whole run took."""

    checker: str
    misspellings: int
    fixed: int
    correct_words: int
    broken: list[tuple[str, str]]  # (clean token, output token) for every broken correct word, in text order
    seconds: float  # wall time, start-up included
    cpu_seconds: float = 0.0
    missed: list[tuple[str, str]] = field(default_factory=list)  # (clean token, output token), misspellings not fixed

    @property
    def words(self) -> int:
        """Tokens of the text: what words/s counts."""
        return self.misspellings + self.correct_words

    @property
    def fixed_share(self) -> float:
        return self.fixed / self.misspellings if self.misspellings else 0.0

    @property
    def broken_share(self) -> float:
        return len(self.broken) / self.correct_words if self.correct_words else 0.0

    @property
    def words_per_second(self) -> float:
        return self.words / self.seconds if self.seconds > 0 else float("inf")

    def common_breaks(self, n: int) -> list[tuple[str, str]]:
        """The ``n`` most frequent broken pairs, ties in text order."""
        return [pair for pair, _ in Counter(self.broken).most_common(n)]

    def common_misses(self, n: int) -> list[tuple[str, str]]:
        """The ``n`` most frequent misspellings left wrong, as (clean, output) pairs, ties in text order."""
        return [pair for pair, _ in Counter(self.missed).most_common(n)]


def score_text(checker: str, clean: str, typos: str, output: str, seconds: float, cpu_seconds: float = 0.0
               ) -> ProseScore:
    """Compare the checker's ``output`` of ``typos`` with ``clean``, token by token."""
    clean_tokens, typo_tokens, output_tokens = clean.split(), typos.split(), output.split()
    if len(typo_tokens) != len(clean_tokens):
        raise ProseError(f"typos text has {len(typo_tokens):,} tokens, clean text {len(clean_tokens):,}")
    if len(output_tokens) != len(clean_tokens):
        raise ProseError(f"{checker}: output has {len(output_tokens):,} tokens for {len(clean_tokens):,} "
                         f"(first difference near token {_first_misalignment(typo_tokens, output_tokens):,})")
    misspellings = fixed = 0
    broken, missed = [], []
    for right, typo, got in zip(clean_tokens, typo_tokens, output_tokens):
        if typo != right:
            misspellings += 1
            fixed += got == right
            if got != right:
                missed.append((right, got))
        elif got != right:
            broken.append((right, got))
    return ProseScore(checker, misspellings, fixed, len(clean_tokens) - misspellings, broken, seconds, cpu_seconds,
                      missed)


def _first_misalignment(typo_tokens: list[str], output_tokens: list[str]) -> int:
    """Where a token was split or merged, roughly: the first index whose output token no longer matches the input
    token while the next ones do not match either (a single corrected word matches again right after)."""
    for i, (a, b) in enumerate(zip(typo_tokens, output_tokens)):
        if a != b and typo_tokens[i + 1:i + 3] != output_tokens[i + 1:i + 3]:
            return i
    return min(len(typo_tokens), len(output_tokens))
