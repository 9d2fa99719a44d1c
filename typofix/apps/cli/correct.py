"""`typofix correct`: words on the command line, or text from stdin or a file, streamed."""

from __future__ import annotations

import argparse
import io
import os
import shutil
import stat
import sys
from collections import deque

from typofix.apps.cli.options import (add_jobs_option, add_model_options, add_real_words_option, add_words_option,
                                      json_line, load_corrector, positive_int, recipe)
from typofix.files.exits import OK, UsageError, fail, whole_writes
from typofix.files.sniff import SNIFF, is_binary_data

# What --real-words needs (its help and its error say the same): its reports are a field of the JSON records.
REAL_WORDS_NEED = "--json and text (- or --file), one job"


def add(subcommands) -> None:
    parser = subcommands.add_parser(
        "correct", help="correct words, or text from stdin or a file",
        description="Correct the given words (one per line out, in order), or text: `-` reads stdin, --file F "
                    "reads F, and the text comes back with only its misspelled words changed.")
    parser.add_argument("words", nargs="*", metavar="WORD", help="words to correct, or - for text on stdin")
    parser.add_argument("--file", metavar="F", help="correct the text of file F (streamed)")
    parser.add_argument("--top-k", type=positive_int, default=1, metavar="K", help="K candidates per word")
    parser.add_argument("--json", action="store_true", help="JSON lines: input and candidates with scores "
                        "(for text: input line and corrected line; with --explain: each change's start and end, "
                        "offsets from 0, end excluded)")
    parser.add_argument("--explain", action="store_true", help="say where each word's typo is and what the "
                        'correction changes, positions from 1 as check\'s columns: recieve -> receive  (swap at '
                        '4-5: "ie" -> "ei")')
    add_jobs_option(parser, "text from - or --file")
    add_real_words_option(parser, needs=REAL_WORDS_NEED)
    add_words_option(parser)
    add_model_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    text_mode = args.file is not None or args.words == ["-"]
    if args.file is not None and args.words:
        raise UsageError("give words or --file, not both")
    if not text_mode and not args.words:
        raise UsageError("nothing to correct: give words, - for stdin, or --file F")
    if not text_mode and "-" in args.words:
        raise UsageError("- (read stdin) cannot be mixed with words")
    if text_mode and args.top_k != 1:
        raise UsageError("--top-k applies to words, not to text (- or --file)")
    if args.explain and (text_mode or args.top_k != 1):
        raise UsageError("--explain explains the best correction of words: not with -, --file or --top-k")
    if args.jobs > 1 and not text_mode:
        raise UsageError("--jobs applies to text (- or --file), not to words on the command line")
    if args.real_words and not (text_mode and args.json and args.jobs == 1):
        raise UsageError(f"--real-words reports in JSON lines: it needs {REAL_WORDS_NEED}")
    if text_mode:
        source = open_text(args.file)  # before the model: a missing file is reported at once
        # (SIGTERM and SIGHUP end the stream as Ctrl-C does, output flushed in whole lines: `typofix.apps.cli.main`)
        with source:
            if is_binary(source):
                return pass_through(source, args)
            masked = read_masked(args.file, source)
            if args.jobs > 1:
                from typofix.engine.jobs import CorrectorPool

                with CorrectorPool(recipe(args), args.jobs) as pool:
                    if masked is None:
                        correct_stream(pool.correct_many, source, sys.stdout, args.json, interactive=False)
                    else:
                        correct_masked(pool.corrections_many, *masked, sys.stdout, args.json)
            else:
                from typofix.engine.detector import DocumentVocabulary

                corrector = load_corrector(args)
                document = DocumentVocabulary()  # the stream is one document, read batch by batch
                real_words = corrector.real_word_errors if args.real_words else None
                if masked is None:
                    correct_stream(lambda batches: (corrector.correct_many(batch, document) for batch in batches),
                                   source, sys.stdout, args.json, interactive=source.isatty(), real_words=real_words)
                else:
                    correct_masked(lambda batches: (corrector.corrections_many(batch, document) for batch in batches),
                                   *masked, sys.stdout, args.json, real_words)
        return OK
    corrector = load_corrector(args)
    if args.explain:
        return explain(corrector, args.words, args.json)
    if args.top_k == 1 and not args.json:
        for line in corrector.correct_many(args.words):
            print(line)
        return OK
    for word, ranked in zip(args.words, corrector.suggest_many(args.words, args.top_k)):
        if args.json:
            print(json_line({"input": word, "candidates": [s.as_json() for s in ranked]}))
        else:
            print(f"{word}\t" + "\t".join(f"{s.word} ({s.score:.3f})" for s in ranked))
    return OK


