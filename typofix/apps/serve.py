"""The attention explorer (`typofix serve`): a small local web app that shows the model correcting a word.

The page (`typofix/apps/static/`: one HTML file, one stylesheet and one short script of ours; no CDN, no build
step) asks this server's JSON API and draws what it answers as SVG:

* `GET /api/models`: the models served, [{"index", "name", "attention"}];
* `GET /api/correct?q=TEXT[&model=I][&k=K]`: the text as `typofix correct` corrects it, and for each of its
  words (`typofix.words.text.split_text`) and each model (or model I alone) the K best candidates, those of
  `typofix correct --top-k K` (`Corrector.suggest_many`): word, score, the changes of `typofix.engine.explain`, and
  the attention weights (T, S), T the characters written then the end of the word, S the characters read;
* `GET /api/embeddings?model=I`: the model's encoder character embeddings on their first two principal
  components (`typofix.insight.charmap`), as `typofix plot-embeddings` draws them;
* `GET /api/pronounce?q=TEXT[&k=K]`: for each word of the text, the letter-to-phone model's K likeliest
  pronunciations, those of `typofix pronounce --model-only --top-k K` (`Pronouncer.pronounce_many`): phones in
  ARPAbet, score, and the attention weights (T, S), T the phones written then the end of the word (`out_chars`,
  named in ARPAbet), S the letters read (`chars`); and the pronunciations CMUdict lists for it (`listed`).

`/?q=recieve&model=I` opens the page with that word corrected, `/?q=recieve&view=pronounce` with it pronounced. A bad request (empty, over-long or binary
query, unknown path or parameter) gets a 4xx status and one line of JSON, {"error": "..."}.

The standard library's `ThreadingHTTPServer` serves it: five routes, GET only, no sessions and no templates
need no framework, and a dependency would be one more thing to install, pin and audit for an app that must run
offline. Each model's corrector answers one request at a time (a lock): a decode is CPU-bound and the GIL
would serialise it anyway. With the bundled ONNX model nothing here imports torch: its embeddings come from
the .onnxz itself; only a .pt / .ckpt model reads them through `typofix.nn.checkpoint` (torch, which that model's
corrector imports anyway).
"""

from __future__ import annotations

import json
import signal
import socket
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qs

import numpy as np

from typofix import __version__
from typofix.insight.charmap import char_class, project
from typofix.engine.corrector import Corrector
from typofix.engine.pronounce import Pronouncer, Pronunciation
from typofix.engine.results import Suggestion
from typofix.files.modelfile import PRONOUNCER, resolve_model
from typofix.files.userwords import user_words
from typofix.insight.embeddings import read_embeddings
from typofix.words.phones import Pronunciations, phone_labels, to_arpabet
from typofix.words.text import split_text
from typofix.words.vocab import Vocab

MAX_QUERY = 300  # characters: a sentence, not a document
MAX_WORDS = 20
DEFAULT_K, MAX_K = 5, 10
# path -> (file in typofix/apps/static, content type); nothing else on disk is ever read for a request.
PAGES = {"/": ("index.html", "text/html; charset=utf-8"),
         "/index.html": ("index.html", "text/html; charset=utf-8"),
         "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
         "/static/style.css": ("style.css", "text/css; charset=utf-8")}
# Only our own files: no inline script, nothing fetched from elsewhere.
SECURITY_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
                    "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


