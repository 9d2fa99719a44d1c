"""The Lightning system: checkpoints describe themselves, training fits, bad input fails clearly."""

import inspect
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import lightning as L
import pytest
import torch
from torch.utils.data import DataLoader

from typofix.training.data import FixedPairs, collate
from typofix.nn.decode import greedy
from typofix.nn.model import Seq2Seq
from typofix.training.system import TypoCorrector
from typofix.training.noise import TypoGenerator
from typofix.words.vocab import Vocab

BIN = Path(sys.executable).parent


@pytest.mark.slow
def test_checkpoint_loads_without_hydra_with_weights_only(tiny_ckpt):
    code = (
        "import sys, torch\n"
        "from typofix.training.system import TypoCorrector\n"
        f"m = TypoCorrector.load_from_checkpoint({str(tiny_ckpt)!r}, map_location='cpu')\n"
        "assert 'hydra' not in sys.modules and 'omegaconf' not in sys.modules, 'hydra was imported'\n"
        f"torch.load({str(tiny_ckpt)!r}, map_location='cpu')  # weights_only=True is torch's default\n"
        "print(m.hparams.enc_hidden_size, m.hparams.alphabet)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "32"


@pytest.mark.slow
def test_a_few_dozen_pairs_are_overfit_to_exact_match():
    torch.manual_seed(0)
    vocab = Vocab()
    gen = TypoGenerator(identity_rate=0.0)
    words = ["receive", "separate", "government", "necessary", "definitely", "occurred", "beginning", "believe",
             "tomorrow", "address", "weird", "until", "which", "their", "friend", "because", "business", "calendar",
             "library", "february", "embarrass", "rhythm", "argument", "truly", "across", "basically", "forty",
             "grammar", "harass", "island", "knowledge", "really"]
    pairs = [(gen.sample(w, 0, 0, i).text, w) for i, w in enumerate(words)]
    loader = DataLoader(FixedPairs(pairs, vocab), batch_size=len(pairs), collate_fn=lambda b: collate(b, vocab.pad_id))
    system = TypoCorrector(emb_size=32, enc_hidden_size=64, dec_hidden_size=128, attn_size=64, dropout=0.0,
                           lr=0.01, warmup_steps=10)
    trainer = L.Trainer(max_steps=250, accelerator="cpu", logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, gradient_clip_val=1.0)
    trainer.fit(system, train_dataloaders=loader)
    system.eval()
    batch = next(iter(loader))
    predictions = [vocab.decode(row) for row in greedy(system.model, batch["src"], batch["src_len"]).ids]
    assert predictions == words


def test_warmup_is_at_most_a_tenth_of_a_short_run():
    system = TypoCorrector(lr=1.0, warmup_steps=200)
    system._trainer = SimpleNamespace(estimated_stepping_batches=40)
    scheduler = system.configure_optimizers()["lr_scheduler"]["scheduler"]
    rates = []
    for _ in range(6):
        rates.append(scheduler.get_last_lr()[0])
        scheduler.optimizer.step()
        scheduler.step()
    assert rates[:5] == pytest.approx([0.25, 0.5, 0.75, 1.0, 1.0], abs=0.01)  # 4 warm-up steps, not 200
    assert rates[5] < 1.0


def run_train(*overrides: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, HYDRA_FULL_ERROR="0")
    return subprocess.run([str(BIN / "typofix-train"), "experiment=tiny", f"hydra.run.dir={tmp_path}", *overrides],
                          capture_output=True, text=True, timeout=180, env=env)


def test_missing_word_list_is_a_one_line_error(tmp_path):
    out = run_train("data.words_path=/nonexistent/words.tsv", tmp_path=tmp_path)
    assert out.returncode == 2  # bad input, refused by the config check before anything starts
    assert out.stderr.splitlines() == ["typofix-train: error: data.words_path=/nonexistent/words.tsv: expected a "
                                       "non-empty string or null, an existing file (no such file)"]


@pytest.mark.slow
def test_invalid_word_list_lines_are_a_one_line_error(tmp_path):
    words = tmp_path / "words.tsv"
    words.write_text("hello\t10\nbroken line\n")
    out = run_train(f"data.words_path={words}", tmp_path=tmp_path)
    assert out.returncode != 0
    assert f"{words}:2: expected 'word<TAB>count'" in out.stderr
    assert "Traceback" not in out.stderr


def test_the_signature_checks_every_construction():
    """The ranges the config is checked by are the constructor's own: a Python caller gets the same one line."""
    from typofix.training.config_schema import ConfigError

    with pytest.raises(ConfigError, match=r"^emb_size=0: expected an integer >= 1$"):
        TypoCorrector(emb_size=0)
    with pytest.raises(ConfigError, match=r"^attention=bahdanau: expected one of additive, dot, general"):
        TypoCorrector(attention="bahdanau")
    with pytest.raises(ConfigError, match=r"^attention=dot, enc_hidden_size=128, dec_hidden_size=100: expected "):
        TypoCorrector(attention="dot", dec_hidden_size=100)
    assert TypoCorrector(attention="dot", enc_hidden_size=8, dec_hidden_size=16, emb_size=8, attn_size=8)


def test_the_systems_defaults_are_the_models():
    """TypoCorrector takes its model's arguments to pass them on: each default it restates is the model's own."""
    def defaults_of(callable_) -> dict:
        return {name: p.default for name, p in inspect.signature(callable_).parameters.items()
                if p.default is not inspect.Parameter.empty}

    system, model = defaults_of(TypoCorrector), defaults_of(Seq2Seq)
    assert model and all(system[key] == value for key, value in model.items())


def _teacher_gap(student: TypoCorrector, teacher_model, batch) -> float:
    """KL(teacher || student) of the next-letter distributions, averaged over `batch`'s target letters: the
    student's cross-entropy against the teacher's distributions less the teacher's own entropy."""
    from typofix.training.distill import soft_cross_entropy

    with torch.no_grad():
        logits, _ = student.model(batch["src"], batch["src_len"], batch["tgt_in"])
        targets = teacher_model(batch["src"], batch["src_len"], batch["tgt_in"])[0].softmax(dim=-1)
        cross = soft_cross_entropy(logits, targets, batch["tgt_out"], student.vocab.pad_id)
        entropy = soft_cross_entropy(targets.log(), targets, batch["tgt_out"], student.vocab.pad_id)
        return float(cross - entropy)


@pytest.mark.slow
def test_a_student_learns_its_teachers_distributions_and_its_checkpoint_holds_it_alone(tiny_exports, tmp_path):
    """Distillation moves the student towards the teacher's distributions, beyond what the gold letters alone
    do, and the teacher stays out of the student's checkpoint."""
    from typofix.nn.checkpoint import build_model, read_checkpoint

    vocab = Vocab()
    teacher_model, _ = build_model(read_checkpoint(tiny_exports["slim"]))
    gen = TypoGenerator(identity_rate=0.0)
    words = ["receive", "separate", "government", "necessary", "definitely", "occurred", "beginning", "believe",
             "tomorrow", "address", "weird", "until", "which", "their", "friend", "because"]
    pairs = [(gen.sample(w, 0, 0, i).text, w) for i, w in enumerate(words)]
    loader = DataLoader(FixedPairs(pairs, vocab), batch_size=len(pairs), collate_fn=lambda b: collate(b, vocab.pad_id))
    batch = next(iter(loader))
    gaps = {}
    for weight in (0.0, 1.0):
        torch.manual_seed(0)
        student = TypoCorrector(emb_size=8, enc_hidden_size=16, dec_hidden_size=32, attn_size=16, dropout=0.0,
                                lr=0.01, warmup_steps=1, teacher=str(tiny_exports["slim"]), distill_weight=weight)
        start = _teacher_gap(student, teacher_model, batch)  # the same for both: the same seed
        trainer = L.Trainer(max_steps=40, accelerator="cpu", logger=False, default_root_dir=tmp_path,
                            enable_progress_bar=False, enable_model_summary=False, gradient_clip_val=1.0)
        trainer.fit(student, train_dataloaders=loader)
        gaps[weight] = _teacher_gap(student, teacher_model, batch)
    # The tiny teacher is far from the gold letters: the gold alone takes the student away from it.
    assert gaps[1.0] < 0.5 * start and gaps[1.0] < 0.5 * gaps[0.0], (start, gaps)

    trainer.save_checkpoint(tmp_path / "student.ckpt")
    saved = torch.load(tmp_path / "student.ckpt", map_location="cpu", weights_only=True)
    assert set(saved["state_dict"]) == {f"model.{k}" for k in student.model.state_dict()}
    model, _ = build_model(read_checkpoint(tmp_path / "student.ckpt"))  # the student alone, at its own size
    assert model.decoder.cell.hidden_size == 32
