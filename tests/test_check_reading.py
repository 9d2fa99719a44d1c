"""What `check` reads in a file: the language, and what of it is text (comments, docstrings, strings, prose),
code (names, one-word literals) or neither. No model: the readers alone."""

from __future__ import annotations

import pytest

from typofix.apps.check.checkable import Changing, Checkable
from typofix.apps.check.languages import Language, language_of
from typofix.apps.check.latex import mask_latex
from typofix.apps.check.literals import is_text, mask_comment, mask_literal
from typofix.apps.check.prose import mask_code_spans, mask_markdown, mask_rst
from typofix.apps.check.reader import scan_blocks, scan_text, scan_window, windows
from typofix.apps.check.roff import mask_roff


def words(masked: str) -> list[str]:
    return masked.split()


@pytest.mark.parametrize("path, first_line, kind, lexer", [
    ("a.py", "", "python", "python"), ("tool", "#!/usr/bin/env python3", "python", "python"),
    ("run", "#!/bin/sh", "code", "bash"), ("a.js", "", "code", "javascript"), ("a.go", "", "code", "go"),
    ("a.rs", "", "code", "rust"), ("a.cpp", "", "code", "cpp"), ("a.yaml", "", "code", "yaml"),
    ("Makefile", "", "code", "make"), ("a.json", "", "code", "json"), ("README.md", "", "markdown", None),
    ("index.rst", "", "rst", None), ("notes.txt", "", "text", None), ("LICENSE", "", "text", None),
    ("ls.1", ".TH LS 1", "roff", None), ("printf.3p", '.\\" comment', "roff", None),
    ("pages.txt", ".\\\" Automatically generated", "roff", None), ("bsdtar.mdoc", ".Dd March 1, 2024", "roff", None),
    ("app.log.1", "2024-01-01 started", "text", None), ("notes.txt", ". a line starting with a dot", "text", None),
    ("paper.tex", "\\documentclass{article}", "latex", None), ("macros.sty", "", "latex", None),
])
def test_language_by_name_and_shebang(path, first_line, kind, lexer):
    assert language_of(path, first_line) == Language(kind, lexer)


def test_python_checks_comments_docstrings_and_strings_never_names():
    source = ('#!/usr/bin/env python3\n"""Modul docstring.\n\nExample::\n\n    x = frobnicate(1)\n\n'
              '>>> foo(1)\n3\n"""\nimport numpy as np\nPAT = re.compile(r"[a-z]+ing\\b")\n\n\ndef parseArgs(args):\n'
              '    """Parse the argumnets.\n\n    :param args: the `argv` list\n    """\n'
              '    # teh count  # noqa: E501\n    mode = "rb"\n    msg = f"Got {n} itmes"\n'
              '    print("recieved one\\n", b"bytez here")\n    return np.zeros(len(args))\n')
    scan = scan_text("demo.py", source)
    assert len(scan.masked) == len(source) and scan.masked.count("\n") == source.count("\n")
    assert words(scan.masked) == ["Modul", "docstring.", "Example::", "Parse", "the", "argumnets.", "the", "list",
                                  "#", "teh", "count", "#", "Got", "itmes", "recieved", "one"]
    assert {name for _, name in scan.identifiers} >= {"numpy", "np", "parseArgs", "args", "len", "zeros"}
    assert [text for _, text in scan.literals] == ["rb"]  # a mode: code that looks like a word
    assert {"def", "import", "return", "as"} <= scan.keywords


def test_python_that_does_not_tokenize_is_read_by_pygments():
    scan = scan_text("old.py", 'print "hello wrold"  # a commnet\n  )\n')
    assert "wrold" in scan.masked and "commnet" in scan.masked and "print" not in scan.masked


