"""The real `typofix` command line, run as a subprocess: output, streaming, errors and exit codes."""

from __future__ import annotations

import json
import re
import os
import signal
import subprocess
import sys
import time

import pytest

from typofix.files.modelfile import bundled_model_path, bundled_onnx_path

BUNDLED = bundled_model_path()
needs_bundled = pytest.mark.skipif(not BUNDLED.is_file(), reason="the bundled model is not exported yet")
needs_bundled_onnx = pytest.mark.skipif(not bundled_onnx_path().is_file(), reason="no bundled ONNX model yet")


def typofix(*args: str, stdin: bytes | str = b"") -> subprocess.CompletedProcess:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "typofix", *args], input=data, capture_output=True, env=env,
                          timeout=300)


def one_line_error(done: subprocess.CompletedProcess, code: int) -> str:
    err = done.stderr.decode()
    assert done.returncode == code, err
    assert b"Traceback" not in done.stderr
    assert err.count("\n") == 1 and err.startswith("typofix: error: ")
    return err


@needs_bundled
def test_bundled_corrects_words():
    done = typofix("correct", "speling", "recieve", "teh")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().splitlines() == ["spelling", "receive", "the"]


@needs_bundled
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_with_code_or_markup_is_corrected_where_it_is_text(tmp_path, jobs):
    """`correct --file` reads a program, Markdown or LaTeX as `check` reads it: its comments, docstrings and
    prose are corrected, and its code, code blocks, markup, math and a program's strings come back as they
    were (`graphicx` in a fence, in `\\usepackage` or as a name had become `graphics`)."""
    files = {
        "notes.md": ("Use `graphicx` here: we recieved it.\n\n```\nx = graphicx(1)\n```\n",
                     "Use `graphicx` here: we received it.\n\n```\nx = graphicx(1)\n```\n"),
        "paper.tex": ("\\usepackage{amsmath,graphicx}\nThe residual decreses, $\\mathrm{argmin}_x$.\n",
                      "\\usepackage{amsmath,graphicx}\nThe residual decreases, $\\mathrm{argmin}_x$.\n"),
        "tool.py": ('# We recieved the data.\nKEY = "recieve"\n\n\ndef graphicx(x):\n    """Retrun the value."""\n',
                    '# We received the data.\nKEY = "recieve"\n\n\ndef graphicx(x):\n    """Return the value."""\n'),
    }
    for name, (text, fixed) in files.items():
        (tmp_path / name).write_text(text)
        done = typofix("correct", "--jobs", jobs, "--file", str(tmp_path / name))
        assert (done.returncode, done.stdout.decode()) == (0, fixed), done.stderr


@needs_bundled
def test_bundled_corrects_text_from_stdin():
    done = typofix("correct", "-", stdin="Teh quick brown fox recieved 3 leters from http://exmaple.com.\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == "The quick brown fox received 3 letters from http://exmaple.com.\n"


def test_words_one_per_line_in_order(tiny_ckpt):
    words = ["speling", "123", "the", "http://x.org"]
    done = typofix("correct", "--model", str(tiny_ckpt), *words)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert len(lines) == 4 and lines[1:] == ["123", "the", "http://x.org"]


def test_text_bytes_outside_words_come_back(tiny_ckpt, tmp_path):
    junk = bytes(b for b in range(256) if not chr(b).isalpha()) * 40  # binary junk: no ASCII letters to correct
    long_token = b"q" * 10_000
    text = junk + b"\n" + long_token + b" 42 \r\n\n" + "caf\u00e9 na\u00efve\n".encode()
    assert typofix("correct", "--model", str(tiny_ckpt), "-", stdin=text).stdout == text
    path = tmp_path / "in.txt"
    path.write_bytes(text)
    done = typofix("correct", "--model", str(tiny_ckpt), "--file", str(path))
    assert done.returncode == 0 and done.stdout == text


def test_empty_input(tiny_ckpt):
    done = typofix("correct", "--model", str(tiny_ckpt), "-", stdin=b"")
    assert done.returncode == 0 and done.stdout == b""
    one_line_error(typofix("correct"), 2)


def test_top_k_and_json(tiny_ckpt):
    done = typofix("correct", "--model", str(tiny_ckpt), "--top-k", "3", "--json", "speling", "Teh")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["input"] for r in records] == ["speling", "Teh"]
    for record in records:
        assert 1 <= len(record["candidates"]) <= 3
        scores = [c["score"] for c in record["candidates"]]
        assert scores == sorted(scores, reverse=True)


def test_model_errors(tmp_path, tiny_ckpt):
    one_line_error(typofix("correct", "--model", str(tmp_path / "missing.pt"), "teh"), 1)
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(tiny_ckpt.read_bytes()[:3000])
    one_line_error(typofix("correct", "--model", str(corrupt), "teh"), 1)


