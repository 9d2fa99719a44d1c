"""Measure offline language identifiers for one decision: is this line (or sentence) English?

Usage (from the repository root; both libraries installed: ``pip install py3langid lingua-language-detector``)::

    python -m bench.language_id                       # every variant, tables on stdout
    python -m bench.language_id --variants typofix langid-wide --out outputs/language.md
    python -m bench.language_id --fit                 # fit typofix.words.language's TEMPER and SCALE

Each variant runs in a process of its own, pinned to one core, so that its import time, load time and memory are
its own: ``import`` (seconds to import the library), ``load`` (seconds to build the model and answer a first
call), ``MiB`` (resident memory the import and load added). Then it scores every unit:

* ``foreign`` sentences: ``../shared/eval/wild/foreign-clean.txt``, German, French and Spanish gettext messages
  joined into paragraphs (one a line, blank lines between), cut at a sentence end or a double space;
* English lines: ``wild/tech-clean.txt`` (man pages: options, commands, paths), ``wild/chat-clean.txt`` (chat:
  abbreviations, emoji, handles, links), ``prose/clean.txt`` (the Debian FAQ and GNU standards, wrapped at ~70
  columns: lines are sentence fragments) and the same prose cut into sentences (``prose-sent``). ``informal/
  clean.txt`` is byte for byte ``prose/clean.txt``, so it is not scored twice. Only lines with a letter count;
* ``other``: up to 100 lines in each of 14 languages the dev set lacks, from the translated man pages installed
  here (``/usr/share/man/LANG``, rendered with ``man -P cat``; ``other_languages``; left out where there are
  none). Rendering them takes a minute; the parent process does it once for every variant.

A unit is English for a library when its best language is English; for ``typofix`` (typofix.words.language)
when ``english_probability`` is above 0.5 (the evidence favours English; exactly 0.5 is no evidence, as for
text without letters), and for ``typofix-pooled`` when ``english_probabilities`` over the source's units in
their order (a unit under 5 words scored with its neighbours) is. The tables give the share of units called
English per source (for ``foreign`` and ``other`` that share is the error: foreign text the corrector would
rewrite), the same for short units (1-4 words), speed (units a second, one core, over all the units of every
source) and, from n-word windows cut out of each source's running text, the share called English by window
length; for the typofix variants, calibration and the share of units at or above each threshold.
``--fit`` fits typofix.words.language's two constants on the same units instead.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from typofix.words.language import LANGUAGES as WIDE  # the module's languages, given to the libraries too

EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "eval"
SEVEN = "en de fr es it pt nl".split()
VARIANTS = ("langid", "langid-7", "langid-wide", "lingua", "lingua-low", "lingua-wide", "typofix", "typofix-pooled")
WINDOWS = (1, 2, 3, 4, 6, 8, 12)
LETTER = re.compile(r"[^\W\d_]")
LETTERS = re.compile(r"[^\W\d_]+")
SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\s{2,}")
# Latin-script languages the dev set lacks, from the man pages installed here in translation (shadow, man-db,
# dpkg, psmisc, xz, vim...): lines of option help and prose, many of them short, unlike the dev set's long
# sentences, so `--fit` weighs them too. (Other scripts are left out: nothing there to mistake for English.)
OTHER = "it pt nl sv da fi pl cs hu ro tr id hr sl".split()
MAN = Path("/usr/share/man")


def words(text: str) -> int:
    return sum(1 for token in text.split() if LETTER.search(token))


def paragraphs(path: Path) -> list[str]:
    return [" ".join(p.split()) for p in path.read_text(encoding="utf-8").split("\n\n") if p.strip()]


def sentences(paras: list[str]) -> list[str]:
    return [s.strip() for p in paras for s in SENTENCE_END.split(p) if LETTER.search(s)]


def rendered(page: Path) -> list[str]:
    """The lines of a man page as ``man -P cat`` renders it, 80 columns, blanks collapsed."""
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8")
    done = subprocess.run(["man", "-P", "cat", "-l", str(page)], capture_output=True, text=True, env=env)
    return [" ".join(line.split()) for line in done.stdout.splitlines()]


def translated_lines(page: Path, english: list[str]) -> list[str]:
    """The lines of a translated man page that are in its language: not lines of the English page (`english`;
    a translation keeps the paragraphs nobody translated in English), and under half of their words (runs of
    letters) words of the English page (a line of options, commands and paths is no language's)."""
    known_lines = set(english)
    known_words = {w for line in english for w in LETTERS.findall(line.lower())}
    kept = []
    for line in rendered(page):
        found = LETTERS.findall(line.lower())
        if found and line not in known_lines and 2 * sum(w in known_words for w in found) < len(found):
            kept.append(line)
    return kept


def other_languages(per: int = 100) -> dict[str, list[str]]:
    """Language -> up to `per` lines (distinct, drawn seeded) of its installed man pages that have an English
    original here; languages with none are left out."""
    pages = {}
    for lang in OTHER:
        found = {path.resolve() for folder in [MAN / lang, *MAN.glob(f"{lang}_*")] for path in folder.glob("man*/*")}
        pages[lang] = sorted(p for p in found if (MAN / p.parent.name / p.name).is_file())
    originals = sorted({MAN / p.parent.name / p.name for found in pages.values() for p in found})
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        english = dict(zip(originals, pool.map(rendered, originals)))
        lines = {lang: pool.map(lambda p: translated_lines(p, english[MAN / p.parent.name / p.name]), found)
                 for lang, found in pages.items()}
        lines = {lang: sorted({line for kept in found for line in kept}) for lang, found in lines.items()}
    return {lang: random.Random(f"language_id:{lang}").sample(found, min(per, len(found)))
            for lang, found in lines.items() if found}


def units(eval_dir: Path, other: dict[str, list[str]]) -> dict[str, list[str]]:
    """Source name -> the units (lines or sentences) scored one by one; `other` from `other_languages`."""
    wild = eval_dir / "wild"
    lines = {name: [line.strip() for line in (wild / f"{name}-clean.txt").read_text(encoding="utf-8").splitlines()
                    if LETTER.search(line)] for name in ("tech", "chat")}
    prose = eval_dir / "prose" / "clean.txt"
    return {
        "foreign": sentences(paragraphs(wild / "foreign-clean.txt")),
        "tech": lines["tech"],
        "chat": lines["chat"],
        "prose": [line.strip() for line in prose.read_text(encoding="utf-8").splitlines() if LETTER.search(line)],
        "prose-sent": sentences(paragraphs(prose)),
        **({"other": [t for texts in other.values() for t in texts]} if other else {}),
    }


def windows(eval_dir: Path, per: int = 400) -> dict[str, dict[int, list[str]]]:
    """Source -> n -> up to `per` windows of n consecutive words (no window crosses a paragraph or line of chat)."""
    wild = eval_dir / "wild"
    texts = {
        "foreign": paragraphs(wild / "foreign-clean.txt"),
        "tech": paragraphs(wild / "tech-clean.txt"),
        "chat": [line for line in (wild / "chat-clean.txt").read_text(encoding="utf-8").splitlines() if line.strip()],
        "prose": paragraphs(eval_dir / "prose" / "clean.txt"),
    }
    found: dict[str, dict[int, list[str]]] = {}
    for name, blocks in texts.items():
        found[name] = {}
        for n in WINDOWS:
            cut = []
            for block in blocks:
                tokens = [t for t in block.split() if LETTER.search(t)]
                cut += [" ".join(tokens[i:i + n]) for i in range(0, len(tokens) - n + 1, n)]
            step = max(1, len(cut) // per)
            found[name][n] = cut[::step][:per]
    return found


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def load(variant: str):
    """Import and build one variant; returns a function text -> (best language or None, P(English) or None)."""
    if variant.startswith("langid"):
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        model = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        if variant != "langid":
            model.set_languages(SEVEN if variant == "langid-7" else WIDE)

        def answer(text: str):
            ranked = model.rank(text)
            return ranked[0][0], dict(ranked).get("en", 0.0)
        return answer
    if variant.startswith("lingua"):
        from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

        if variant == "lingua-wide":
            codes = [getattr(IsoCode639_1, c.upper(), None) for c in list(WIDE) + ["nb"]]
            builder = LanguageDetectorBuilder.from_iso_codes_639_1(*[c for c in codes if c is not None])
        else:
            builder = LanguageDetectorBuilder.from_all_languages()
        if variant == "lingua-low":
            builder = builder.with_low_accuracy_mode()
        detector = builder.with_preloaded_language_models().build()

        def answer(text: str):  # one call: lingua's high-accuracy mode takes milliseconds a call
            ranked = detector.compute_language_confidence_values(text)
            best = ranked[0].language.iso_code_639_1.name.lower() if ranked and ranked[0].value > 0 else None
            return best, next((c.value for c in ranked if c.language == Language.ENGLISH), 0.0)
        return answer
    if variant.startswith("typofix"):
        from typofix.words.language import EnglishIdentifier

        identifier = EnglishIdentifier()

        def answer(text: str):
            p = identifier.english_probability(text)
            return ("en" if p > 0.5 else "other"), p
        if variant == "typofix-pooled":  # each source's units in order, short ones with their neighbours
            answer.many = lambda texts: [("en" if p > 0.5 else "other", p)
                                         for p in identifier.english_probabilities(texts)]
        return answer
    raise SystemExit(f"unknown variant {variant!r}: one of {', '.join(VARIANTS)}")


def timed(job) -> float:
    started = time.perf_counter()
    job()
    return time.perf_counter() - started


def worker(variant: str, eval_dir: Path, other: dict[str, list[str]]) -> dict:
    """Everything measured for one variant, in this (fresh, one-core) process."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    before = rss_mib()
    start = time.perf_counter()
    if variant.startswith("langid"):
        import py3langid  # noqa: F401
    elif variant.startswith("lingua"):
        import lingua  # noqa: F401
    else:
        import typofix.words.language  # noqa: F401
    imported = time.perf_counter() - start
    answer = load(variant)
    answer("warm up the model")
    loaded = time.perf_counter() - start - imported
    memory = rss_mib() - before
    many = getattr(answer, "many", lambda texts: [answer(t) for t in texts])
    sources = units(eval_dir, other)
    by_source = {}
    for name, texts in sources.items():
        answers = many(texts)
        by_source[name] = {"n": len(texts), "en": [best == "en" for best, _ in answers],
                           "p": [p for _, p in answers], "words": [words(t) for t in texts]}
    # timed apart, best of two passes: the machine is shared, and the slower pass is the one something else slowed
    spent = min(timed(lambda: [many(texts) for texts in sources.values()]) for _ in range(2))
    count = sum(len(texts) for texts in sources.values())
    by_language = {lang: sum(best == "en" for best, _ in many(texts)) / len(texts)
                   for lang, texts in other.items()}
    # windows are scored alone: pooling would join them with unrelated neighbours
    by_window = {} if hasattr(answer, "many") else {
        name: {n: sum(answer(t)[0] == "en" for t in cut) / max(1, len(cut)) for n, cut in sizes.items()}
        for name, sizes in windows(eval_dir).items()}
    typical = [t for t in sources["prose-sent"] if 8 <= words(t) <= 14][:200]
    per_call = min(timed(lambda: [answer(t) for t in typical]) for _ in range(5)) / len(typical) * 1e6
    return {"variant": variant, "import_s": imported, "load_s": loaded, "mib": memory, "units_per_s": count / spent,
            "us_typical": per_call, "sources": by_source, "windows": by_window,
            "languages": by_language, "counts": {lang: len(texts) for lang, texts in other.items()}}


def fit(eval_dir: Path, other: dict[str, list[str]]) -> str:
    """The TEMPER and SCALE of typofix.words.language with the least log loss (English sources and other
    languages weigh half and half, each source equally within its half; the prior is 0.5 and stays so), and the
    loss of the pair the module has now."""
    import math

    from typofix.words import language

    sources = units(eval_dir, other)
    halves = {"tech": 1, "chat": 1, "prose": 1, "foreign": 0, "other": 0}
    losses = {}
    for temper in (0.2, 0.3, 0.4, 0.5):
        identifier = language.EnglishIdentifier(temper=temper, scale=1.0)
        ratios = {name: [identifier.evidence(t) for t in sources[name]] for name in halves if name in sources}
        for scale in [i / 20 for i in range(4, 41)]:
            loss = 0.0
            for name, values in ratios.items():
                weight = 1 / (len(values) * sum(1 for n in ratios if halves[n] == halves[name]) * 2)
                for x in values:
                    z = scale * x if halves[name] else -scale * x  # the log-odds of the right answer
                    loss += weight * (math.log1p(math.exp(-z)) if z > -30 else -z)
            losses[temper, scale] = loss
    lines = ["| TEMPER | best SCALE | log loss |", "|---:|---:|---:|"]
    for temper in sorted({t for t, _ in losses}):
        scale = min((s for t, s in losses if t == temper), key=lambda s: losses[temper, s])
        lines.append(f"| {temper} | {scale:.2f} | {losses[temper, scale]:.4f} |")
    best = min(losses, key=losses.get)
    now = (language.TEMPER, language.SCALE)
    return ("\n".join(lines) + f"\n\nbest: TEMPER = {best[0]}, SCALE = {best[1]:.2f}"
            + (f"; in use: TEMPER = {now[0]}, SCALE = {now[1]:.2f}, log loss {losses[now]:.4f}\n" if now in losses
               else "\n"))


def share(flags: list[bool]) -> str:
    return f"{100 * sum(flags) / len(flags):.1f}%" if flags else "-"


def tables(results: list[dict]) -> str:
    sources = list(results[0]["sources"])
    out = ["Share of units called English (foreign: the error; the English sources: the higher the better).", "",
           "| variant | " + " | ".join(f"{s} ({results[0]['sources'][s]['n']})" for s in sources)
           + " | units/s | us/sentence | import s | load s | MiB |",
           "|---|" + "---:|" * (len(sources) + 5)]
    for r in results:
        cells = [share(r["sources"][s]["en"]) for s in sources]
        out.append(f"| {r['variant']} | " + " | ".join(cells) + f" | {r['units_per_s']:,.0f} | {r['us_typical']:,.0f}"
                   f" | {r['import_s']:.2f} | {r['load_s']:.2f} | {r['mib']:,.0f} |")
    out += ["", "Short units (1-4 words) only, and units of 5 or more words:", "",
            "| variant | " + " | ".join(f"{s} 1-4 / 5+" for s in sources) + " |", "|---|" + "---:|" * len(sources)]
    for r in results:
        cells = []
        for s in sources:
            src = r["sources"][s]
            short = [e for e, w in zip(src["en"], src["words"]) if w <= 4]
            long = [e for e, w in zip(src["en"], src["words"]) if w > 4]
            cells.append(f"{share(short)} ({len(short)}) / {share(long)}")
        out.append(f"| {r['variant']} | " + " | ".join(cells) + " |")
    out += ["", "n-word windows cut from each source's running text: share called English, by n.", "",
            "| variant | source | " + " | ".join(f"n={n}" for n in WINDOWS) + " |",
            "|---|---|" + "---:|" * len(WINDOWS)]
    for r in results:
        for name, sizes in r["windows"].items():
            out.append(f"| {r['variant']} | {name} | "
                       + " | ".join(f"{100 * sizes[str(n)]:.0f}%" for n in WINDOWS) + " |")
    if results[0]["languages"]:
        langs = list(results[0]["languages"])
        out += ["", f"`other`, by language ({MAN}/LANG, lines): share of lines called English.", "",
                "| variant | " + " | ".join(f"{x} ({results[0]['counts'][x]})" for x in langs) + " |",
                "|---|" + "---:|" * len(langs)]
        for r in results:
            out.append(f"| {r['variant']} | " + " | ".join(f"{100 * r['languages'][x]:.0f}" for x in langs) + " |")
    thresholds = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
    bins = [("< 0.1", lambda p: p < 0.1), ("0.1-0.3", lambda p: 0.1 <= p < 0.3), ("0.3-0.5", lambda p: 0.3 <= p < 0.5),
            ("0.5", lambda p: p == 0.5), ("0.5-0.7", lambda p: 0.5 < p < 0.7), ("0.7-0.9", lambda p: 0.7 <= p < 0.9),
            (">= 0.9", lambda p: p >= 0.9)]
    english, foreign = ("tech", "chat", "prose"), ("foreign", "other")
    for r in results:
        if not r["variant"].startswith("typofix"):
            continue
        out += ["", f"{r['variant']}: calibration. Units by P(English) (exactly 0.5: no evidence); `English`: the "
                "share of them that is English when English (tech, chat, prose) and other languages (foreign, other) "
                "weigh half and half, as the prior 0.5 says.", "",
                "| P(English) | " + " | ".join(label for label, _ in bins) + " |", "|---|" + "---:|" * len(bins)]
        rows = {"units": [], "English": []}
        for _, inside in bins:
            shares = [sum(inside(p) for s in group for p in r["sources"][s]["p"])
                      / sum(r["sources"][s]["n"] for s in group) for group in (english, foreign)]
            n = sum(inside(p) for s in english + foreign for p in r["sources"][s]["p"])
            rows["units"].append(str(n))
            rows["English"].append(f"{shares[0] / (shares[0] + shares[1]):.2f}" if n else "-")
        out += [f"| {k} | " + " | ".join(v) + " |" for k, v in rows.items()]
    for r in results:
        if not r["variant"].startswith("typofix"):
            continue
        out += ["", f"{r['variant']}: share of units whose P(English) is at or above each threshold, all units / "
                "units of 1-4 words.", "", "| source | " + " | ".join(f">= {t}" for t in thresholds) + " |",
                "|---|" + "---:|" * len(thresholds)]
        for s, src in r["sources"].items():
            short = [p for p, w in zip(src["p"], src["words"]) if w <= 4]
            cells = [f"{share([p >= t for p in src['p']])} / {share([p >= t for p in short])}" for t in thresholds]
            out.append(f"| {s} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--eval", type=Path, default=EVAL, help="the shared eval folder (wild/, prose/)")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--out", type=Path, help="also write the tables here")
    parser.add_argument("--fit", action="store_true", help="fit typofix.words.language's TEMPER and SCALE instead")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--other", type=Path, help=argparse.SUPPRESS)  # the parent's other_languages, as JSON
    args = parser.parse_args(argv)
    if args.worker:
        json.dump(worker(args.worker, args.eval, json.loads(args.other.read_text())), sys.stdout)
        return
    other = other_languages()
    if args.fit:
        print(fit(args.eval, other))
        return
    results = []
    with tempfile.NamedTemporaryFile("w", suffix=".json") as saved:
        json.dump(other, saved)
        saved.flush()
        for variant in args.variants:
            env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
            done = subprocess.run([sys.executable, "-m", "bench.language_id", "--eval", str(args.eval), "--worker",
                                   variant, "--other", saved.name], capture_output=True, text=True, env=env,
                                  check=True)
            results.append(json.loads(done.stdout))
            print(f"{variant}: done", file=sys.stderr)
    text = tables(results)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)


if __name__ == "__main__":
    main()
