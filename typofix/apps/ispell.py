"""`typofix-ispell`: typofix behind the Ispell `-a` pipe protocol, as `aspell -a` speaks it, so that editors and
tools that drive ispell or aspell (Emacs ispell/flyspell, Vim's and others' spell plug-ins) use typofix unchanged.

The protocol, one input line at a time (answers flushed at once):

* the banner on start: `@(#) International Ispell Version 3.1.20 (but really typofix X)`;
* a text line (or `^` + text, which never reads as a command): per word, `*` when it is correct, `& word count
  offset: s1, s2, ...` when it is misspelled (its correction first), `# word offset` when there is nothing to
  offer; then an empty line. Offsets are 0-based characters from the start of the line as aspell counts them:
  the `^` of an escaped line included (`^teh` answers `& teh 6 1: the, ...`; Emacs relies on it);
* `!` terse mode (correct words get no line), `%` back to verbose;
* `@word` accept the word for this session; `*word` add it to the personal list, `&word` add it in lower
  case; `#` save the personal list (atomically): the `-p FILE`, else typofix's own personal list;
* `~...`, `+...`, `-`, `$$...` (formatter modes, aspell extensions): accepted, nothing to say.

What is a word, and which words are correct, is what `typofix correct` uses: `typofix.words.text.split_text` (URLs,
numbers, acronyms, code and the other special tokens are never reported) and `Corrector.is_accepted` (the
acceptance dictionary, the personal list, the --words files, the words accepted in this session).

Options clients pass: `-a` (this mode; also the default), `-l` (list the misspelled words of stdin, one a line),
`-v`/`-vv` (the banner, then exit), `-d DICT`, `-m`, `-B`, `-C`, `-S`, `-t`, `-n`, `-H`, `-o`, `--encoding=...`
(accepted; typofix has one English dictionary and reads and writes UTF-8), `-p FILE` (a personal list read at
start and saved by `#`), `--words FILE` (typofix's word lists), `--fast`. Others are ignored with a note on
stderr. Exit codes as `typofix`: 1 model error, 2 bad usage or a bad word list, each a one-line error.
"""

from __future__ import annotations

import sys
from pathlib import Path

from typofix import __version__
from typofix.files.exits import UsageError, run_command

BANNER = f"@(#) International Ispell Version 3.1.20 (but really typofix {__version__})"
SUGGESTIONS = 10
_WITH_VALUE = {"-d", "-p", "-w", "-T", "-W", "-L", "-f", "--words"}  # options whose value may be the next argument
_QUIET = {"-a", "-m", "-B", "-C", "-S", "-t", "-n", "-H", "-o", "-x", "-P", "-s", "-k", "-b"}


class Options:
    """What the command line asked for."""

    def __init__(self) -> None:
        self.mode = "pipe"  # pipe (-a), list (-l) or version (-v)
        self.personal: Path | None = None  # -p FILE
        self.word_files: list[str] = []
        self.fast = False
        self.notes: list[str] = []


def parse_args(argv: list[str]) -> Options:
    """Ispell-style options: flags may be glued to their value (-dEN, -pFILE) or followed by it."""
    options = Options()
    args = iter(argv)
    for arg in args:
        flag, glued = (arg.split("=", 1) + [None])[:2] if arg.startswith("--") else (arg[:2], arg[2:] or None)
        if arg in ("-v", "-vv", "--version"):
            options.mode = "version"
        elif arg == "-l":
            options.mode = "list"
        elif arg == "--fast":
            options.fast = True
        elif arg.startswith("--encoding") or arg.startswith("--lang") or arg.startswith("--sug-mode"):
            continue
        elif flag in _WITH_VALUE:
            value = glued if glued is not None else next(args, None)
            if value is None:
                raise UsageError(f"option {flag} needs a value")
            if flag == "-p":
                options.personal = Path(value)
            elif flag == "--words":
                options.word_files.append(value)
        elif arg in _QUIET:
            continue
        else:
            options.notes.append(f"typofix-ispell: note: ignoring option {arg!r}")
    return options