@pytest.mark.slow
def test_onnx_model_errors(tmp_path, tiny_ckpt):
    one_line_error(typofix("correct", "--model", str(tmp_path / "missing.onnxz"), "teh"), 1)
    good = tmp_path / "good.onnxz"
    assert typofix("export", str(tiny_ckpt), str(good)).returncode == 0
    data = good.read_bytes()
    for name, content in {"truncated.onnxz": data[:len(data) // 2], "junk.onnxz": b"PK\x03\x04 junk"}.items():
        (tmp_path / name).write_bytes(content)
        one_line_error(typofix("correct", "--model", str(tmp_path / name), "teh"), 1)
        one_line_error(typofix("evaluate", "data/eval/norvig-testset1.tsv", "--model", str(tmp_path / name)), 1)
        one_line_error(typofix("plot-embeddings", "--out", str(tmp_path / "e.png"), "--model", str(tmp_path / name)), 1)
    # An ONNX export carries its encoder's embeddings (the map serve shows), not its decoder's.
    assert typofix("plot-embeddings", "--out", str(tmp_path / "e.png"), "--model", str(good)).returncode == 0
    assert (tmp_path / "e.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    one_line_error(typofix("plot-embeddings", "--embedding", "decoder", "--out", str(tmp_path / "d.png"),
                           "--model", str(good)), 1)


MODULE_LOADED = ("import sys; from typofix.apps.cli import main; code = main(sys.argv[2:]); "
                 "print(sys.argv[1] in sys.modules, file=sys.stderr); sys.exit(code)")


def imports(module: str, *args: str, env: dict | None = None) -> bool:
    """Whether `typofix ARGS` (in-process in a fresh interpreter) ends with `module` imported; it must exit 0,
    or 1 (`check` found something)."""
    done = subprocess.run([sys.executable, "-c", MODULE_LOADED, module, *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1", **(env or {})})
    assert done.returncode in (0, 1), done.stderr
    return done.stderr.strip().splitlines()[-1] == "True"


@needs_bundled_onnx
def test_correct_and_evaluate_never_import_torch_with_the_onnx_model():
    assert not imports("torch", "correct", "teh")
    assert not imports("torch", "correct", "--explain", "--top-k", "1", "recieve")
    assert not imports("torch", "evaluate", "data/eval/norvig-testset1.tsv", "--limit", "5")
    assert imports("torch", "correct", "--model", str(BUNDLED), "teh")  # a torch model needs torch: the check sees it


@needs_bundled_onnx
def test_a_run_that_searches_no_word_never_starts_the_models_runtime(tmp_path):
    """The bundled model's runtime (onnxruntime) starts on the first search: correcting a text of known words
    never imports it, nor does checking files whose words' searches an earlier run kept; a typo to search does."""
    assert not imports("onnxruntime", "correct", "Hello world, it's all fine here.")
    assert imports("onnxruntime", "correct", "recieve")
    notes = tmp_path / "notes.py"
    notes.write_text("# We recieve the data here, and sned it on.\n")
    cache = {"TYPOFIX_CACHE_DIR": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    assert imports("onnxruntime", "check", str(notes), env=cache)
    assert not imports("onnxruntime", "check", str(notes), env=cache)  # (the searches kept by the first run)
    assert imports("onnxruntime", "check", "--no-cache", str(notes), env=cache)


@needs_bundled_onnx
@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_sigterm_and_sighup_end_any_command_as_ctrl_c_does(signum, status):
    """`kill` (SIGTERM) and a closed terminal (SIGHUP) end every command through its own clean-up, exit 128 + the
    signal, nothing on stderr: `evaluate` had died of the signal itself (exit -15), its clean-up skipped."""
    run = subprocess.Popen([sys.executable, "-m", "typofix", "evaluate", "data/eval/birkbeck-dev.tsv"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "OMP_NUM_THREADS": "1"})
    time.sleep(3)  # (loaded, and evaluating: the whole list takes many seconds)
    run.send_signal(signum)
    _, err = run.communicate(timeout=60)
    assert (run.returncode, err) == (status, "")


def test_usage_errors(tmp_path):
    one_line_error(typofix(), 2)
    one_line_error(typofix("correct", "--beam", "0", "teh"), 2)
    one_line_error(typofix("correct", "--file", str(tmp_path / "nope.txt")), 2)
    one_line_error(typofix("correct", "-", "--top-k", "3"), 2)
    (tmp_path / "bad.tsv").write_text("only one column\n")
    one_line_error(typofix("evaluate", str(tmp_path / "bad.tsv")), 2)


def test_real_words_says_in_its_help_what_it_needs():
    """`correct --real-words` reports in JSON lines only: --help says so, and the error says the same."""
    shown = " ".join(typofix("correct", "--help").stdout.decode().split())
    need = re.search(r"--real-words also report .*?; needs (--json and text \(- or --file\), one job)", shown)
    assert need, shown
    error = one_line_error(typofix("correct", "--real-words", "-", stdin="form the start\n"), 2)
    assert f"needs {need.group(1)}" in error


def test_evaluate_table_has_one_column_of_values(tiny_ckpt):
    for k in ("5", "12"):
        done = typofix("evaluate", "data/eval/norvig-testset1.tsv", "--model", str(tiny_ckpt), "--limit", "10",
                       "--beam", "2", "--top-k", k)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.decode().splitlines()
        assert [line.split()[0] for line in lines] == ["rows", "top-1", f"top-{k}", "CER", "unchanged", "speed",
                                                       "decoding"]
        columns = {len(line) - len(line.split(maxsplit=1)[1]) for line in lines}
        assert len(columns) == 1, lines


def test_evaluate(tiny_ckpt):
    done = typofix("evaluate", "data/eval/norvig-testset1.tsv", "--model", str(tiny_ckpt), "--limit", "20",
                   "--beam", "2", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["rows"] == 20 and report["k"] == 5
    assert 0 <= report["top1"] <= report["topk"] <= 1 and report["words_per_s"] > 0
    assert {"cer", "unchanged", "settings"} <= set(report)


@pytest.mark.slow  # in process, faster: tests/test_export.py
def test_export(tiny_ckpt, tmp_path):
    out = tmp_path / "models" / "slim.pt"
    done = typofix("export", str(tiny_ckpt), str(out))
    assert done.returncode == 0, done.stderr
    assert out.is_file() and out.stat().st_size < 10_000_000
    assert not list(out.parent.glob(".*.tmp"))
    assert typofix("correct", "--model", str(out), "the").stdout == b"the\n"
    onnx = tmp_path / "models" / "slim.onnxz"
    done = typofix("export", str(out), str(onnx))
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith(f"wrote {onnx} (")
    assert not list(out.parent.glob(".*.tmp"))
    words = ["speling", "recieve", "the"]
    assert (typofix("correct", "--model", str(onnx), *words).stdout
            == typofix("correct", "--model", str(out), *words).stdout)


LETTER = "Teh QUIK brown fox recieved 3 leters.\nWe'd said: speling, wierd.\n" * 40 + "last line, no newline"


@pytest.mark.slow
def test_jobs_give_exactly_the_output_of_one_job(tiny_ckpt, tmp_path):
    (tmp_path / "letter.txt").write_text(LETTER)
    model = ["--model", str(tiny_ckpt), "--beam", "2"]
    one = typofix("correct", "--file", str(tmp_path / "letter.txt"), *model)
    two = typofix("correct", "--file", str(tmp_path / "letter.txt"), "--jobs", "2", *model)
    assert one.returncode == two.returncode == 0, two.stderr
    assert two.stdout == one.stdout and one.stdout.count(b"\n") == LETTER.count("\n")


@pytest.mark.slow  # four more runs, two with workers: the pool above in its other front doors
def test_jobs_give_the_json_lines_and_the_evaluation_of_one_job(tiny_ckpt):
    model = ["--model", str(tiny_ckpt), "--beam", "2"]
    piped = [typofix("correct", "-", "--json", *model, *jobs, stdin=LETTER) for jobs in ([], ["--jobs", "2"])]
    outputs = [[json.loads(line)["output"] for line in done.stdout.decode().splitlines()] for done in piped]
    assert outputs[0] and outputs[1] == outputs[0]
    reports = [json.loads(typofix("evaluate", "data/eval/norvig-testset1.tsv", "--limit", "60", "--json", *model,
                                  *jobs).stdout) for jobs in ([], ["--jobs", "2"])]
    for key in ("rows", "top1", "topk", "cer", "unchanged", "words"):
        assert reports[0][key] == reports[1][key], key


@pytest.mark.slow
def test_json_is_valid_utf8_and_bad_bytes_are_left_alone(tiny_ckpt):
    model = ["--model", str(tiny_ckpt), "--beam", "2"]
    done = typofix("correct", "-", *model, stdin=b"Caf\xe9 is open\n")
    assert done.returncode == 0 and done.stdout.startswith(b"Caf\xe9 ")  # not Car\xe9: the byte is kept, and its word
    done = typofix("correct", "-", "--json", *model, stdin=b"Caf\xe9 is open\n")
    line = done.stdout.decode("utf-8")  # strict: raises on an invalid byte
    assert json.loads(line)["input"] == "Caf\udce9 is open\n"  # the JSON escape gives the byte back


@needs_bundled_onnx
@pytest.mark.acceptance
def test_the_issues_examples_come_back_unchanged():
    words = ["NASA", "FBI", "IBM", "COVID", "html", "OK", "foo", "RC", "ls", "acknowledgments", "afterward", "MIT",
             "GPL", "II", "Emoji"]
    assert typofix("correct", *words).stdout.decode().split() == words
    text = "Emoji, #hashtag, foo_bar and /usr/sbin/slapd; MIT or GPL, part II, Wm. Shakespeare.\n"
    assert typofix("correct", "-", stdin=text).stdout.decode() == text
    assert typofix("correct", "--fast", "-", stdin=text).stdout.decode() == text


@needs_bundled_onnx
@pytest.mark.acceptance
def test_fast_preset_corrects_and_says_so():
    done = typofix("evaluate", "data/eval/norvig-testset1.tsv", "--fast", "--limit", "30", "--json")
    assert done.returncode == 0, done.stderr
    settings = json.loads(done.stdout)["settings"]
    assert settings["bundled_model"] == "fast" and settings["greedy"] is False
    assert typofix("correct", "--fast", "recieve", "definately").stdout == b"receive\ndefinitely\n"


# --- plot-attention, plot-embeddings, correct --explain ----------------------------------------------------


@pytest.mark.slow
def test_plot_attention_and_embeddings_write_png_or_svg_by_suffix(tiny_ckpt, tmp_path):
    from PIL import Image

    for command in (["plot-attention", "recieve", "definately", "--out", str(tmp_path / "a.png")],
                    ["plot-embeddings", "--out", str(tmp_path / "e.svg")]):
        done = typofix(*command, "--model", str(tiny_ckpt))
        assert done.returncode == 0, done.stderr
    with Image.open(tmp_path / "a.png") as image:
        assert image.format == "PNG"
    assert b"<svg" in (tmp_path / "e.svg").read_bytes()[:2000]


def test_explain_prints_the_correction_and_its_changes(tiny_ckpt):
    done = typofix("correct", "--explain", "--json", "recieve", "--model", str(tiny_ckpt))
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert row["input"] == "recieve" and isinstance(row["changes"], list)
    assert all({"kind", "start", "end", "typed", "fix"} == set(c) for c in row["changes"])


@needs_bundled
def test_bundled_explain_locates_a_swap():
    done = typofix("correct", "--explain", "recieve")
    assert done.stdout.decode() == 'recieve -> receive  (swap at 4-5: "ie" -> "ei")\n'


@needs_bundled
def test_explain_counts_positions_from_1_as_check_counts_columns(tmp_path):
    """The printed positions are the characters' places counted from 1, as `check`'s columns are; the JSON's
    start and end are offsets from 0 (word[start:end] is what was typed)."""
    words = ["recieve", "goverment", "definately", "untill"]
    printed = typofix("correct", "--explain", *words).stdout.decode().splitlines()
    records = [json.loads(line) for line in typofix("correct", "--explain", "--json", *words).stdout.splitlines()]
    for word, line, record in zip(words, printed, records):
        changes = re.findall(r'(\w+) at (\d+)(?:-(\d+))?: "(\w*)"', line)
        assert len(changes) == len(record["changes"]) >= 1, line
        for (kind, first, last, typed), change in zip(changes, record["changes"]):
            assert (kind, typed) == (change["kind"], change["typed"]) == (kind, word[change["start"]:change["end"]])
            assert int(first) == change["start"] + 1 and int(last or first) == max(change["end"], change["start"] + 1)
            if typed:  # counted from 1, the printed places hold what was typed, as a check column points at a word
                assert word[int(first) - 1:int(last or first)] == typed
    (tmp_path / "notes.txt").write_text("We recieve it.\n")
    found = typofix("check", str(tmp_path / "notes.txt")).stdout.decode()
    assert f"{tmp_path / 'notes.txt'}:1:4: recieve ==> receive" in found  # "recieve" starts at the 4th character


@pytest.mark.slow
def test_plot_and_explain_errors(tiny_ckpt, tmp_path):
    model = ["--model", str(tiny_ckpt)]
    one_line_error(typofix("plot-attention", "teh", "--out", str(tmp_path / "a.jpg"), *model), 2)
    one_line_error(typofix("plot-attention", "h\u00e9llo", "--out", str(tmp_path / "a.png"), *model), 2)
    one_line_error(typofix("plot-embeddings", "--out", str(tmp_path / "e.png"), "--model", str(tmp_path / "no.pt")), 1)
    one_line_error(typofix("correct", "--explain", "--top-k", "2", "teh", *model), 2)
    assert not list(tmp_path.iterdir())
