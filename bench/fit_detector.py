"""Fit the misspelling detector (`typofix.engine.detector`) on dev data: write data/detector.json (or
data/detector-fast.json).

    python -m bench.fit_detector [--preset default|fast] [--out PATH] [--eval ../shared/eval]

Every rewrite the engine proposes (`Corrector.occurrences_many`, the detector off) on these sources is one
example, labelled by where it stands:

* positives and negatives in context, by aligning the typos text with its clean text token by token: the
  dev prose and informal text, and the wild dev set's tech, chat and foreign text (a proposal on a token that
  differs from the clean text is on a misspelling; on any other token it would break a correct word);
* negatives: the comments and docstrings of this project's own code and the Python standard library (a token
  the dev misspelling lists hold as a typo is left out: the code's examples quote them);
* positives alone: each dev list's misspellings as a word by itself (what `typofix correct WORD` sees);
* positives in other genres: the dev lists' misspellings put in place of their words in the wild set's clean
  tech and chat text, this project's docs and the standard library's prose (`inserted`).

Each source is read as `typofix correct --file` reads a file (one document, in its chunks). The detector is a
small ensemble of gradient-boosted trees (scikit-learn's GradientBoostingClassifier,
at fit time only: `pip install scikit-learn`, or the bench extra), exported as flat arrays the engine walks in
numpy; misspellings and correct words weigh the same, and within each every source the same, so the large
sources do not drown the small. Before writing, it reports leave-one-source-out
figures (each source scored by a fit on the others: the honest view of how the detector generalises) and, for
each wild genre, misspellings fixed and correct tokens broken per 10,000 at a range of thresholds, as the
engine would apply them. Holdout data is never read.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import math
import pickle
import re
import sys
import sysconfig
import tokenize
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from typofix import Corrector, DecodingSettings
from typofix.engine.detector import FEATURES, Detector, Occurrence, evidence_matrix, not_english
from typofix.files.atomic import atomic_path
from typofix.files.misspellings import read_misspellings
from typofix.words.text import match_case, read_chunks

ROOT = Path(__file__).resolve().parent.parent
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95)
# Small trees, many examples a leaf (the chat source has 169 proposals), slow learning.
TREES, DEPTH, MIN_LEAF, RATE = 400, 5, 20, 0.05
GENRES = {"docs": "project", "project-code": "project", "prose": "debian-docs", "informal": "debian-docs"}
INSERT_EVERY = 15  # of the words a dev list misspells, every this many is misspelt in `inserted` text
WORD = re.compile(r"(?<![A-Za-z'])[A-Za-z]+(?![A-Za-z'])")  # a plain word, not part of a contraction
STDLIB_CHARS = 400_000  # enough of the standard library's prose for its jargon, in about a minute


@dataclass
class Source:
    """One document's examples: the proposals, their labels, and for aligned text whether each is the fix."""

    name: str
    occurrences: list[Occurrence]
    labels: np.ndarray  # (N,) 1 on a misspelling
    fixes: np.ndarray  # (N,) 1 where the proposal equals the clean token
    correct_tokens: int = 0  # for per-10,000 rates: the correct tokens of aligned text
    misspellings: int = 0

    @cached_property
    def features(self) -> np.ndarray:
        """(N, F) the detector's evidence of each proposal, as the engine computes it."""
        return evidence_matrix(self.occurrences)


def chunks_of(text: str) -> list[str]:
    """The text as `typofix correct --file` hands it to the engine, chunk by chunk."""
    return [chunk for chunk, literal in read_chunks(io.StringIO(text).readline) if not literal]


def proposals(corrector: Corrector, text: str) -> list[tuple[int, object]]:
    """(offset in `text`, occurrence) of each rewrite the engine proposes, the text read as one document."""
    texts = chunks_of(text)
    found, offset = [], 0
    for chunk, occurrences in zip(texts, corrector.occurrences_many(texts)):  # one call: one document
        found.extend((offset + o.start, o) for o in occurrences)
        offset += len(chunk)
    return found


