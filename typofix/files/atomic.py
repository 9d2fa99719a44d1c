"""Atomic file writes: a writer fills a temporary file beside the target, which is flushed to disk and renamed
onto the target only when the writer succeeds. Readers see the old file or the new one, never a partial one;
a killed or failing writer leaves the old file (or none) and no debris. Checkpoints, exported models, plots and
benchmark reports are all written through here."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(path: str | os.PathLike, keep_suffix: bool = True) -> Iterator[Path]:
    """A temporary path beside `path` for the block to write; fsynced and moved onto `path` with os.replace
    when the block succeeds (same folder, so the rename is atomic), deleted when it fails.

    `keep_suffix` ends the temporary name with the target's suffix, for writers that pick a format by name
    (matplotlib); turn it off where a file of that suffix would be taken for a finished one (checkpoints)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
                         + (path.suffix if keep_suffix else ""))
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)  # the data is on disk before the name points at it
        finally:
            os.close(fd)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
