"""Torch model files: read a slim export or a Lightning checkpoint with `torch.load` alone, and build the
`Seq2Seq` it describes through `Seq2Seq.from_hparams`, the constructor training uses too.

No Lightning or Hydra here (importing Lightning costs seconds): a checkpoint describes itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch

from typofix.nn.model import Seq2Seq
from typofix.files.modelfile import ModelError, check_file
from typofix.words.vocab import DEFAULT_ALPHABET, Vocab

FORMAT = "typofix-model"
FORMAT_VERSION = 1


@dataclass
class Checkpoint:
    """What the corrector needs from a checkpoint file: hyperparameters, alphabet, model weights (keys
    without Lightning's "model." prefix), and where the weights came from (epoch, step)."""

    hparams: dict
    alphabet: str
    state_dict: dict[str, torch.Tensor]
    trained: dict = field(default_factory=dict)


def read_checkpoint(path: str | Path) -> Checkpoint:
    """Read a slim export or a full Lightning checkpoint with `torch.load(weights_only=True)`."""
    path = Path(path)
    check_file(path)
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch.load fails in many ways (zip, pickle, EOF, weights-only): all mean "bad file"
        raise ModelError(f"cannot read model {path}: truncated, corrupt or not a torch checkpoint "
                         f"({type(err).__name__})") from None
    if not isinstance(blob, dict):
        raise ModelError(f"{path} is not a typofix model (a torch file, but not a checkpoint dictionary)")
    if "format" in blob:
        if blob.get("format") != FORMAT:
            raise ModelError(f"{path} is not a typofix model (format {blob.get('format')!r})")
        if blob.get("format_version") != FORMAT_VERSION:
            raise ModelError(f"{path} is a typofix model of format version {blob.get('format_version')}; this "
                             f"typofix reads version {FORMAT_VERSION} (re-export it with typofix export)")
        return Checkpoint(dict(blob["hparams"]), blob["alphabet"], blob["state_dict"], dict(blob.get("trained", {})))
    if isinstance(blob.get("hyper_parameters"), dict) and isinstance(blob.get("state_dict"), dict):
        hparams = dict(blob["hyper_parameters"])
        weights = {k.removeprefix("model."): v for k, v in blob["state_dict"].items() if k.startswith("model.")}
        trained = {k: blob[k] for k in ("epoch", "global_step") if k in blob}
        return Checkpoint(hparams, hparams.get("alphabet", DEFAULT_ALPHABET), weights, trained)
    raise ModelError(f"{path} is not a typofix model (no hyperparameters and weights in it)")


def average_checkpoints(checkpoints: list[Checkpoint], sources: list[str]) -> Checkpoint:
    """One checkpoint whose weights are the mean of these (the same alphabet and weights; the first's
    hyperparameters): checkpoint averaging, the end of a run smoothed over the last few epochs (it took the
    letter-to-phone model's held-out word error rate from 31.2 to 30.0%, docs/model.md)."""
    first = checkpoints[0]
    for other, source in zip(checkpoints[1:], sources[1:]):
        same = other.alphabet == first.alphabet and other.state_dict.keys() == first.state_dict.keys() and all(
            other.state_dict[k].shape == v.shape for k, v in first.state_dict.items())
        if not same:
            raise ModelError(f"{source}: cannot average with {sources[0]}: another alphabet or architecture")
    weights = {k: (sum(c.state_dict[k].float() for c in checkpoints) / len(checkpoints)).to(v.dtype)
               if v.is_floating_point() else v for k, v in first.state_dict.items()}
    return Checkpoint(first.hparams, first.alphabet, weights, {"averaged": [c.trained for c in checkpoints]})


def build_model(checkpoint: Checkpoint, source: str | Path = "checkpoint") -> tuple[Seq2Seq, Vocab]:
    """The Seq2Seq a checkpoint describes, weights loaded (fp16 exports come back as float32), in eval mode."""
    try:
        vocab = Vocab(checkpoint.alphabet)
        model = Seq2Seq.from_hparams(checkpoint.hparams, len(vocab), vocab.pad_id, vocab.sos_id, vocab.eos_id)
        model.load_state_dict(checkpoint.state_dict)  # copies into the float32 parameters
    except (ValueError, TypeError, RuntimeError, KeyError) as err:
        first = (str(err).strip().splitlines() or [type(err).__name__])[0][:160]
        raise ModelError(f"{source}: weights do not match their hyperparameters ({first})") from None
    return model.eval(), vocab