def aligned(corrector: Corrector, name: str, typos: str, clean: str) -> Source:
    """Examples of a typos text labelled by its clean twin, whitespace token by token."""
    typo_tokens, clean_tokens = typos.split(), clean.split()
    if len(typo_tokens) != len(clean_tokens):
        raise SystemExit(f"{name}: {len(typo_tokens)} tokens against {len(clean_tokens)} in the clean text")
    starts, position = [], 0
    for token in typo_tokens:
        position = typos.index(token, position)
        starts.append(position)
        position += len(token)
    rows, labels, fixes = [], [], []
    for offset, occurrence in proposals(corrector, typos):
        j = int(np.searchsorted(starts, offset, side="right")) - 1
        rows.append(occurrence)
        labels.append(typo_tokens[j] != clean_tokens[j])
        fixes.append(typo_tokens[j] != clean_tokens[j] and occurrence.correction in clean_tokens[j].lower())
    misspelt = sum(a != b for a, b in zip(typo_tokens, clean_tokens))
    return Source(name, rows, np.array(labels, float), np.array(fixes, float), len(clean_tokens) - misspelt,
                  misspelt)


def negatives(corrector: Corrector, name: str, text: str, quoted_typos: set[str]) -> Source:
    """Examples of correct text: every proposal breaks a word (a quoted dev typo is left out)."""
    rows = [o for _, o in proposals(corrector, text) if o.written.lower() not in quoted_typos]
    return Source(name, rows, np.zeros(len(rows)), np.zeros(len(rows)))


def lone_words(corrector: Corrector, name: str, typos: list[str]) -> Source:
    """Examples of misspellings written alone, as `typofix correct WORD` sees them."""
    # each typo is written once: one document of them all counts each once
    rows = [o for found in corrector.occurrences_many(typos) for o in found]
    return Source(name, rows, np.ones(len(rows)), np.zeros(len(rows)))


def inserted(corrector: Corrector, name: str, text: str, typos_of: dict[str, list[str]]) -> Source:
    """Misspellings in context, in text of other genres: every `INSERT_EVERY`-th word of `text` that a dev list
    misspells is replaced by one of its misspellings (chosen by the word's position, in its case), and the
    engine's proposals on those are the examples (on the rest of the text they are the correct text's own)."""
    parts, length, end, eligible = [], 0, 0, 0
    where = {}  # offset in the new text -> the word the misspelling stands for
    for match in WORD.finditer(text):
        choices = typos_of.get(match.group().lower())
        if not choices:
            continue
        eligible += 1
        if eligible % INSERT_EVERY:
            continue
        before = text[end:match.start()]
        typo = match_case(match.group(), choices[match.start() % len(choices)])
        parts += [before, typo]
        where[length + len(before)] = match.group().lower()
        length += len(before) + len(typo)
        end = match.end()
    parts.append(text[end:])
    rows, fixes = [], []
    for offset, occurrence in proposals(corrector, "".join(parts)):
        if offset in where:
            rows.append(occurrence)
            fixes.append(occurrence.correction == where[offset])
    return Source(name, rows, np.ones(len(rows)), np.array(fixes, float))