class BadRequest(Exception):
    """A request the API refuses: its HTTP status and a one-line reason."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class ServedModel:
    """One served model: its name on the page, its corrector (one request at a time: `lock`), its attention
    kind, and its embedding map (None when the file has no embeddings to read)."""

    name: str
    corrector: Corrector
    attention: str | None
    embedding_map: dict | None
    lock: threading.Lock


def load_model(path: str | None) -> ServedModel:
    """The model at `path` (None: the bundled one, the file `typofix correct` runs), with its embedding map."""
    file = resolve_model(path)
    corrector = Corrector.load(file, user_words=user_words())  # the personal list, as every front door reads it
    hparams, _, matrix = read_embeddings(file)
    name = path if path else f"{file.name} (bundled)"
    return ServedModel(name, corrector, hparams.get("attention"), _embedding_map(matrix, corrector.vocab),
                       threading.Lock())


def _embedding_map(matrix: np.ndarray | None, vocab: Vocab) -> dict | None:
    """The alphabet's rows of `matrix` on two principal components (the specials' rows are padding or never
    trained: noise on the map), as `plots.plot_embeddings` projects them."""
    if matrix is None:
        return None
    symbols = list(vocab.alphabet)
    points, explained = project(matrix[vocab.encode(vocab.alphabet)], symbols)  # (A, 2), (2,)
    return {"symbols": symbols, "classes": [char_class(s) for s in symbols],
            "points": np.round(points, 5).tolist(), "explained": np.round(explained, 5).tolist()}


@dataclass
class ServedPronouncer:
    """The letter-to-phone model served (`typofix pronounce`'s): its name on the page, one request at a time."""

    name: str
    pronouncer: Pronouncer
    lock: threading.Lock


def load_pronouncer(path: str | None) -> ServedPronouncer:
    """The letter-to-phone model at `path` (None: the bundled one, the file `typofix pronounce` runs)."""
    file = resolve_model(path, PRONOUNCER)
    return ServedPronouncer(path if path else f"{file.name} (bundled)", Pronouncer.load(file), threading.Lock())


class Explorer:
    """The models served and the JSON API's answers (plain dicts, ready for `json.dumps`)."""

    def __init__(self, models: list[ServedModel], pronouncer: ServedPronouncer | None = None):
        self.models, self.pronouncer = models, pronouncer

    @classmethod
    def load(cls, paths: list[str | None], pronouncer: str | None = None) -> "Explorer":
        return cls([load_model(path) for path in paths], load_pronouncer(pronouncer))

    def list_models(self) -> dict:
        return {"models": [{"index": i, "name": m.name, "attention": m.attention} for i, m in enumerate(self.models)]}

    def correct(self, query: str, model: int | None = None, k: int = DEFAULT_K) -> dict:
        """The corrected text and, per word and model, the `k` best candidates with their attention."""
        words = list(dict.fromkeys(p.text for p in split_text(query) if p.word))
        if len(words) > MAX_WORDS:
            raise BadRequest(400, f"too many words: {len(words)} (at most {MAX_WORDS})")
        picked = range(len(self.models)) if model is None else [model]
        answer = {"query": query, "k": k, "models": [], "words": [{"input": w, "chars": list(w.lower()), "results": []}
                                                                  for w in words]}
        for index in picked:
            served = self.models[index]
            with served.lock:
                corrected = served.corrector.correct_each([query])[0]  # each request a document of its own
                # What `typofix correct --top-k K` gives for each word, with the attention of each candidate.
                explained = served.corrector.suggest_many(words, k, attention=True)
            answer["models"].append({"index": index, "name": served.name, "corrected": corrected})
            eos = served.corrector.vocab.symbols[served.corrector.vocab.eos_id]
            for entry, candidates in zip(answer["words"], explained):
                entry["results"].append({"model": index, "candidates": [_candidate(c, eos) for c in candidates]})
        return answer

    def pronounce(self, query: str, k: int = DEFAULT_K) -> dict:
        """Per word of the text, the model's `k` likeliest pronunciations with their attention, and CMUdict's."""
        if self.pronouncer is None:
            raise BadRequest(404, "no letter-to-phone model is served")
        served = self.pronouncer
        words = list(dict.fromkeys(p.text for p in split_text(query) if p.word))
        if len(words) > MAX_WORDS:
            raise BadRequest(400, f"too many words: {len(words)} (at most {MAX_WORDS})")
        with served.lock:
            found = served.pronouncer.pronounce_many(words, k)
            letters = [served.pronouncer.readable(w) for w in words]
            eos = served.pronouncer.vocab.symbols[served.pronouncer.vocab.eos_id]
        listed = Pronunciations.bundled()
        return {"query": query, "k": k, "model": served.name,
                "words": [{"input": word, "chars": list(read), "listed": [to_arpabet(p) for p in listed.of(read)],
                           "pronunciations": [_pronunciation(p, eos) for p in ranked]}
                          for word, read, ranked in zip(words, letters, found)]}

    def embeddings(self, model: int) -> dict:
        served = self.models[model]
        return {"model": model, "name": served.name, "embedding": "encoder", "map": served.embedding_map}


def _candidate(suggestion: Suggestion, eos: str) -> dict:
    """A suggestion with its evidence, and the characters its attention rows (T, S) belong to: its own and EOS."""
    record = suggestion.as_json(digits=5, evidence=True)
    attn = record.pop("attn")
    return {**record, "out_chars": [*suggestion.word, eos], "attn": attn}


def _pronunciation(pronunciation: Pronunciation, eos: str) -> dict:
    """A pronunciation with its attention (T, S) and the ARPAbet names of its rows: its phones and EOS."""
    attn = None if pronunciation.attn is None else np.round(np.asarray(pronunciation.attn, dtype=float), 6).tolist()
    return {"phones": pronunciation.arpabet, "score": round(pronunciation.score, 5),
            "out_chars": [*phone_labels(pronunciation.phones), eos], "attn": attn}


# --- HTTP ----------------------------------------------------------------------------------------------------


def _params(query: str) -> dict[str, str]:
    try:
        fields = parse_qs(query, keep_blank_values=True, errors="strict", max_num_fields=8)
    except UnicodeDecodeError:
        raise BadRequest(400, "the query is not UTF-8 text") from None
    except ValueError:
        raise BadRequest(400, "too many query parameters") from None
    return {key: values[-1] for key, values in fields.items()}


def _text(params: dict[str, str]) -> str:
    text = params.get("q", "")
    if not text.strip():
        raise BadRequest(400, "empty query: give a word or a sentence, e.g. /api/correct?q=recieve")
    if len(text) > MAX_QUERY:
        raise BadRequest(400, f"query too long: {len(text)} characters (at most {MAX_QUERY})")
    if not "".join(" " if c.isspace() else c for c in text).isprintable():
        raise BadRequest(400, "the query holds control characters or binary data, not text")
    return text


def _number(params: dict[str, str], name: str, low: int, high: int, default: int | None) -> int | None:
    value = params.get(name, "")
    if value == "":
        return default
    if not (value.isascii() and value.isdigit() and low <= int(value) <= high):
        raise BadRequest(400, f"{name} must be a whole number from {low} to {high}, got {value[:20]!r}")
    return int(value)


def _model(explorer: Explorer, params: dict[str, str], default: int | None) -> int | None:
    return _number(params, "model", 0, len(explorer.models) - 1, default)


API = {
    "/api/models": lambda explorer, params: explorer.list_models(),
    "/api/correct": lambda explorer, params: explorer.correct(_text(params), _model(explorer, params, None),
                                                              _number(params, "k", 1, MAX_K, DEFAULT_K)),
    "/api/embeddings": lambda explorer, params: explorer.embeddings(_model(explorer, params, 0)),
    "/api/pronounce": lambda explorer, params: explorer.pronounce(_text(params), _number(params, "k", 1, MAX_K,
                                                                                         DEFAULT_K)),
}


class _Handler(BaseHTTPRequestHandler):
    """GET (and HEAD) of the page's files and the API; every error is one line of JSON."""

    server_version = f"typofix/{__version__}"

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        query = query.partition("#")[0]
        try:
            if path in PAGES:
                name, kind = PAGES[path]
                self._send(200, self.server.pages[name], kind)
            elif path in API:
                self._json(200, API[path](self.server.explorer, _params(query)))
            else:
                raise BadRequest(404, f"not found: {path[:80]!r} (the page is /, the API /api/correct?q=WORD)")
        except BadRequest as err:
            self._json(err.status, {"error": str(err)})

    do_HEAD = do_GET

    def _refuse(self) -> None:
        self._json(405, {"error": f"method {self.command} not allowed: this app answers GET only"})

    do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _refuse

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's own errors (a malformed request line, a URI over 64 KiB) as JSON too."""
        self.close_connection = True
        if self.request_version == "HTTP/0.9":  # not even a request line: answer with a status line all the same
            self.request_version = "HTTP/1.0"
        self._json(code, {"error": message or self.responses.get(code, ("error",))[0]})

    def _json(self, status: int, body: dict) -> None:
        # No indent, and json escapes newlines inside strings: always exactly one line.
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"
        self._send(status, data.encode(), "application/json; charset=utf-8")

    def _send(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for header, value in SECURITY_HEADERS.items():
            self.send_header(header, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def log_message(self, format: str, *args) -> None:
        """Quiet: the terminal shows the address and errors, not every request."""


class ExplorerServer(ThreadingHTTPServer):
    """The HTTP server of one Explorer: a thread per request, the page's files read once."""

    daemon_threads = True  # Ctrl-C never waits for a request in flight
    request_queue_size = 64  # many concurrent connections queue rather than being refused

    def __init__(self, explorer: Explorer, host: str, port: int):
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.explorer = explorer
        static = resources.files("typofix.apps").joinpath("static")
        self.pages = {name: static.joinpath(name).read_bytes() for name, _ in PAGES.values()}
        super().__init__((host, port), _Handler)

    def handle_error(self, request, client_address) -> None:
        """One line on stderr, never a traceback; a client that hung up is no error at all."""
        err = sys.exc_info()[1]
        if not isinstance(err, (BrokenPipeError, ConnectionResetError)):
            print(f"typofix serve: error answering {client_address[0]}: {type(err).__name__}: {err}", file=sys.stderr)


def main(models: list[str | None], host: str = "127.0.0.1", port: int = 8000, pronouncer: str | None = None) -> int:
    """Load the models (and the letter-to-phone model), listen on host:port (0: any free port), print the
    address, serve until Ctrl-C/SIGTERM."""
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be from 0 to 65535, got {port}")
    explorer = Explorer.load(models, pronouncer)
    try:
        server = ExplorerServer(explorer, host, port)
    except OSError as err:
        raise OSError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops as cleanly as Ctrl-C
    with server:
        address, bound = server.server_address[:2]
        shown = f"[{address}]" if ":" in address else address
        print(f"typofix serve: http://{shown}:{bound}/ ({', '.join(m.name for m in explorer.models)}); "
              "Ctrl-C stops", flush=True)
        if host not in ("127.0.0.1", "::1", "localhost"):
            print(f"typofix serve: note: listening on {host}, not only this machine: anyone who reaches it can use "
                  "the page", file=sys.stderr, flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    print("typofix serve: stopped", flush=True)
    return 0


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt
