"""`typofix-ispell`: typofix behind the Ispell `-a` pipe protocol, answering as `aspell -a` does, so that editors
and tools that drive ispell or aspell (Emacs ispell/flyspell, Vim's and others' spell plug-ins) use typofix unchanged.

How clients learn what they talk to. The banner (`-v`, `-vv` and the first line of a pipe) is
`@(#) International Ispell Version 3.1.20 (but really Aspell 0.60.8) typofix X`: the Aspell part is how ispell.el
(and others) tell a pipe that speaks UTF-8 and lists its dictionaries from a plain Ispell, which gets Latin-1 and
ASCII word characters (so `café` would reach us as `caf`); the rest names what answers. Told "Aspell", Emacs asks
`typofix-ispell dicts` (our English names: en, en_AU, en_CA, en_GB, en_US), `typofix-ispell config dict-dir` and
`config data-dir` (the folder of `en.dat`, whose `special` line declares the apostrophes that may stand inside a
word), treats every letter of any script as a word character, and passes `--encoding=utf-8`.

The protocol, one input line at a time (answers flushed at once), as `aspell -a` answers it:

* a text line (or `^` + text, which never reads as a command): per word as aspell splits the line (runs of
  letters, an apostrophe inside one; digits and other marks split; URLs and e-mail addresses skipped whole),
  `*` when it is correct, `& word count offset: s1, s2, ...` when it is misspelled (its correction first),
  `# word offset` when it is misspelled and nothing near it is a word (no list of unrelated words); then an
  empty line. Offsets are 0-based characters from the start of the line as aspell counts them: the `^` of an
  escaped line included (`^teh` answers `& teh 6 1: the, ...`; Emacs relies on it). An empty input line gets
  no answer at all; a line of spaces or of numbers only gets the empty line;
* `!` terse mode (correct words get no line), `%` back to verbose;
* `@word` accept the word for this session; `*word` add it to the personal list, `&word` add it in lower
  case; `#` save the personal list (atomically): the `-p FILE`, else typofix's own personal list. With no word,
  `*`, `&` and `@` write aspell's `Error: The word "" is invalid. Empty string.` to stderr and nothing to stdout;
* `~...`, `+...`, `-`, `$$...` (formatter modes, aspell extensions): accepted, nothing to say.

Which words are correct is what `typofix correct` leaves alone: a word it may correct is correct when
`Corrector.is_accepted` says so (the acceptance dictionary, the personal list, the --words files, the words
accepted in this session); what it never corrects (words with digits, with non-ASCII letters such as `naïve`,
acronyms, code, single letters: `typofix.words.text.split_text`) is correct, except a plain word over
`max_word_len` letters that no list has (`#`). Suggestions are spelled as the dictionary spells them (`sunday`
is offered `Sunday`, never `monday` for a lowercase typo of a name) and are at most a third of the word's
length (at least two) edits away.

Options and commands: `-a`/`pipe` (this mode; also the default), `-l`/`list` (the misspelled words of stdin,
one a line), `-v`/`-vv`/`version` (the banner, then exit), `dicts`, `config KEY`, `--help`/`help`/`-?`/`usage`,
`-d DICT`/`--master=DICT`/`--lang=LANG` (English only: another is a one-line error and exit 2, never English
answers), `--encoding=ENC` (what stdin and stdout are; UTF-8 by default), `-p FILE`/`--personal=FILE` (a personal
list read at start and saved by `#`), `--words FILE` (typofix's word lists), `--fast`; `-m`, `-B`, `-C`, `-S`,
`-t`, `-n`, `-H`, `-o`, `--sug-mode=...` are accepted and change nothing; others are ignored with a note on
stderr. Exit codes as `typofix`: 1 model error, 2 bad usage or a bad word list, each a one-line error.
"""

from __future__ import annotations

import bisect
import codecs
import re
import sys
from pathlib import Path

from typofix import __version__
from typofix.files.exits import UsageError, run_command

ASPELL_VERSION = "0.60.8"  # the Aspell whose `-a` answers these are (Debian 12's)
BANNER = f"@(#) International Ispell Version 3.1.20 (but really Aspell {ASPELL_VERSION}) typofix {__version__}"
SUGGESTIONS = 10
DICTIONARIES = ("en", "en_AU", "en_CA", "en_GB", "en_US")  # what `dicts` lists: one English dictionary
DICT_DIR = Path(__file__).with_name("ispell_dicts")  # en.dat: its `special` line names the inner apostrophes
EMPTY_WORD = 'Error: The word "" is invalid. Empty string.'  # aspell's words, on stderr
# The dictionary names taken for English: en, en_US, en-GB, en_GB-ize-w_accents, en.multi, and the Ispell names.
_ENGLISH = re.compile(r"(?:en(?:[_-][a-z]{2,3})?(?:-[\w-]+)?(?:\.multi)?|english|american|british|canadian|"
                      r"australian)", re.IGNORECASE)
_WITH_VALUE = {"-d", "-p", "-w", "-T", "-W", "-L", "-f", "--words", "--lang", "--master", "--personal",
               "--encoding"}  # options whose value may be the next argument
_QUIET = {"-a", "-m", "-B", "-C", "-S", "-t", "-n", "-H", "-o", "-x", "-P", "-s", "-k", "-b"}
_COMMANDS = {"pipe": "pipe", "-a": "pipe", "list": "list", "-l": "list", "version": "version", "-v": "version",
             "-vv": "version", "--version": "version", "dicts": "dicts", "config": "config", "help": "help",
             "--help": "help", "-?": "help", "usage": "help", "-h": "help"}
_ASPELL_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")  # a word as aspell splits a line
_SKIPPED = re.compile(r"\S*://\S*|\bwww\.\S+|[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+")  # aspell's url filter: URLs, mail
_CONFIG = {"lang": "en", "master": "en", "encoding": "utf-8", "dict-dir": str(DICT_DIR), "data-dir": str(DICT_DIR)}
HELP = f"""typofix {__version__} behind the Ispell -a pipe, answering as Aspell {ASPELL_VERSION} does.

Usage: typofix-ispell [options] [command]

commands:
  -a|pipe          the "ispell -a" pipe (the default)
  -l|list          the misspelled words of standard input, one a line
  -v|version       the version line
  dicts            the dictionaries (English: {', '.join(DICTIONARIES)})
  config KEY       a setting's value ({', '.join(sorted(_CONFIG))}, personal)
  --help|help      this message

options:
  -d|--master DICT      the dictionary: English only (another is an error)
  --lang LANG           the language: en only
  --encoding ENC        what standard input and output are (default utf-8)
  -p|--personal FILE    the personal word list (default $XDG_CONFIG_HOME/typofix/words.txt)
  --words FILE          more words, one a line (repeatable)
  --fast                the fast preset
  -m -B -C -S -t -n -H -o --sug-mode=MODE   accepted, change nothing
"""


class Options:
    """What the command line asked for."""

    def __init__(self) -> None:
        self.mode = "pipe"  # pipe, list, version, dicts, config or help
        self.key: str | None = None  # config KEY
        self.personal: Path | None = None  # -p FILE
        self.encoding = "utf-8"
        self.word_files: list[str] = []
        self.fast = False
        self.notes: list[str] = []


def parse_args(argv: list[str]) -> Options:
    """Aspell-style options: flags may be glued to their value (-dEN, -pFILE, --lang=en) or followed by it."""
    options = Options()
    args = iter(argv)
    for arg in args:
        flag, glued = (arg.split("=", 1) + [None])[:2] if arg.startswith("--") else (arg[:2], arg[2:] or None)
        if arg in _COMMANDS:
            options.mode = _COMMANDS[arg]
            if options.mode == "config":
                options.key = next(args, None)
                if options.key is None:
                    raise UsageError("config needs a KEY (config dict-dir)")
        elif arg == "--fast":
            options.fast = True
        elif arg.startswith("--sug-mode"):
            continue
        elif flag in _WITH_VALUE:
            value = glued if glued is not None else next(args, None)
            if value is None:
                raise UsageError(f"option {flag} needs a value")
            if flag in ("-d", "--master", "--lang"):
                check_dictionary(value)
            elif flag in ("-p", "--personal"):
                options.personal = Path(value)
            elif flag == "--words":
                options.word_files.append(value)
            elif flag == "--encoding":
                options.encoding = checked_encoding(value)
        elif arg in _QUIET:
            continue
        elif not arg.startswith("-"):
            raise UsageError(f"unknown command {arg!r} (see typofix-ispell --help)")
        else:
            options.notes.append(f"typofix-ispell: note: ignoring option {arg!r}")
    return options


def check_dictionary(name: str) -> None:
    """Fail on a dictionary or language that is not English: typofix answers in English only."""
    if not _ENGLISH.fullmatch(name):
        raise UsageError(f"no dictionary {name!r}: typofix has one, English ({', '.join(DICTIONARIES)})")


def checked_encoding(name: str) -> str:
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise UsageError(f"unknown encoding {name!r}") from None


class Session:
    """One pipe session: a corrector, the terse flag and the personal list being built."""

    def __init__(self, corrector, personal_path: Path, personal_words: list[str]):
        self.corrector = corrector
        self.terse = False
        self.personal_path = personal_path
        self.personal = list(personal_words)

    def answer(self, line: str) -> list[str] | None:
        """The answer lines to one input line (without its newline); None when it gets no answer at all."""
        if not line:
            return None  # aspell sends nothing, not even the empty line
        head, rest = line[0], line[1:]
        if head == "^":
            return self.check(rest, shift=1)
        if head == "!":
            self.terse = True
        elif head == "%":
            self.terse = False
        elif head in "@*&":
            words = rest.split()
            if not words:
                print(EMPTY_WORD, file=sys.stderr, flush=True)
                return None
            words = [w.lower() if head == "&" else w for w in words]
            self.corrector.accepted.add(words)
            if head != "@":
                self.personal.extend(w for w in words if w not in self.personal)
        elif head == "#":
            self.save()
        elif head in "~+-$":
            pass
        else:
            return self.check(line)
        return None

    def check(self, text: str, shift: int = 0) -> list[str]:
        """The `*` / `&` / `#` lines of one text line, a line per word as aspell splits it; offsets count
        `shift` characters before the text (aspell's count the `^` of an escaped line, and Emacs relies on it)."""
        from typofix.words.text import split_text

        corrector = self.corrector
        starts, words, at = [], [], 0  # the words typofix may correct, by their offset
        for piece in split_text(text, corrector.max_word_len, corrector.settings.leave_special):
            if piece.word:
                starts.append(at)
                words.append(piece.text)
            at += len(piece.text)
        skipped = [m.span() for m in _SKIPPED.finditer(text)]
        out: list[str | None] = []
        missed: list[tuple[int, str, int]] = []  # (index in out, word, offset)
        for match in _ASPELL_WORD.finditer(text):
            if any(start <= match.start() < end for start, end in skipped):
                continue
            i = bisect.bisect_left(starts, match.start())
            if i < len(starts) and starts[i] < match.end():  # the word typofix corrects inside it
                word, offset, correct = words[i], starts[i], corrector.is_accepted(words[i])
            else:  # a word typofix leaves alone: correct, unless it is an unknown word too long to correct
                word, offset = match.group(), match.start()
                correct = not (len(word) > corrector.max_word_len and word.isascii()
                               and not corrector.is_accepted(word))
                if not correct:
                    out.append(f"# {word} {offset + shift}")
                    continue
            if correct:
                if not self.terse:
                    out.append("*")
            else:
                out.append(None)
                missed.append((len(out) - 1, word, offset + shift))
        if missed:
            # An unknown word is flagged only where `typofix correct` would rewrite it: the misspelling detector
            # leaves commands, jargon, names and other languages alone here as it does there.
            # The line is the document: all a client sends at a time (flyspell: one word)
            rewritten = {change.start + shift for change in corrector.corrections_many([text])[0]}
            for index, word, offset in missed:
                if offset not in rewritten:
                    out[index] = "*"
            missed = [m for m in missed if m[2] in rewritten]
        found = corrector.suggest_many([word for _, word, _ in missed], SUGGESTIONS) if missed else []
        for (index, word, offset), suggestions in zip(missed, found):
            offered = self.offered(word, [s.word for s in suggestions])
            out[index] = (f"& {word} {len(offered)} {offset}: {', '.join(offered)}" if offered
                          else f"# {word} {offset}")
        return [line for line in out if not (self.terse and line == "*")]  # terse: no line for a correct word

    def offered(self, word: str, suggestions: list[str]) -> list[str]:
        """The suggestions for `word` worth offering, as the dictionary spells them: a name lowercased to match
        a lowercase typo gets its capitals back (monday -> Monday), and a word further than a third of the
        typo's length (two edits at least) is no spelling of it (a list of unrelated words helps nobody)."""
        from typofix.words.distance import osa_distance

        limit = max(2, len(word) // 3)
        offered: list[str] = []
        for suggestion in suggestions:
            spelled = self.spelled(suggestion)
            if spelled != word and spelled not in offered and osa_distance(word.lower(), spelled.lower()) <= limit:
                offered.append(spelled)
        return offered

    def spelled(self, word: str) -> str:
        """A lowercase `word` as the dictionary writes it when it lists it only with capitals."""
        accepted = self.corrector.is_accepted
        if not word.islower() or accepted(word):
            return word
        return next((form for form in (word.capitalize(), word.upper()) if accepted(form)), word)

    def save(self) -> None:
        from typofix.files.userwords import save_words

        save_words(self.personal_path, self.personal)


def run(options: Options, stdin, stdout) -> int:
    from typofix.engine.corrector import Corrector
    from typofix.engine.settings import DecodingSettings
    from typofix.files.userwords import WordsError, personal_words_path, read_words, user_words

    for note in options.notes:
        print(note, file=sys.stderr)
    personal_path = options.personal or personal_words_path()
    if options.mode in ("version", "help", "dicts", "config"):  # answered at once, no model loaded
        config = {**_CONFIG, "personal": str(personal_path)}
        if options.mode == "config" and options.key not in config:
            raise UsageError(f"unknown config key {options.key!r}; known: {', '.join(sorted(config))}")
        stdout.write({"version": BANNER + "\n", "help": HELP, "dicts": "".join(d + "\n" for d in DICTIONARIES),
                      "config": f"{config.get(options.key)}\n"}[options.mode])
        return 0
    for stream in (stdin, stdout):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding=options.encoding)
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