def code_prose(paths: list[Path], limit: int) -> str:
    """The comments and docstrings of Python files, in order, up to `limit` characters."""
    parts, size = [], 0
    for path in paths:
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
            comments = [t.string.lstrip("#").strip() for t in tokenize.generate_tokens(io.StringIO(source).readline)
                        if t.type == tokenize.COMMENT]
        except (OSError, SyntaxError, UnicodeDecodeError, tokenize.TokenError, ValueError):
            continue
        docs = [ast.get_docstring(node) for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
        for part in [*filter(None, docs), *comments]:
            parts.append(part)
            size += len(part)
        if size >= limit:
            break
    return "\n\n".join(parts)


def source_weights(sources: list[Source]) -> np.ndarray:
    """(N,) example weights: misspellings and correct words weigh the same in all, and within each, every source
    the same (the 6,000 list typos do not drown the 64 of chat, nor the foreign text the rest)."""
    weights = [np.zeros(len(s.labels)) for s in sources]
    for label in (0, 1):
        having = [i for i, s in enumerate(sources) if (s.labels == label).any()]
        for i in having:
            mask = sources[i].labels == label
            weights[i][mask] = 1.0 / (len(having) * mask.sum())
    flat = np.concatenate(weights)
    return flat / flat.mean()


def fit_sources(sources: list[Source]):
    """Gradient-boosted trees fitted on `sources` (scikit-learn, at fit time only)."""
    from sklearn.ensemble import GradientBoostingClassifier

    model = GradientBoostingClassifier(n_estimators=TREES, max_depth=DEPTH, learning_rate=RATE,
                                       min_samples_leaf=MIN_LEAF, random_state=0)
    labels = np.concatenate([s.labels for s in sources])
    model.fit(np.vstack([s.features for s in sources]), labels, sample_weight=source_weights(sources))
    return model


def table_of(model, sources: list[Source]) -> dict:
    """The fitted model as `typofix.engine.detector.Detector` reads it: the prior log-odds, then each tree's
    nodes as flat arrays (scikit-learn's `tree_`), leaf values scaled by the learning rate."""
    labels = np.concatenate([s.labels for s in sources])
    weights = source_weights(sources)
    prior = float((weights * labels).sum() / weights.sum())  # the model's starting guess: the weighted share
    trees = []
    for (regressor,) in model.estimators_:
        tree = regressor.tree_
        leaf = tree.children_left < 0
        trees.append({"feature": np.where(leaf, -1, tree.feature).tolist(),
                      "threshold": np.where(leaf, 0.0, tree.threshold).round(9).tolist(),
                      "left": tree.children_left.tolist(), "right": tree.children_right.tolist(),
                      "value": np.where(leaf, tree.value[:, 0, 0] * model.learning_rate, 0.0).round(9).tolist()})
    return {"features": list(FEATURES), "base": math.log(prior / (1 - prior)), "trees": trees}


def probabilities(model, features: np.ndarray) -> np.ndarray:
    """The fitted model's P(misspelling), with the detector's rule for lines in another language."""
    return np.where(not_english(features), 0.0, model.predict_proba(features)[:, 1])


def report(sources: list[Source], model, threshold: float, out=sys.stdout) -> None:
    """Leave-one-source-out figures at `threshold`, then the aligned sources' fixed / broken at each of
    `THRESHOLDS`."""
    print(f"leave one genre out (fit on the other genres' sources, score this one at {threshold}):", file=out)
    fitted = {}  # genre -> the detector fitted without it
    for held in sources:
        if not len(held.labels):
            continue
        if genre(held.name) not in fitted:
            fitted[genre(held.name)] = fit_sources([s for s in sources if genre(s.name) != genre(held.name)])
        rest = fitted[genre(held.name)]
        p = probabilities(rest, held.features) >= threshold
        pos, neg = held.labels == 1, held.labels == 0
        print(f"  {held.name:18} {int(pos.sum()):5} misspellings, {int(p[pos].sum()):5} detected; "
              f"{int(neg.sum()):5} proposals on correct words, {int(p[neg].sum()):4} passed", file=out)
    print("\nall sources, by threshold: misspellings fixed % / correct tokens broken per 10,000", file=out)
    aligned_sources = [s for s in sources if s.correct_tokens]
    print("  threshold " + " ".join(f"{s.name:>18}" for s in aligned_sources), file=out)
    for level in THRESHOLDS:
        cells = []
        for s in aligned_sources:
            p = probabilities(model, s.features) >= level
            fixed = 100 * (p & (s.fixes == 1)).sum() / s.misspellings if s.misspellings else float("nan")
            broken = 1e4 * (p & (s.labels == 0)).sum() / s.correct_tokens
            cells.append(f"{fixed:6.1f}% / {broken:6.1f}")
        print(f"  {level:9.2f} " + " ".join(f"{c:>18}" for c in cells), file=out)


def collect(corrector: Corrector, eval_dir: Path) -> list[Source]:
    """Every dev source's examples."""
    quoted_typos = {typo.lower() for name in ("norvig-testset1.tsv", "birkbeck-dev.tsv")
                    for typo, _ in read_misspellings(eval_dir / name)}
    sources = []
    for name, folder, typos, clean in [("prose", "prose", "typos.txt", "clean.txt"),
                                       ("informal", "informal", "typos.txt", "clean.txt"),
                                       ("wild-tech", "wild", "tech-typos.txt", "tech-clean.txt"),
                                       ("wild-chat", "wild", "chat-typos.txt", "chat-clean.txt"),
                                       ("wild-foreign", "wild", "foreign-typos.txt", "foreign-clean.txt")]:
        sources.append(aligned(corrector, name, (eval_dir / folder / typos).read_text(encoding="utf-8"),
                               (eval_dir / folder / clean).read_text(encoding="utf-8")))
        print(f"{name}: {len(sources[-1].labels)} proposals", file=sys.stderr)
    own = sorted((ROOT / "typofix").rglob("*.py"))
    docs = "\n\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    # (This project's docs are no negatives: a spell checker's docs quote misspellings on purpose, `teh`.)
    for name, text in [("project-code", code_prose(own, 10 ** 7)), ("stdlib", code_prose(stdlib, STDLIB_CHARS))]:
        sources.append(negatives(corrector, name, text, quoted_typos))
        print(f"{name}: {len(sources[-1].labels)} proposals", file=sys.stderr)
    # The two dev lists are one source: misspellings alone, one kind of example among the five
    pairs = [pair for name in ("norvig-testset1.tsv", "birkbeck-dev.tsv") for pair in read_misspellings(eval_dir / name)]
    sources.append(lone_words(corrector, "dev-lists", sorted({typo for typo, _ in pairs})))
    print(f"dev lists: {len(sources[-1].labels)} proposals", file=sys.stderr)
    # and their misspellings put into the correct text of the other genres: slips in man pages, docs, chat
    typos_of: dict[str, list[str]] = {}
    for typo, right in pairs:
        if typo.isalpha() and right.isalpha() and not corrector.is_accepted(typo):
            typos_of.setdefault(right.lower(), []).append(typo.lower())
    for name, text in [("inserted-tech", (eval_dir / "wild" / "tech-clean.txt").read_text(encoding="utf-8")),
                       ("inserted-chat", (eval_dir / "wild" / "chat-clean.txt").read_text(encoding="utf-8")),
                       ("inserted-docs", docs), ("inserted-stdlib", code_prose(stdlib, STDLIB_CHARS))]:
        sources.append(inserted(corrector, name, text, {w: sorted(set(t)) for w, t in typos_of.items()}))
        print(f"{name}: {len(sources[-1].labels)} proposals", file=sys.stderr)
    return sources


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=("default", "fast"), default="default")
    parser.add_argument("--out", type=Path, help="where to write the table (default: data/detector[-fast].json)")
    parser.add_argument("--eval", type=Path, default=ROOT.parent / "shared" / "eval", help="the dev sets' folder")
    parser.add_argument("--cache", type=Path, help="a file of collected proposals: read it if there, else write it")
    args = parser.parse_args(argv)
    if "holdout" in args.eval.parts:
        raise SystemExit("the detector is fitted on dev data only")
    settings = DecodingSettings.preset(args.preset, detect_threshold=0.0)
    out = args.out or ROOT / "data" / ("detector.json" if args.preset == "default" else "detector-fast.json")
    if args.cache is not None and args.cache.exists():
        sources = load_sources(args.cache)
    else:
        sources = collect(Corrector.load(settings=settings), args.eval)
        if args.cache is not None:
            save_sources(args.cache, sources)
    model = fit_sources(sources)
    report(sources, model, settings_threshold(args.preset))
    table = table_of(model, sources)
    check_table(table, model, sources)
    table["fitted_on"] = {s.name: {"misspellings": int(s.labels.sum()), "correct": int((s.labels == 0).sum())}
                          for s in sources}
    with atomic_path(out) as tmp:
        Path(tmp).write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0