@pytest.mark.parametrize("name, source, text, names", [
    ("a.js", "// teh comment\nconst parseArgs = require('argparse'); let s = `hello ${name} wrold`; /* recieve */"
             " x = /ab+c/;\n", ["//", "teh", "comment", "hello", "wrold", "/*", "recieve", "*/"],
     {"parseArgs", "require", "s", "x"}),
    ("a.sh", "#!/bin/sh\n# teh comment\necho \"hello $USER wrold\" `ls -la` \"one\"\n",
     ["#", "teh", "comment", "hello", "wrold"], set()),
    ("a.c", "#include <stdio.h>\n/* recieve */\nint main() { printf(\"wrold %d\\n\", 1); } // teh\n",
     ["/*", "recieve", "*/", "wrold", "//", "teh"], {"main", "printf"}),
    ("a.yaml", "# a commnet\nname: some valu here\nkey: \"quoted strng\"\n",
     ["#", "a", "commnet", "some", "valu", "here", "quoted", "strng"], {"name", "key"}),
    ("a.json", '{"key": "teh value", "n": "one"}\n', ['"teh', 'value"'], {'"key"', '"n"'}),
])
def test_other_languages_through_pygments(name, source, text, names):
    scan = scan_text(name, source)
    assert len(scan.masked) == len(source)
    assert words(scan.masked) == text
    assert {n for _, n in scan.identifiers} == names


def test_markdown_skips_code_spans_fences_links_and_tags():
    text = ("# Title\n\nSome txet with `inlien code`, ``more``, a [lnk](http://exmaple.com/pathh) and <b>tag</b>.\n\n"
            "```python\nx = mispeled(1)\n```\n\n~~~\nalso code\n~~~\n\n[ref]: http://exmaple.org\n")
    masked = mask_markdown(text)
    assert len(masked) == len(text)
    assert words(masked) == ["#", "Title", "Some", "txet", "with", ",", ",", "a", "[lnk]", "and", "tag", "."]


def test_options_and_dot_files_written_bare_are_names():
    """A command-line option and a file name with its leading dot are names wherever they stand (a comment, a
    literal, prose): `-Wno` is no slip of won, `.editrc` no word. A hyphen inside a word, a dash between
    words and a sentence's full stop are prose."""
    text = "Pass -Wno-unused or --ftp-pasv, and see .editrc (or '.mpa'); a well-known word - the end.Next -1"
    assert words(mask_code_spans(text)) == ["Pass", "or", ",", "and", "see", "(or", "'", "');", "a", "well-known",
                                            "word", "-", "the", "end.Next", "-1"]
    assert words(mask_literal("-Wno-missing-field-initializers ")) == []


def test_rst_skips_literal_blocks_roles_fields_directives_and_doctests():
    text = ("Title\n=====\n\nUse :func:`parse_args` and ``literal``::\n\n    code = here(1)\n\nBack in prose.\n\n"
            ".. code-block:: python\n\n   more = code\n\n.. note::\n\n   A note in prose.\n\n"
            ":param name: the naem\n\n>>> run(1)\n2\n")
    masked = mask_rst(text)
    assert len(masked) == len(text)
    assert words(masked) == ["Title", "=====", "Use", "and", "::", "Back", "in", "prose.", "A", "note", "in",
                             "prose.", "the", "naem"]


MAN_PAGE = r""".\" Title: chage
.TH CHAGE 1 "2024" "shadow-utils" "User Commands"
.SH NAME
chage, chrt \- change user pasword expiry information
.SH SYNOPSIS
.B chage
[\fIoptions\fR] \fILOGIN\fR
.SH DESCRIPTION
The \fBchage\fR command changes the number of days betwen changes.
It hasn\*(Aqt moved; see \fBstty\fR(1), systime() and real\-time \-\-ftp-pasv.
.TP
\fB\-d\fR, \fB\-\-lastday\fR \fILAST_DAY\fR
Set the nmuber of days.
.TP
lcase
change upper case to lowr case
.BR pushd " and " popd (1)
.IX Item "-propquery propq"
.nf
createdb mydb
.fi
.Sh DESCRIPTION
.Nm createdb
.Nd create a new databse
.It Fl v Ar file Ns Em recieve
.SS "An exmaple"
"""