class Session:
    """One pipe session: a corrector, the terse flag and the personal list being built."""

    def __init__(self, corrector, personal_path: Path, personal_words: list[str]):
        self.corrector = corrector
        self.terse = False
        self.personal_path = personal_path
        self.personal = list(personal_words)

    def answer(self, line: str) -> list[str] | None:
        """The answer lines to one input line (without its newline); None for a command that gets none."""
        if not line:
            return []
        head, rest = line[0], line[1:]
        if head == "^":
            return self.check(rest, shift=1)
        if head == "!":
            self.terse = True
        elif head == "%":
            self.terse = False
        elif head == "@":
            self.corrector.accepted.add(rest.split())
        elif head in "*&":
            words = [w.lower() if head == "&" else w for w in rest.split()]
            self.corrector.accepted.add(words)
            self.personal.extend(w for w in words if w not in self.personal)
        elif head == "#":
            self.save()
        elif head in "~+-$":
            pass
        else:
            return self.check(line)
        return None

    def check(self, text: str, shift: int = 0) -> list[str]:
        """The `*` / `&` / `#` lines of one text line; offsets count `shift` characters before it (aspell's
        count the `^` of an escaped line, and Emacs relies on it)."""
        from typofix.words.text import split_text

        corrector = self.corrector
        out, offset, missed = [], shift, []
        for piece in split_text(text, corrector.max_word_len, corrector.settings.leave_special):
            if piece.word:
                if corrector.is_accepted(piece.text):
                    if not self.terse:
                        out.append("*")
                else:
                    out.append(None)
                    missed.append((len(out) - 1, piece.text, offset))
            offset += len(piece.text)
        suggestions = corrector.suggest_many([word for _, word, _ in missed], SUGGESTIONS) if missed else []
        for (at, word, offset), found in zip(missed, suggestions):
            offered = [s.word for s in found if s.word.lower() != word.lower()]
            out[at] = (f"& {word} {len(offered)} {offset}: {', '.join(offered)}" if offered
                       else f"# {word} {offset}")
        return out

    def save(self) -> None:
        from typofix.files.userwords import save_words

        save_words(self.personal_path, self.personal)


def run(options: Options, stdin, stdout) -> int:
    from typofix.engine.corrector import Corrector
    from typofix.engine.settings import DecodingSettings
    from typofix.files.userwords import WordsError, personal_words_path, read_words, user_words

    for note in options.notes:
        print(note, file=sys.stderr)
    if options.mode == "version":
        stdout.write(BANNER + "\n")
        return 0
    personal_path = options.personal or personal_words_path()
    try:
        personal = read_words(personal_path, missing_ok=True)
        words = user_words(options.word_files, personal=False) + personal
    except WordsError as err:
        raise UsageError(str(err)) from None
    if options.mode == "pipe":
        stdout.write(BANNER + "\n")  # before the model loads: clients wait for it
        stdout.flush()
    settings = DecodingSettings.preset("fast" if options.fast else "default", context_weight=0.0)
    corrector = Corrector.load(settings=settings, user_words=words)
    session = Session(corrector, personal_path, personal)
    if options.mode == "list":
        session.terse = True
        for line in iter(stdin.readline, ""):
            stdout.write("".join(a.split()[1] + "\n" for a in session.check(line.rstrip("\r\n"))))
        return 0
    for line in iter(stdin.readline, ""):
        answer = session.answer(line.rstrip("\r\n"))
        if answer is not None:
            stdout.write("".join(a + "\n" for a in answer) + "\n")
            stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    """The `typofix-ispell` console script."""
    for stream in (sys.stdin, sys.stdout):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="surrogateescape")
    return run_command("typofix-ispell",
                       lambda: run(parse_args(sys.argv[1:] if argv is None else argv), sys.stdin, sys.stdout))


if __name__ == "__main__":
    sys.exit(main())
