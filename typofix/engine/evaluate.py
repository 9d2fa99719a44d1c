"""`typofix evaluate`: how well and how fast a Corrector fixes real misspellings from a `typo<TAB>correct` TSV:
top-1 and top-k accuracy, character error rate of the top-1, words/s, share left unchanged. Pure Python: with the
ONNX model, evaluating never imports torch."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

CHUNK = 1024  # typos per suggest_many call: big enough to batch well, small enough for a moving progress bar
WARM_UP = ["speling", "korrect", "teh"]  # one untimed call: a typo for each pass, so every lazy table is built


@dataclass
class Report:
    """The figures of one evaluation; `words` is the number of distinct typos decoded in `seconds`."""

    rows: int
    k: int
    top1: float
    topk: float
    cer: float
    unchanged: float
    words: int
    seconds: float
    settings: dict

    @property
    def words_per_s(self) -> float:
        return self.words / self.seconds if self.seconds > 0 else float("inf")

    def as_dict(self) -> dict:
        return {**asdict(self), "words_per_s": round(self.words_per_s, 1)}

    def table(self) -> str:
        settings = ", ".join(f"{k}={v}" for k, v in self.settings.items())
        rows = [("rows", self.rows), ("top-1", f"{100 * self.top1:.1f}%"), (f"top-{self.k}", f"{100 * self.topk:.1f}%"),
                ("CER", f"{self.cer:.4f}"), ("unchanged", f"{100 * self.unchanged:.1f}%"),
                ("speed", f"{self.words_per_s:.0f} words/s ({self.words} distinct typos in {self.seconds:.2f} s)"),
                ("decoding", settings)]
        width = max(len(label) for label, _ in rows) + 3  # one column for every value, however wide k is
        return "\n".join(f"{label:<{width}}{value}" for label, value in rows)


def evaluate(corrector, rows: list[tuple[str, str]], k: int = 5, progress=None, settings=None) -> Report:
    """Score `corrector` on `rows`; each distinct typo is decoded once (batched). `corrector` is a Corrector,
    or a `typofix.engine.jobs.CorrectorPool` (then give its `settings` for the report). A progress bar goes to the
    `progress` stream when it is a terminal and there is more than one chunk of typos."""
    typos = list(dict.fromkeys(typo for typo, _ in rows))
    bar = _Progress(len(typos), progress if len(typos) > CHUNK else None)
    ranked: dict[str, list[str]] = {}
    parts = [typos[i:i + CHUNK] for i in range(0, len(typos), CHUNK)]
    pooled = hasattr(corrector, "jobs")
    if not pooled:  # untimed, as the benchmark does: the tables a corrector builds on first use are loading
        corrector.suggest_many(WARM_UP, k)
    if pooled:  # smaller parts, so every worker has some
        parts = [typos[i:i + CHUNK // 4] for i in range(0, len(typos), CHUNK // 4)]
    start = time.perf_counter()
    # With the typo itself among the candidates where the confidence rule keeps it: the top-1 is what
    # `typofix correct` writes, and "unchanged" counts the rows it leaves.
    results = (corrector.suggest_many(parts, k, True) if pooled
               else (corrector.suggest_many(part, k, True) for part in parts))
    for part, suggestions in zip(parts, results):
        for typo, candidates in zip(part, suggestions):
            ranked[typo] = [s.word for s in candidates]
        bar.update(len(part))
    seconds = time.perf_counter() - start
    bar.close()
    best = [ranked[typo][0] if ranked[typo] else typo for typo, _ in rows]
    targets = [target for _, target in rows]
    return Report(
        rows=len(rows), k=k,
        top1=sum(b == t for b, t in zip(best, targets)) / len(rows),
        topk=sum(target in ranked[typo][:k] for typo, target in rows) / len(rows),
        cer=char_error_rate(best, targets),
        unchanged=sum(b == typo for b, (typo, _) in zip(best, rows)) / len(rows),
        words=len(typos), seconds=seconds,
        settings=settings.as_dict() if settings is not None else settings_of(corrector))


def char_error_rate(outputs: list[str], targets: list[str]) -> float:
    """Levenshtein edits from every output to its target, over the targets' characters (torchmetrics' CER)."""
    return sum(map(_levenshtein, outputs, targets)) / max(1, sum(map(len, targets)))


def _levenshtein(a: str, b: str) -> int:
    """Insertions, deletions and substitutions (no transpositions: CER counts a swap as two) from a to b."""
    row = list(range(len(b) + 1))  # row[j]: edits from the a-prefix so far to b[:j]
    for i, x in enumerate(a, start=1):
        diagonal, row[0] = row[0], i
        for j, y in enumerate(b, start=1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (x != y))
    return row[-1]


def settings_of(corrector) -> dict:
    """The decoding settings a report states next to its figures."""
    return corrector.settings.as_dict()


class _Progress:
    """A one-line progress bar redrawn in place on a terminal; silent on anything else (logs, pipes)."""

    def __init__(self, total: int, stream):
        self.total, self.done = total, 0
        self.stream = stream if stream is not None and stream.isatty() else None
        self.start = time.perf_counter()

    def update(self, n: int) -> None:
        self.done += n
        if self.stream is not None:
            share = self.done / max(1, self.total)
            rate = self.done / max(1e-9, time.perf_counter() - self.start)
            bar = "#" * int(30 * share)
            self.stream.write(f"\revaluating [{bar:<30}] {self.done}/{self.total} {100 * share:3.0f}% "
                              f"{rate:.0f} words/s")
            self.stream.flush()

    def close(self) -> None:
        if self.stream is not None:
            self.stream.write("\n")
            self.stream.flush()
