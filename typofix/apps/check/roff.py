"""Roff (man pages: the man(7) and mdoc(7) macros, with tbl, eqn and pic) with its markup blanked: what is
left is what a reader of the formatted page sees in roman type.

By the man pages' own convention (man-pages(7), mdoc(7)) bold and italic type, and mdoc's semantic macros,
mark what is typed as written: commands, options, files, functions, variables, arguments (`.B stty`,
`\\fB\\-\\-ftp-pasv\\fR`, `.Nm createdb`, `.Fl v`). So do the names before the dash of a NAME section's line
(`chrt \\- manipulate ...`) and a tagged paragraph's tag of one word (`.TP`, then `lcase`: the keyword the
paragraph defines). Those are names, not words: they are blanked, as a Markdown code span is, and handed on
as the page's names (`Scan.identifiers`), which the project's vocabulary counts as it counts a program's
identifiers.

A comment line's words are checked, as a program's comments are. Blanked too: requests and macro calls
(`.TH`, `.if`, `.ds`, `.IX`), macro definitions, comments at a line's end (`\\"`), escapes (`\\*(Aq`,
`\\(em`, `\\s-1`), literal displays (`.nf`/`.fi`, `.EX`/`.EE`, Pod::Man's `.Vb`/`.Ve`, mdoc's
`.Bd -literal`), tables' formats, equations and bare calls (`systime()`, `chmod(2)`). Headings (`.SH`),
mdoc's descriptions and quotes (`.Nd`, `.Dq`) and text lines in roman stay. An escaped minus is written as
two hyphens (`\\-\\-all` -> `----all`: an option still starts with a dash, `real\\-time` is still one
token). A word that an escaped apostrophe joins (`hasn\\*(Aqt`) is blanked whole: its pieces are no words.

Like `typofix.apps.check.prose`, the result has the input's length and lines, so a finding's line and column
are where the word is in the source."""

from __future__ import annotations

import re
from collections import Counter
from functools import partial

from typofix.apps.check.prose import blank, mask_calls
from typofix.apps.check.regions import Names

# A font change (`\fB`, `\f(CW`, `\f[BI]`), which splits a line of text into its runs of one font
_FONT_CHANGE = re.compile(r"(\\f(?:\[[^\]\n]*\]|\(..|.))")
_COMMENT_AT = re.compile(r'\\["#]')  # a comment, to the line's end
# One escape other than a font change, with its argument: an apostrophe, string, register and character names
# (`\*(Aq`, `\n[x]`, `\(em`, `\[u00E9]`), sizes (`\s-1`), quoted arguments (`\h'-1p'`, `\w'text'`) or a
# one-character escape (`\-`, `\&`, `\e`, `\%`).
_ESCAPE = re.compile(r"""\\(?:
      [*nFgmMkYV$](?:\[[^\]\n]*\]|\(..|[+-]?.)
    | \(..
    | \[[^\]\n]*\]
    | s(?:[+-]?(?:\[[^\]\n]*\]|\(\d\d|'[^'\n]*'|\d))
    | [ABbCDHhLlNoRSvwXxZ]'[^'\n]*'
    | .
    )""", re.VERBOSE)
# A word an escaped apostrophe joins (`hasn\*(Aqt`, `don\(aqt`): blanked whole, its pieces being no words
_ESCAPED_WORD = re.compile(r"[A-Za-z]*\\(?:\*\(Aq|\*\[Aq\]|\((?:aq|cq|oq)|\[(?:aq|cq|oq)\])[A-Za-z]+")
_COMMENT = '\\"'  # a comment line's request: `.\"` (or `'\"`), then the comment
_CONTROL_MARKS = (".", "'")  # what a control line (a request or a macro call) starts with
_CONTROL = re.compile(r"[.'][ \t]*(\S*)[ \t]*(.*)")
_ARGUMENT = re.compile(r'"(?:[^"]|"")*"?|\S+')
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_NAME_DASH = re.compile(r"\s\\-\s")  # between the names and the description of a NAME section's line

ROMAN = ("R", "1", "P", "")  # font names of roman type (`P`: back to the previous font, taken as roman here)
CODE_FONT = "B"
# man(7)'s font macros: for each argument in turn, whether it is in roman type (the rest: bold or italic).
_ALTERNATING = {"B": (False,), "I": (False,), "SB": (False,), "BI": (False,), "IB": (False,),
                "BR": (False, True), "IR": (False, True), "RB": (True, False), "RI": (True, False), "SM": (True,)}