def genre(name: str) -> str:
    """The genre of a source: misspellings put into a genre's text belong with it (`inserted-tech` with
    `wild-tech`), so that leaving a genre out leaves out all of it."""
    key = name.removeprefix("inserted-").removeprefix("wild-")
    return GENRES.get(key, key)


def settings_threshold(preset: str) -> float:
    """The preset's `detect_threshold`: where the leave-one-source-out figures are read."""
    return DecodingSettings.preset(preset).detect_threshold


def check_table(table: dict, model, sources: list[Source]) -> None:
    """The written table must give the engine the probabilities the fitted model gives."""
    features = np.vstack([s.features for s in sources])
    ours = Detector(table["base"], [{k: np.array(v) for k, v in t.items()} for t in table["trees"]])
    gap = np.abs(ours.probabilities(features) - probabilities(model, features)).max()
    if gap > 1e-4:
        raise SystemExit(f"the exported trees differ from the fitted model by {gap:.2g}")


def save_sources(path: Path, sources: list[Source]) -> None:
    """The collected proposals, for refits without the engine (features are recomputed from them)."""
    with atomic_path(path) as tmp:
        Path(tmp).write_bytes(pickle.dumps([(s.name, s.occurrences, s.labels, s.fixes, s.correct_tokens,
                                             s.misspellings) for s in sources]))


def load_sources(path: Path) -> list[Source]:
    return [Source(*fields) for fields in pickle.loads(path.read_bytes())]


if __name__ == "__main__":
    sys.exit(main())