def test_roff_keeps_roman_prose_and_hands_on_bold_italic_and_macro_names():
    masked, names = mask_roff(MAN_PAGE)
    assert len(masked) == len(MAN_PAGE) and masked.count("\n") == MAN_PAGE.count("\n")
    assert words(masked) == [
        "Title:", "chage", "NAME", "--", "change", "user", "pasword", "expiry", "information", "SYNOPSIS", "[", "]",
        "DESCRIPTION", "The", "command", "changes", "the", "number", "of", "days", "betwen", "changes.", "It",
        "moved;", "see", "(1),", "and", "real--time", "----ftp-pasv.", ",", "Set", "the", "nmuber", "of",
        "days.", "change", "upper", "case", "to", "lowr", "case", '"', "and", '"', "(1)", "DESCRIPTION",
        "create", "a", "new", "databse", "recieve", '"An', 'exmaple"']
    # the names a reader types as written, where they stand
    assert [name for _, name in names] == ["chage", "chrt", "chage", "options", "LOGIN", "chage", "stty", "d",
                                           "lastday", "LAST_DAY", "lcase", "pushd", "popd", "createdb", "v", "file"]
    assert all(MAN_PAGE[at:at + len(name)] == name for at, name in names)


PAPER = r"""\documentclass[11pt]{article}
\usepackage{amsmath,graphicx}
\begin{document}
\section{Introducton}\label{sec:intro}
We study the convergance of solvers~\cite{saad2003}, see Figure~\ref{fig:res} and \emph{teh} rest.
Let $A \in \mathbb{R}^{n}$ and \(x_k\); it costs 5\% or \$3 (a \verb|raw_input| call).
\begin{equation}
  r_k = b - A x_k
\end{equation}
\begin{tabular}{|l|c|}
Sepal & widht \\
\end{tabular}
\href{https://example.org/x}{the projcet page}
% a commnet with \textbf{markup}
\end{document}
"""


def test_latex_keeps_the_text_a_reader_reads_and_hands_on_commands_and_keys_as_names():
    masked, names = mask_latex(PAPER)
    assert len(masked) == len(PAPER) and masked.count("\n") == PAPER.count("\n")
    assert words(masked) == ["Introducton", "We", "study", "the", "convergance", "of", "solvers", ",", "see",
                             "Figure", "and", "teh", "rest.", "Let", "and", ";", "it", "costs", "5", "or", "3",
                             "(a", "call).", "Sepal", "&", "widht", "the", "projcet", "page", "a", "commnet",
                             "with", "markup"]
    placed = [name for _, name in names]
    assert {"documentclass", "article", "amsmath", "graphicx", "sec", "intro", "saad2003", "fig", "res",
            "emph", "tabular", "href", "textbf", "pt"} <= set(placed)
    assert all(PAPER[at:at + len(name)] == name for at, name in names)
    # a dollar sign that opens no math (no closing one in its paragraph) is no math
    masked, _ = mask_latex("It costs $5 and teh rest.\n\nMore $x$ here.")
    assert words(masked) == ["It", "costs", "5", "and", "teh", "rest.", "More", "here."]


def test_literals_lose_escapes_and_placeholders_and_one_word_literals_are_code():
    assert words(mask_literal(r"\nThe end %s and {name!r:>{w}} of %(count)d fles ${HOME} $USER")) == [
        "The", "end", "and", "of", "fles"]
    assert words(mask_literal(r"SOFTWARE\Microsoft\Windows NT")) == ["SOFTWARE", "Microsoft", "Windows", "NT"]
    assert words(mask_literal("%default value, 100% sure")) == ["%default", "value,", "100%", "sure"]
    # an escaped backslash before small letters shows an escape or a path; a letter written as an escape makes
    # one foreign word of the letters joined to it, while other escapes (\n, a dash) take only themselves
    assert words(mask_literal(r"Eg. foo\\tbar\\n in C:\\temp or C:\\Program Files")) == [
        "Eg.", "foo", "in", "C:", "or", "C:", "Program", "Files"]
    assert words(mask_literal(r"M\xe4ssig, caf\u00e9 au lait, x\u2014y and \N{EM DASH}then")) == [
        ",", "au", "lait,", "x", "y", "and", "then"]
    assert [is_text(s) for s in ("utf-8", "rb", "surrogateescape", "%d files", "two words")] == [
        False, False, False, True, True]
    assert words(mask_comment("# teh count  # noqa: E501")) == ["#", "teh", "count", "#"]
    assert words(mask_comment("# the type of x: type: ignore[attr]")) == ["#", "the", "type", "of", "x:"]
    assert words(mask_comment("# call foo(bar) and h(elp) or (f)irst")) == ["#", "call", "and", "or"]


def test_inline_ignores():
    scan = scan_text("notes.txt", "teh one\nteh two  # typofix: ignore\nteh three\n")
    assert words(scan.masked) == ["teh", "one", "teh", "three"]
    scan = scan_text("gen.md", "<!-- typofix: ignore-file -->\nteh\n")
    assert words(scan.masked) == []
    scan = scan_text("doc.md", "Write `typofix: ignore-file` on a line of its own.\nteh\n")
    assert words(scan.masked) == ["Write", "on", "a", "line", "of", "its", "own.", "teh"]  # a mention is no mark


def test_python_names_are_counted_and_placed_and_an_ignored_line_drops_its_own():
    source = "recieve = 1\nrecieve_all = recieve  # typofix: ignore\nprint(recieve, 2e5)\n"
    scan = scan_text("mod.py", source)
    placed = list(scan.identifiers)
    third = source.index("print")
    assert placed == [(0, "recieve"), (third, "print"), (third + 6, "recieve")]  # the names of line 2 left out
    assert all(source.startswith(name, at) for at, name in placed)
    assert scan.name_uses() == {"recieve": 2, "print": 1}
    assert scan_text("mod.py", source.replace("typofix: ignore", "typofix")).name_uses() == {
        "recieve": 3, "recieve_all": 1, "print": 1}


def test_a_big_plain_text_is_read_in_blocks_that_read_as_the_whole_file(tmp_path):
    """Each block is cut after a blank line (no code span of plain text goes past one), so the blocks' masked
    texts put together are the whole file's, and each block knows where it starts."""
    paragraph = ("We use `a code\nspan` and call(x) here, then recieve it.\n\nAnothr line with `x`.\n"
                 "No blank line here\n" * 3 + "\n")
    text = paragraph * 40 + "the end, no newline"
    path = tmp_path / "notes.txt"
    path.write_text(text)
    blocks = list(scan_blocks(str(path), block=300))
    assert len(blocks) > 10 and all(len(b.scan.text) <= 300 for b in blocks)
    assert "".join(b.scan.text for b in blocks) == text
    assert "".join(b.scan.masked for b in blocks) == scan_text(str(path), text).masked
    for block in blocks:
        assert block.offset == text.index(block.scan.text, block.offset)
        assert block.line == text.count("\n", 0, block.offset)
    assert [b.scan for b in scan_blocks(str(path), block=len(text))] == [scan_text(str(path), text)]
    assert not any(b.ignores_file for b in blocks)
    path.write_text(text + "\n# typofix: ignore-file\n")
    assert list(scan_blocks(str(path), block=300))[-1].ignores_file


def test_a_big_man_page_is_read_in_blocks_and_windows_as_roff(tmp_path):
    """A big roff file is read in blocks, and streamed in windows, as plain text is, each read as roff."""
    text = MAN_PAGE * 30
    path = tmp_path / "pages.txt"
    path.write_text(text)
    blocks = list(scan_blocks(str(path), block=600))
    assert len(blocks) > 5 and {b.scan.language.kind for b in blocks} == {"roff"}
    assert "".join(b.scan.masked for b in blocks) == mask_roff(text)[0]
    pieces = list(windows(str(path), first=300, most=1200))
    assert len(pieces) > 5 and {scan_window(w).language.kind for w in pieces} == {"roff"}
    assert "".join(scan_window(w).masked for w in pieces) == mask_roff(text)[0]


def test_the_words_to_weigh_are_the_text_pipelines_a_run_before_nt_is_its_stem():
    """A run of letters before n't is weighed as the stem the text pipeline corrects (shoud of shoudn't), not
    as the run; a run ending in n elsewhere is only itself (version, never versio)."""
    known = {"it", "does", "matter", "the", "version", "field", "you", "call", "twice", "and", "doesn"}
    changing = Changing(lambda word: word.lower() not in known)
    source = ("# It doesn't matter: the version field.\n# You shoudn't call it twice.\n# Versio and doesn.\n"
              "# Isn\u2019t it, WASN'T it?\n")
    item = Checkable.of(scan_text("a.py", source), changing)
    assert {row.number: row.words for row in item.rows} == {2: ("shoud",), 3: ("Versio",), 4: ("Is", "WAS")}