_HEADINGS = frozenset({"SH", "SS", "Sh", "Ss"})  # their words are never macro calls (`.SS "An example"`)
# mdoc's macros whose arguments a reader reads as prose: the description, emphasis, quotes and plain text.
# Its other macros (`_MDOC_NAMES`) mark names. Both kinds are callable, so on an mdoc line each macro named
# sets how the words after it are read, up to the next.
_PROSE_MACROS = frozenset("Nd Em Dq Do Dc Sq So Sc Pq Po Pc Qq Qo Qc Bq Bo Bc Brq Bro Brc Eo Ec No Ns It Ta D1 "
                          "%T %B %J".split())
_MDOC_NAMES = frozenset("Nm Fl Ar Cm Ic Pa Xr Ev Va Vt Dv Er Fn Fa Ft Fd Fo Fc Li Sy Ql Cd Ad Mt Lk An Lb In "
                        "Rv Ex St At Bx Bsx Dx Fx Nx Ox Ux Op Oo Oc Dl Tn Ms Sx Pf Ap Aq Ao Ac Xo Xc Ot Fr Hf "
                        "Bf Ef Bk Ek %A %D %I %N %O %P %Q %R %U %V".split())
_TAGGED = frozenset({"TP", "TQ"})  # paragraphs whose next text line is their tag
# Paragraph and heading macros, which set the font back to roman (as the man macros do).
_RESETS_FONT = frozenset("SH SS PP LP P TP TQ IP HP Sh Ss Pp Lp".split())
# Blocks whose lines are code or markup up to their closing request: literal displays, macro definitions,
# text ignored, equations and pictures (`..`, which ends a definition, is the request named ".").
_BLOCK_ENDS = {"nf": ("fi",), "EX": ("EE",), "Vb": ("Ve",), "de": (".",), "de1": (".",), "am": (".",),
               "ig": (".",), "EQ": ("EN",), "PS": ("PE",), "[": ("]",)}
_LITERAL_DISPLAY = re.compile(r"-(?:literal|unfilled|centered)\b")


def mask_roff(text: str) -> tuple[str, Names]:
    """A roff text (a man page) with everything but its roman prose blanked, and the names it marks (bold,
    italic, mdoc's name macros; see the module docstring)."""
    reader = _Reader()
    out = reader.out
    offset = 0
    for line in text.split("\n"):
        # (most lines are requests, or roman text with no escape: the second kind is kept as it is, here)
        if reader.quiet and "\\" not in line and line[:1] not in _CONTROL_MARKS:
            out.append(line)
        else:
            reader.line(line, offset)
        offset += len(line) + 1
    code = reader.code
    names = Names(Counter(_NAME.findall("\n".join(piece for _, piece in code))), partial(_placed_names, code))
    return mask_calls("\n".join(out)), names


def _placed_names(code: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """(offset, name) of each name in the `code` pieces (offset, text)."""
    return [(at + name.start(), name.group()) for at, piece in code for name in _NAME.finditer(piece)]


def _blank_escape(escape: re.Match) -> str:
    return " " * len(escape.group())


def _mask_escape(escape: re.Match) -> str:
    """An escape as the masked text has it: an escaped minus two hyphens, any other escape blanked."""
    found = escape.group()
    return "--" if found == "\\-" else " " * len(found)


class _Reader:
    """A roff text read line by line: what is masked of each line, the pieces of it that are names, and the
    state that lasts from line to line (the font, a block being blanked, the section)."""

    def __init__(self):
        self.out: list[str] = []
        self.code: list[tuple[int, str]] = []  # (offset, text) of each piece of names (bold, italic, ...)
        self.font = "R"  # the font text lines are in (a font change lasts, over lines, until the next)
        self.closing: tuple[str, ...] | None = None  # the requests that end the block being blanked
        self.table = False  # in a tbl table's options and format (up to the line ending in `.`)
        self.next_line_code = False  # `.B` or `.I` with no arguments: the next text line is in that font
        self.name_section = False  # in the NAME section: a text line's names stand before its `\-`
        self.tag_next = False  # after `.TP`: the next text line is the paragraph's tag
        self.quiet = True  # none of these is in effect: a text line with no escape is kept as it is

    def line(self, line: str, offset: int) -> None:
        self._line(line, offset)
        self.quiet = (self.closing is None and not self.table and not self.next_line_code and not self.tag_next
                      and not self.name_section and self.font in ROMAN)

    def _line(self, line: str, offset: int) -> None:
        control = _CONTROL.match(line)
        name = control.group(1) if control else None
        if self.closing is not None or self.table:
            self.out.append(blank(line))
            if self.closing is not None and name in self.closing:
                self.closing = None
            self.table = self.table and not line.rstrip().endswith(".")
            return
        if control is None:
            tag, self.tag_next = self.tag_next, False
            if tag and len(line.split()) == 1:  # a one-word tag: the term the paragraph defines (`lcase`)
                self.next_line_code = True
            dash = _NAME_DASH.search(line) if self.name_section else None
            if self.next_line_code:  # (in that font for this line only)
                self.out.append(self.text(line, offset, CODE_FONT))
            elif dash is not None:  # `chrt, taskset \- manipulate ...`: the names, then the description
                self.out.append(self.text(line[:dash.start()], offset, CODE_FONT) + self.text(
                    line[dash.start():], offset + dash.start(), self.font, lasting=True))
            else:
                self.out.append(self.text(line, offset, self.font, lasting=True))
            self.next_line_code = False
            return
        arguments, start = control.group(2), control.start(2)
        if name.startswith(_COMMENT):  # a comment line: the author's words, as a comment of code is
            at = control.start(1) + len(_COMMENT)
            self.out.append(blank(line[:at]) + self.text(line[at:], offset + at, "R"))
            return
        self.next_line_code = False
        self.tag_next = name in _TAGGED
        if name in _RESETS_FONT:
            self.font = "R"
        if name in _HEADINGS:
            self.name_section = arguments.strip().strip('"').upper() == "NAME"
        if name in _BLOCK_ENDS or name == "Bd" and _LITERAL_DISPLAY.search(arguments):
            self.closing = _BLOCK_ENDS.get(name, ("Ed",))
            self.out.append(blank(line))
        elif name == "TS":
            self.table = True
            self.out.append(blank(line))
        elif name == "ft":
            self.font = arguments.split()[0] if arguments.split() else "P"
            self.out.append(blank(line))
        elif name in _ALTERNATING:
            roman = _ALTERNATING[name]
            if arguments.strip() and roman == (False,):  # (`.B name`, the most common: all names, at once)
                self.code.append((offset + start, _ESCAPE.sub(_blank_escape, arguments)))
                self.out.append(" " * len(line))
            elif arguments.strip():
                self.out.append(self.arguments(line, offset, start, lambda k, word: roman[k % len(roman)]))
            else:
                self.next_line_code = not _ALTERNATING[name][0]
                self.out.append(blank(line))
        elif name in _HEADINGS:
            self.out.append(self.arguments(line, offset, start, lambda k, word: True))
        elif name in _PROSE_MACROS or name in _MDOC_NAMES:
            self.out.append(self.arguments(line, offset, start, _MdocLine(name in _PROSE_MACROS)))
        else:  # any other request or macro: its name and arguments are markup (.TH, .if, .ds, .IX, .UR)
            self.out.append(blank(line))

    def text(self, line: str, offset: int, font: str, lasting: bool = False) -> str:
        """Text starting in `font` (at `offset` of the file) blanked where it is an escape or in bold or
        italic type (its names noted); with `lasting`, the font at its end is the text's font after it."""
        if "\\" not in line:
            return self._in_font(line, offset, font)
        comment = _COMMENT_AT.search(line)
        end = comment.start() if comment else len(line)
        pieces, at = [], 0
        for k, part in enumerate(_FONT_CHANGE.split(line[:end])):  # text, a font change, text, ...
            if k % 2:
                pieces.append(" " * len(part))
                font = part[2:].strip("[]").lstrip("(")
            else:
                pieces.append(self._in_font(_ESCAPE.sub(_mask_escape, part) if "\\" in part else part,
                                            offset + at, font))
            at += len(part)
        pieces.append(" " * (len(line) - end))
        if lasting:
            self.font = font
        masked = "".join(pieces)
        if "q" in line:  # (`\*(Aq`, `\(aq`, `\(cq`, `\[oq]`)
            for joined in _ESCAPED_WORD.finditer(line):
                masked = masked[:joined.start()] + " " * len(joined.group()) + masked[joined.end():]
        return masked

    def _in_font(self, piece: str, offset: int, font: str) -> str:
        if font in ROMAN:
            return piece
        self.code.append((offset, piece))
        return " " * len(piece)

    def arguments(self, line: str, offset: int, start: int, roman) -> str:
        """A macro line: its name blanked, and each argument from `start` read as text in roman type or as a
        name, as `roman(k, argument)` says of the k-th (None: markup, blanked)."""
        pieces, at = [blank(line[:start])], start
        for k, argument in enumerate(_ARGUMENT.finditer(line, start)):
            pieces.append(blank(line[at:argument.start()]))
            word, how = argument.group(), roman(k, argument.group())
            pieces.append(blank(word) if how is None else
                          self.text(word, offset + argument.start(), "R" if how else CODE_FONT))
            at = argument.end()
        pieces.append(blank(line[at:]))
        return "".join(pieces)


class _MdocLine:
    """Whether each argument of an mdoc line is read as prose or as a name: a macro named among them is markup
    (None) and sets how the words after it are read."""

    def __init__(self, prose: bool):
        self.prose = prose

    def __call__(self, k: int, word: str) -> bool | None:
        if word in _PROSE_MACROS or word in _MDOC_NAMES:
            self.prose = word in _PROSE_MACROS
            return None
        return self.prose
