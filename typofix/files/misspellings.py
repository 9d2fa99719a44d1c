"""Files of real misspellings, `typo<TAB>correct` per line: the dev sets training validates on, the files
`typofix evaluate` scores, the benchmark's sets. One reader for all of them; pure Python."""

from __future__ import annotations

from pathlib import Path


class MisspellingsError(ValueError):
    """A misspelling file that is missing, unreadable, malformed or empty; the message names the file and line."""


def read_misspellings(path: str | Path) -> list[tuple[str, str]]:
    """The (typo, correct) rows of a TSV, stripped and lowercased; blank lines skipped."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise MisspellingsError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
    rows = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise MisspellingsError(f"{path}:{lineno}: expected 'typo<TAB>correct', got {line[:60]!r}")
        rows.append((parts[0].strip().lower(), parts[1].strip().lower()))
    if not rows:
        raise MisspellingsError(f"{path}: no rows")
    return rows
