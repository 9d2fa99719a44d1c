"""Slim export: `typofix export CKPT OUT` (also `python -m typofix.export CKPT OUT`) turns a training checkpoint
into the small self-describing file the corrector ships with: format version, hyperparameters, alphabet, fp16 weights.
No optimiser state, no Lightning objects; written atomically (temporary file, then rename).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import torch

from typofix import __version__
from typofix.corrector import FORMAT, FORMAT_VERSION, build_model, read_checkpoint

_PLAIN = (str, int, float, bool, type(None))


def export(checkpoint: str | Path, out: str | Path, half: bool = True) -> int:
    """Write the slim model to `out` and return its size in bytes; the written file is read back and built
    before this returns, so a file that exists is a file that loads."""
    source = read_checkpoint(checkpoint)
    build_model(source, checkpoint)  # fail here, not in a user's corrector, when weights and hparams disagree
    hparams = {k: v for k, v in source.hparams.items()
               if isinstance(v, _PLAIN) or (isinstance(v, list) and all(isinstance(x, _PLAIN) for x in v))}
    weights = {k: (v.half() if half and v.is_floating_point() else v).contiguous()
               for k, v in source.state_dict.items()}
    blob = {"format": FORMAT, "format_version": FORMAT_VERSION, "typofix_version": __version__, "hparams": hparams,
            "alphabet": source.alphabet, "state_dict": weights, "trained": source.trained}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # Same directory as the target, so os.replace is an atomic rename: readers see the old file or the new one.
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            torch.save(blob, handle)
            handle.flush()
            os.fsync(handle.fileno())
        build_model(read_checkpoint(tmp), out)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; package data must be readable by all
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out.stat().st_size


if __name__ == "__main__":
    from typofix.cli import main  # one parser for `typofix export` and `python -m typofix.export`

    sys.exit(main(["export", *sys.argv[1:]]))