def explain(corrector, words: list[str], as_json: bool) -> int:
    """Per word, the correction `correct` gives and where it changes the word (typofix.engine.explain)."""
    from dataclasses import asdict

    from typofix.engine.explain import changes, describe

    for word, fixed in zip(words, corrector.correct_many(words)):
        if as_json:
            print(json_line({"input": word, "output": fixed, "changes": [asdict(c) for c in changes(word, fixed)]}))
        else:
            print(describe(word, fixed))
    return OK


def read_masked(path: str | None, source) -> tuple[str, str] | None:
    """For a file in a language with code or markup (a program, Markdown, reST, LaTeX, a man page: as `check`
    reads it), its text and what of it a correction may be written into (`text_to_correct`); None, the source
    left unread, for standard input, plain text (told by its name and first line), and anything but a regular
    file of at most `STREAM` bytes (a pipe, a big file: streamed as plain text)."""
    from typofix.apps.check.reader import STREAM, is_plain_text, text_to_correct

    if path is None:
        return None
    status = os.fstat(source.fileno())
    if not stat.S_ISREG(status.st_mode) or status.st_size > STREAM:
        return None
    if is_plain_text(path, source.buffer.peek(SNIFF)[:SNIFF].decode("utf-8", "surrogateescape")):
        return None
    text = source.read()
    return text, text_to_correct(path, text)


def correct_masked(corrections_batches, text: str, masked: str, out, as_json: bool, real_words=None) -> None:
    """Correct a file's text where it is text: its `masked` copy (code and markup blanked, the same length and
    lines) is read in chunks and corrected (`corrections_batches` maps batches of texts to their corrections:
    a corrector's `corrections_many`, or a pool's), and each correction is written into the file's own text at
    its place, so code, markup, math and code blocks come out as they went in. `real_words` as in
    `correct_stream`, asked of the masked text."""
    from typofix.words.text import read_chunks

    chunks, offset = [], 0  # (the file's text, its masked copy, literal) of each chunk of the masked text
    for chunk, literal in read_chunks(io.StringIO(masked, newline="").readline):
        chunks.append((text[offset:offset + len(chunk)], chunk, literal))
        offset += len(chunk)
    # the masked copies of the texts to correct, in order: the batches are made, corrected and written in order
    to_correct, to_report = (deque(mask for _, mask, literal in chunks if not literal) for _ in range(2))

    def corrected(batches):
        held = deque()

        def masked_batches():
            for batch in batches:
                held.append(batch)
                yield [to_correct.popleft() for _ in batch]

        for found in corrections_batches(masked_batches()):
            yield [_applied(original, changes) for original, changes in zip(held.popleft(), found)]

    suspects = None if real_words is None else lambda texts: real_words([to_report.popleft() for _ in texts])
    correct_stream(corrected, None, out, as_json, interactive=False, real_words=suspects,
                   chunks=[(original, literal) for original, _, literal in chunks])


def _applied(text: str, changes) -> str:
    """`text` with each of `changes` (`Correction`s, in text order) written in."""
    for change in reversed(changes):
        text = text[:change.start] + change.after + text[change.end:]
    return text


