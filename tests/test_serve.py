"""The attention explorer (`typofix serve`, typofix/apps/serve.py) as a real server subprocess, asked over real HTTP:
its JSON API agrees with `Corrector.explain` (and /api/pronounce with `Pronouncer`), bad requests are one-line 4xx JSON errors that never stop it,
concurrent requests get the right answers, several models are served side by side, the CLI fails in one line
and stops cleanly on Ctrl-C, and the bundled model is served without importing torch."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from importlib import resources

import numpy as np
import pytest

from conftest import random_checkpoint
from tests.explorer import served
from tests.test_cli import one_line_error, typofix
from typofix.engine.corrector import Corrector
from typofix.engine.pronounce import Pronouncer
from typofix.files.modelfile import PRONOUNCER, bundled_onnx_path, resolve_model

needs_bundled_onnx = pytest.mark.skipif(not bundled_onnx_path().is_file(), reason="no bundled ONNX model yet")


def get(url: str) -> tuple[int, str, dict | str]:
    """(status, content type, JSON body or text) of a GET, errors included."""
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            status, kind, data = response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as err:
        status, kind, data = err.code, err.headers["Content-Type"], err.read()
    text = data.decode()
    return status, kind, json.loads(text) if kind.startswith("application/json") else text


def correct(base: str, query: str, **params) -> dict:
    status, _, body = get(f"{base}/api/correct?" + urllib.parse.urlencode({"q": query, **params}))
    assert status == 200, body
    return body


def assert_json_error(status: int, kind: str, body, code: int | tuple[int, ...]) -> None:
    assert status in (code if isinstance(code, tuple) else (code,)), body
    assert kind.startswith("application/json") and set(body) == {"error"} and body["error"]


@pytest.fixture(scope="module")
def bundled():
    """Base URL of `typofix serve` with the bundled (ONNX) model."""
    if not bundled_onnx_path().is_file():
        pytest.skip("no bundled ONNX model yet")
    with served() as (base, process):
        yield base
    assert process.returncode == 0 and "Traceback" not in process.stderr.read()


@needs_bundled_onnx
def test_correct_api_carries_the_models_attention(bundled):
    answer = correct(bundled, "recieve")
    corrector = Corrector.load(resolve_model())  # the model `typofix correct` runs
    expected = corrector.suggest_many(["recieve"], 5, attention=True)[0]  # with the attention, as the page asks
    assert all(s.attn is None for s in corrector.suggest("recieve", 5))  # which no other caller pays for
    [entry] = answer["words"]
    assert entry["input"] == "recieve" and entry["chars"] == list("recieve")
    [result] = entry["results"]
    assert [c["word"] for c in result["candidates"]] == [c.word for c in expected]
    assert result["candidates"][0]["word"] == "receive" and answer["models"][0]["corrected"] == "receive"
    for got, want in zip(result["candidates"], expected):
        assert got["score"] == pytest.approx(want.score, abs=1e-4)
        attn = np.array(got["attn"])  # (T, S): the word's characters then </s>, the input's characters
        assert attn.shape == (len(want.word) + 1, len("recieve")) == want.attn.shape
        np.testing.assert_allclose(attn, want.attn, atol=1e-5)
        assert got["out_chars"] == [*want.word, "</s>"]
    assert result["candidates"][0]["explanation"] == 'recieve -> receive  (swap at 4-5: "ie" -> "ei")'
    assert result["candidates"][0]["changes"] == [{"kind": "swap", "start": 3, "end": 5, "typed": "ie", "fix": "ei"}]
    assert len(correct(bundled, "recieve", k=2)["words"][0]["results"][0]["candidates"]) == 2


@needs_bundled_onnx
def test_a_sentence_gives_each_word_its_candidates(bundled):
    answer = correct(bundled, "Teh quick brwn fox, 42 times!")
    assert answer["models"][0]["corrected"] == "The quick brown fox, 42 times!"
    assert [w["input"] for w in answer["words"]] == ["Teh", "quick", "brwn", "fox", "times"]
    assert answer["words"][0]["results"][0]["candidates"][0]["word"] == "The"  # in the word's case
    assert correct(bundled, "42 :-)")["words"] == []  # no word to correct is no error


@needs_bundled_onnx
def test_the_explorer_ranks_as_the_command_line_does(bundled):
    """One model resolution, one ranking: the explorer's candidates for a word are `typofix correct --top-k 5
    --json`'s, word for word and score for score."""
    words = ["recieve", "Teh", "goverment", "house", "juse", "acommodate"]
    done = typofix("correct", "--top-k", "5", "--json", *words)
    assert done.returncode == 0, done.stderr
    cli = [json.loads(line) for line in done.stdout.decode().splitlines()]
    for word, line in zip(words, cli):
        [entry] = correct(bundled, word)["words"]
        [result] = entry["results"]
        assert line["input"] == word
        assert [c["word"] for c in result["candidates"]] == [c["word"] for c in line["candidates"]], word
        for got, want in zip(result["candidates"], line["candidates"]):
            assert got["score"] == pytest.approx(want["score"], abs=1e-4)


@needs_bundled_onnx
def test_page_models_and_embedding_map(bundled):
    status, kind, page = get(bundled + "/?q=recieve")
    assert status == 200 and kind.startswith("text/html") and '<script src="/static/app.js"' in page
    for name in ("app.js", "style.css"):
        status, _, text = get(f"{bundled}/static/{name}")
        assert status == 200 and text == resources.files("typofix.apps").joinpath("static", name).read_text()
    static = resources.files("typofix.apps").joinpath("static")
    for name in ("index.html", "app.js", "style.css"):  # offline: nothing is fetched from anywhere else
        urls = set(re.findall(r"https?://[^\s\"'`)]+", static.joinpath(name).read_text()))
        assert urls <= {"http://www.w3.org/2000/svg"}, (name, urls)
    assert get(bundled + "/api/models")[2] == {"models": [{"index": 0, "name": f"{resolve_model().name} (bundled)",
                                                           "attention": "additive"}]}
    answer = get(bundled + "/api/embeddings")[2]
    chart = answer["map"]
    assert chart["symbols"] == list("abcdefghijklmnopqrstuvwxyz'-")
    assert [s for s, c in zip(chart["symbols"], chart["classes"]) if c == "vowel"] == list("aeiou")
    assert np.array(chart["points"]).shape == (28, 2) and 0 < sum(chart["explained"]) <= 1


@needs_bundled_onnx
def test_bad_requests_get_one_line_json_errors_and_the_server_keeps_serving(bundled):
    for query, code in [("", 400), ("   ", 400), ("a" * 10_000, 400), ("a\x00b\x01", 400), ("\ud800", 400)]:
        path = "/api/correct?q=" + urllib.parse.quote(query, errors="surrogatepass")
        assert_json_error(*get(bundled + path), code)
    for path, code in [("/api/correct?q=%FF%FE", 400), ("/api/correct?q=teh&k=0", 400), ("/api/correct?q=teh&k=x", 400),
                       ("/api/correct?q=teh&model=1", 400), ("/api/embeddings?model=-1", 400),
                       ("/api/correct?" + "&".join(f"p{i}=1" for i in range(50)), 400), ("/nope", 404),
                       ("/static/../serve.py", 404), ("/static/%2e%2e/serve.py", 404)]:
        assert_json_error(*get(bundled + path), code)
    host = urllib.parse.urlsplit(bundled).netloc
    for method, path in [("GET", "/../../etc/passwd"), ("GET", "//etc/passwd"), ("POST", "/api/correct?q=teh")]:
        connection = http.client.HTTPConnection(host, timeout=60)
        connection.request(method, path)  # as written: urllib would not send the dots
        response = connection.getresponse()
        data = response.read()
        assert 400 <= response.status < 500 and data.count(b"\n") == 1 and "error" in json.loads(data)
        connection.close()
    with socket.create_connection(urllib.parse.urlsplit(bundled)[1].split(":"), timeout=60) as raw:  # not HTTP
        raw.sendall(b"\x00\xff\xfe binary junk \x01\x02\r\n\r\n")
        reply = raw.makefile("rb").read()
    head, _, data = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/") and b" 400 " in head.split(b"\r\n")[0] and data.count(b"\n") == 1
    assert correct(bundled, "teh")["models"][0]["corrected"] == "the"  # still serving


@needs_bundled_onnx
def test_pronounce_api_is_the_letter_to_phone_models_answer(bundled):
    """/api/pronounce answers what `typofix pronounce --model-only --top-k K --json` prints, with each
    pronunciation's attention over the letters read and its rows named in ARPAbet; CMUdict's listed beside."""
    answer = get(bundled + "/api/pronounce?" + urllib.parse.urlencode({"q": "recieve, Colonel!", "k": 3}))[2]
    pronouncer = Pronouncer.load(resolve_model(None, PRONOUNCER))  # the file `typofix pronounce` runs
    done = typofix("pronounce", "--model-only", "--top-k", "3", "--json", "recieve", "Colonel")
    cli = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert answer["model"] == f"{resolve_model(None, PRONOUNCER).name} (bundled)" and answer["k"] == 3
    assert [w["input"] for w in answer["words"]] == ["recieve", "Colonel"]
    assert [w["listed"] for w in answer["words"]] == [[], ["K ER N AH L"]]
    for entry, line, expected in zip(answer["words"], cli, pronouncer.pronounce_many(["recieve", "colonel"], 3)):
        assert entry["chars"] == list(entry["input"].lower())
        assert [p["phones"] for p in entry["pronunciations"]] == [p["phones"] for p in line["pronunciations"]] \
            == [p.arpabet for p in expected]
        for got, want in zip(entry["pronunciations"], expected):
            assert got["score"] == pytest.approx(want.score, abs=1e-4)
            assert got["out_chars"] == [*want.arpabet.split(), "</s>"]
            np.testing.assert_allclose(np.array(got["attn"]), want.attn, atol=1e-5)  # (T, S): phones + </s>, letters
    assert get(bundled + "/api/pronounce?q=42")[2]["words"] == []  # no word to pronounce is no error
    for path in ["/api/pronounce?q=", "/api/pronounce?q=fone&k=0", "/api/pronounce?q=fone&k=11",
                 "/api/pronounce?q=" + "a" * 400]:
        assert_json_error(*get(bundled + path), 400)


@needs_bundled_onnx
def test_twenty_concurrent_requests_get_their_own_answers(bundled):
    words = ["recieve", "teh", "speling", "definately", "acommodate", "wierd", "goverment", "beleive", "adress",
             "untill", "tommorow", "seperate", "occured", "truely", "wich", "becuase", "freind", "neccessary",
             "calender", "existance"]
    expected = {w: correct(bundled, w) for w in words}  # one at a time first
    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(lambda w: correct(bundled, w), words))
    assert answers == [expected[w] for w in words]
    assert len({a["words"][0]["results"][0]["candidates"][0]["word"] for a in answers}) == 20


def test_several_models_side_by_side(tiny_ckpt, tmp_path):
    from typofix.training.export import export

    tiny_onnx = tmp_path / "tiny.onnxz"
    export(tiny_ckpt, tiny_onnx)
    with served("--model", str(tiny_ckpt), "--model", str(tiny_onnx)) as (base, process):
        models = get(base + "/api/models")[2]["models"]
        assert [m["name"] for m in models] == [str(tiny_ckpt), str(tiny_onnx)]
        assert models[0]["attention"] == models[1]["attention"] is not None
        answer = correct(base, "speling teh")
        assert [m["index"] for m in answer["models"]] == [0, 1]
        for entry in answer["words"]:
            torch_result, onnx_result = entry["results"]
            assert [c["word"] for c in torch_result["candidates"]] == [c["word"] for c in onnx_result["candidates"]]
            for a, b in zip(torch_result["candidates"], onnx_result["candidates"]):
                np.testing.assert_allclose(a["attn"], b["attn"], atol=5e-3)  # fp32 checkpoint vs fp16 export
        assert [r["model"] for r in correct(base, "teh", model=1)["words"][0]["results"]] == [1]
        # The same embedding map from the checkpoint (torch) and from the export's embeddings.npy.
        maps = [get(f"{base}/api/embeddings?model={i}")[2]["map"] for i in (0, 1)]
        assert maps[0]["symbols"] == maps[1]["symbols"]
        # PCA may flip an axis's sign between the fp32 and the fp16 weights.
        np.testing.assert_allclose(np.abs(maps[0]["points"]), np.abs(maps[1]["points"]), atol=1e-2)
    assert process.returncode == 0, process.stderr.read()


def test_models_of_other_attention_kinds(tmp_path):
    dot, none = random_checkpoint(tmp_path / "dot.ckpt", "dot"), random_checkpoint(tmp_path / "none.ckpt", "none")
    with served("--model", str(dot), "--model", str(none)) as (base, process):
        assert [m["attention"] for m in get(base + "/api/models")[2]["models"]] == ["dot", "none"]
        dot_result, none_result = correct(base, "recieve")["words"][0]["results"]
        for candidate in dot_result["candidates"]:
            attn = np.array(candidate["attn"])
            assert attn.shape == (len(candidate["word"]) + 1, 7)
            np.testing.assert_allclose(attn.sum(axis=1), 1.0, atol=1e-4)  # each output step's weights
        assert none_result["candidates"] and all(c["attn"] is None for c in none_result["candidates"])
    assert process.returncode == 0, process.stderr.read()


@pytest.mark.slow
def test_cli_errors_are_one_line(tmp_path, tiny_ckpt):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert "cannot listen on 127.0.0.1:" in one_line_error(typofix("serve", "--model", str(tiny_ckpt), "--port",
                                                                       str(port)), 2)
    one_line_error(typofix("serve", "--model", str(tmp_path / "missing.onnxz")), 1)
    one_line_error(typofix("serve", "--model", str(tiny_ckpt), "--pronounce-model", str(tmp_path / "no.onnxz")), 1)
    assert "not a letter-to-phone model" in one_line_error(typofix("serve", "--model", str(tiny_ckpt),
                                                                   "--pronounce-model", str(tiny_ckpt)), 1)
    (tmp_path / "junk.onnxz").write_bytes(b"PK\x03\x04 junk")
    one_line_error(typofix("serve", "--model", str(tiny_ckpt), "--model", str(tmp_path / "junk.onnxz")), 1)
    one_line_error(typofix("serve", "--port", "70000"), 2)
    one_line_error(typofix("serve", "--port", "http"), 2)


SERVE_THEN_CHECK_TORCH = """
import json, sys, threading, time, urllib.request
from typofix.apps.cli import main
base = f"http://127.0.0.1:{sys.argv[1]}"
threading.Thread(target=main, args=(["serve", "--port", sys.argv[1]],), daemon=True).start()
for _ in range(1200):
    try:
        answer = json.loads(urllib.request.urlopen(base + "/api/correct?q=recieve", timeout=60).read())
        break
    except OSError:
        time.sleep(0.1)
chart = json.loads(urllib.request.urlopen(base + "/api/embeddings", timeout=60).read())["map"]
sound = json.loads(urllib.request.urlopen(base + "/api/pronounce?q=fone", timeout=60).read())["words"][0]
print(answer["words"][0]["results"][0]["candidates"][0]["word"], len(chart["points"]), bool(sound["pronunciations"]),
      "torch" in sys.modules)
"""


@needs_bundled_onnx
def test_serve_never_imports_torch_with_the_onnx_model():
    with socket.socket() as probe:  # a free port for the in-process server
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = subprocess.run([sys.executable, "-c", SERVE_THEN_CHECK_TORCH, str(port)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "receive 28 True False"
