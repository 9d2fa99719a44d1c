"""LaTeX with its markup blanked: what is left is the text a reader of the typeset document reads.

Blanked: commands (`\\section`, `\\emph`, `\\%`, `\\\\`) with their star and their options in brackets
(`[11pt]`, `[width=0.8\\linewidth]`); the braces of groups, whose text stays (`\\section{Results}`,
`\\emph{word}`, `\\caption{...}`); the arguments that are keys, names or paths, not text (`\\cite{knuth84}`,
`\\label{sec:intro}`, `\\usepackage{amsmath}`, `\\includegraphics{figs/plot.pdf}`, `\\url{...}`, the target of
`\\href`, an environment's name, a table's column spec); math (`$...$`, `$$...$$`, `\\(...\\)`, `\\[...\\]` and the
math environments: `equation`, `align`, ...); verbatim text (`\\verb|...|`, `verbatim`, `lstlisting`, `minted`);
a comment's `%` (its words are checked, as a program's comments are); `~`, the tie.

The command names and the blanked keys are the document's names (`Scan.identifiers`), which the project's
vocabulary counts as it counts a program's identifiers: a label written in the text (`see fig:res`) is a name.

Like `typofix.apps.check.prose`, the result has the input's length and lines, so a finding's line and column
are where the word is in the source."""

from __future__ import annotations

import re
from collections import Counter
from functools import partial

from typofix.apps.check.prose import blank, mask_calls
from typofix.apps.check.regions import Names

# What the scanner stops at: a command (a name of letters, or one character after the backslash), a comment's
# mark, a math shift, a brace, a bracket (an option after a command), a tie. The text between is text.
_TOKEN = re.compile(r"\\(?:[A-Za-z@]+\*?|.)|[%${}\[~]", re.DOTALL)
_BLANK_SPACE = re.compile(r"[ \t]*")
# Commands whose (first) brace argument is a key, a name or a path, not text; with how many such arguments
_KEY_ARGUMENTS = {name: 1 for name in (
    "cite citep citet citeauthor citeyear citealp citealt parencite textcite autocite footcite nocite ref eqref "
    "pageref autoref cref Cref vref nameref label usepackage RequirePackage documentclass LoadClass input "
    "include includeonly includegraphics includepdf bibliography bibliographystyle addbibresource url href "
    "hyperref hypersetup graphicspath lstinputlisting inputminted pagestyle thispagestyle pagenumbering "
    "setcounter addtocounter stepcounter refstepcounter setlength addtolength settowidth newcounter color "
    "textcolor colorbox pagecolor definecolor hspace vspace linespread fontsize selectfont geometry "
    "newcommand renewcommand providecommand newenvironment renewenvironment DeclareMathOperator let def "
    "bibitem glsadd gls Gls glspl acrshort acrlong acrfull ac acp").split()}
_KEY_ARGUMENTS.update({"definecolor": 3, "setcounter": 2, "addtocounter": 2, "setlength": 2, "addtolength": 2,
                       "fontsize": 2, "settowidth": 2})
# Environments whose body is not text, up to their `\end`: math and verbatim
_OPAQUE = frozenset(f"{name}{star}" for star in ("", "*") for name in (
    "equation align gather multline eqnarray flalign alignat math displaymath split dmath verbatim Verbatim "
    "lstlisting minted comment filecontents tikzpicture pgfpicture").split())
# Environments whose first brace argument is a column spec (`{|l|c|}`), not text
_SPEC_ARGUMENT = frozenset("tabular tabular* array tabularx tabulary longtable supertabular".split())
_MATH_END = {"$": "$", "\\(": "\\)", "\\[": "\\]"}  # (`$$` is told from `$` where it opens)
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def mask_latex(text: str) -> tuple[str, Names]:
    """A LaTeX text with everything but the text its reader reads blanked, and the names it holds (see the
    module docstring)."""
    masked = list(text)
    names: list[tuple[int, str]] = []  # (offset, text) of each command's name and each key argument
    keys_due = 0  # brace arguments due to the last command (or `\begin`) that are keys, not text
    after = -1  # where the last command or its last argument ended: an argument or option starts there
    at = 0
    while (token := _TOKEN.search(text, at)) is not None:
        start, found = token.start(), token.group()
        at = token.end()
        adjacent = after >= 0 and not text[after:start].strip()
        if found == "[":
            if adjacent:  # an option: `[11pt]`, `[width=0.8\linewidth]`, `\begin{figure}[htbp]`
                at = after = _group_end(text, start, "[", "]")
                _blank(masked, start, at)
                names.append((start + 1, text[start + 1:at - 1]))
            continue
        if found == "{" and keys_due and adjacent:  # a key, a name or a path: blanked whole
            at = after = _group_end(text, start, "{", "}")
            _blank(masked, start, at)
            names.append((start + 1, text[start + 1:at - 1]))
            keys_due -= 1
            continue
        after, keys_due = -1, 0
        if found in ("%", "~", "{", "}"):  # a comment's mark (its words are read), a tie, a group's brace
            masked[start] = " "
            continue
        if found in _MATH_END:
            closing = "$$" if text.startswith("$$", start) else _MATH_END[found]
            at = _math_end(text, start, closing)
            _blank(masked, start, at)
            continue
        name = found[1:].rstrip("*")
        _blank(masked, start, at)
        if not (name.isalpha() or "@" in name):
            continue  # an escaped character (`\%`, `\&`, `\\`) or an accent (`\'e`: its letter stays)
        names.append((start + 1, name))
        if name == "verb":
            at = _verbatim_end(text, at)
            _blank(masked, start, at)
        elif name in ("begin", "end"):
            environment = _environment(text, at)
            if environment is not None:
                env_start, at, env = environment
                _blank(masked, start, at)
                names.append((env_start, env))
                if name == "begin" and env in _OPAQUE:  # math or verbatim, up to its `\end`
                    close = text.find(f"\\end{{{env}}}", at)
                    at = len(text) if close < 0 else close + len(f"\\end{{{env}}}")
                    _blank(masked, start, at)
                elif name == "begin":
                    after, keys_due = at, 1 if env in _SPEC_ARGUMENT else 0
        else:
            after, keys_due = at, _KEY_ARGUMENTS.get(name, 0)
    return mask_calls("".join(masked)), Names(Counter(word for _, piece in names for word in _NAME.findall(piece)),
                                              partial(_placed_names, names))


def _placed_names(names: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """(offset, name) of each name in the (offset, text) pieces `names`, in text order."""
    return sorted((at + name.start(), name.group()) for at, piece in names for name in _NAME.finditer(piece))


def _blank(masked: list[str], start: int, end: int) -> None:
    """Blank masked[start:end], line breaks kept."""
    masked[start:end] = blank("".join(masked[start:end]))


def _group_end(text: str, start: int, opening: str, closing: str) -> int:
    """The end of the group that opens at text[start] (`opening`), nested groups and escaped marks inside
    (the text's end, for a group never closed)."""
    depth, at = 0, start
    while at < len(text):
        char = text[at]
        if char == "\\":
            at += 2
            continue
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return at + 1
        at += 1
    return len(text)


def _math_end(text: str, start: int, closing: str) -> int:
    """The end of math opened at text[start] and closed by `closing`, escapes skipped. An inline `$` not closed
    before its paragraph ends opens no math (a dollar sign in text): only the `$` is blanked then."""
    opening = "$" if closing == "$" else closing.replace(")", "(").replace("]", "[")
    pattern = re.compile(r"\\.|" + re.escape(closing) + (r"|\n[ \t]*\n" if closing == "$" else ""), re.DOTALL)
    for found in pattern.finditer(text, start + len(opening)):
        if found.group() == closing:
            return found.end()
        if found.group().startswith("\n"):
            break
    return start + 1 if closing == "$" else len(text)


def _verbatim_end(text: str, at: int) -> int:
    """The end of a `\\verb` whose delimiter is text[at] (the line's end, where it is never closed)."""
    if at >= len(text):
        return at
    close = text.find(text[at], at + 1)
    line_end = text.find("\n", at)
    line_end = len(text) if line_end < 0 else line_end
    return close + 1 if 0 <= close < line_end else line_end


def _environment(text: str, at: int) -> tuple[int, int, str] | None:
    """(where the name starts, where the group ends, the name) of `{name}` after `\\begin` or `\\end` at `at`."""
    space = _BLANK_SPACE.match(text, at).end()
    if not text.startswith("{", space):
        return None
    end = text.find("}", space)
    if end < 0:
        return None
    return space + 1, end + 1, text[space + 1:end].strip()