def open_text(path: str | None):
    """The text source: stdin or a file, read as UTF-8 with undecodable bytes carried through unchanged
    (surrogateescape) and line endings as they are (newline=""). UsageError, one line, for what cannot be read:
    a folder, a missing or unreadable file, no stdin."""
    try:
        raw = open(0 if path is None else path, "rb", closefd=path is not None)  # 0: stdin (None if closed)
    except OSError as err:
        raise UsageError(f"cannot read {'stdin' if path is None else path}: {err.strerror or err}") from None
    return io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline="")


def is_binary(source) -> bool:
    """A NUL byte in the first 8 KiB: an executable, an image, an archive, never text to correct (the words
    inside one would be rewritten, and the file broken). A person typing is not (nor waited for here)."""
    return not source.isatty() and is_binary_data(source.buffer.peek(SNIFF))


def pass_through(source, args: argparse.Namespace) -> int:
    """Binary input comes back byte for byte, as a filter in a pipeline must give it, with a note on stderr;
    JSON lines, which describe text, refuse it."""
    name = "stdin" if args.file is None else args.file
    if args.json:
        raise UsageError(f"{name} is binary (a NUL byte in its first {SNIFF // 1024} KiB): --json describes text")
    fail("typofix", f"{name} is binary (a NUL byte in its first {SNIFF // 1024} KiB): passed through unchanged",
         OK, label="note")
    shutil.copyfileobj(source.buffer, sys.stdout.buffer)
    sys.stdout.buffer.flush()
    return OK


def correct_stream(correct_batches, source, out, as_json: bool, interactive: bool, real_words=None,
                   chunks=None) -> None:
    """Correct a text stream in bounded batches of chunks (one chunk at a time when a person is typing).
    `correct_batches` maps an iterable of batches (lists of texts) to their corrections, in order: one
    corrector's `correct_many`, or a `CorrectorPool`'s. `real_words` (a corrector's `real_word_errors`) adds
    each JSON record's "real_words". `chunks`: the (text, literal) chunks, read already, instead of `source`'s."""
    from typofix.words.text import read_chunks

    held: deque[list[tuple[str, bool]]] = deque()  # batches read, waiting for their corrections

    def batches():
        batch, size = [], 0
        for chunk in read_chunks(source.readline) if chunks is None else chunks:
            batch.append(chunk)
            size += len(chunk[0])
            if interactive or size >= (1 << 16) or len(batch) >= 512:
                held.append(batch)
                yield [text for text, literal in batch if not literal]
                batch, size = [], 0
        held.append(batch)
        yield [text for text, literal in batch if not literal]

    # Whole lines only: a batch's unended last line waits for the rest of it, so output stopped at any moment (a
    # signal, a closed pipe) never ends inside a line. (Batches end with a line but for lines over 64 KiB.)
    unended = ""
    for corrected in correct_batches(batches()):
        text = unended + render_batch(held.popleft(), corrected, as_json, real_words)
        cut = text.rfind("\n") + 1
        with whole_writes():  # (a stop waits for the write: a full pipe would have it cut the write short)
            out.write(text[:cut])
            out.flush()
        unended = text[cut:]
    with whole_writes():
        out.write(unended)
        out.flush()


def render_batch(batch: list[tuple[str, bool]], corrected: list[str], as_json: bool, real_words=None) -> str:
    """A batch's output: its chunks corrected, or one JSON record per chunk."""
    corrected = iter(corrected)
    suspects = iter(real_words([text for text, literal in batch if not literal]) if real_words else ())
    parts = []
    for text, literal in batch:
        fixed = text if literal else next(corrected)
        if as_json:
            record = {"input": text, "output": fixed}
            if real_words is not None:
                record["real_words"] = [] if literal else [{"offset": c.start, "word": c.before, "likelier": c.after}
                                                           for c in next(suspects)]
            parts.append(json_line(record) + "\n")
        else:
            parts.append(fixed)
    return "".join(parts)
