"""The code inside prose, blanked out: fenced blocks and code spans of Markdown, literal blocks, roles, field
names and directives of reStructuredText, and doctest sessions (in .rst files and in docstrings).

Every function here returns its text with what is not prose replaced by spaces, line breaks kept, so the
result has the same length and the same lines as the input: a finding's line and column are where the
word really is, and the words on either side of a blanked span stay apart."""

from __future__ import annotations

import re



def blank(text: str) -> str:
    """`text` with every character but the line breaks turned into a space."""
    if "\n" not in text:
        return " " * len(text)
    return "\n".join([" " * len(line) for line in text.split("\n")])  # (a line at a time, not a character)


def _blank_match(match: re.Match) -> str:
    return blank(match.group())


# A code span: a run of backticks, then text that crosses no blank line, then a run of the same length
# (`x`, ``x``, ```x```). Works for Markdown and for reST's inline literals and interpreted text alike.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(?:[^\n]|\n(?![ \t]*\n))+?(?<!`)\1(?!`)")
# Code written bare: a call (`foo(bar)`, `dedent("x")`) and the abbreviation marks of command help (`h(elp)`,
# `(f)irst`, `"a"(ppend)`, `[b]rowser`), whose letters are no words of their own.
_CALL = re.compile(r"[\w.]*[\w\"']\([^()\s]*\)\w*|\(\w+\)\w+|\[\w{1,3}\]\w+|\b\w+\[\w+\](?!\()")
# Names written bare: a command-line option (`--verbose`, `-Wno-unused`: a dash, then a letter) and a file name or
# extension written with its leading dot (`.editrc`, `.ucm`), each starting a token (after a space, a quote, a
# bracket), where their letters are parts of a name, no words.
# (The mark first, then what may stand before it, looked behind: an expression that starts with a set of
# characters is searched for in C, one that starts looking behind is tried at every character: 2.5x faster.)
_OPTION_OR_DOTFILE = re.compile(r"(?:-(?<![^\s'\"(\[{<=,]-)-?|\.(?<![^\s'\"(\[{<=,]\.))[A-Za-z][\w.+-]*")
# A call or mark holds no white space: `_CALL` is only tried in the runs of non-space characters holding a
# bracket (`_bracketed_runs`); tried at every letter of a text, it reads each word to its end again.
_BRACKET = re.compile(r"[(\[]")
_RUN_END = re.compile(r"\S*")
# reST roles around a span (:func:`x`, `x`:func:), the marks a Markdown link or image points with, HTML tags
# and autolinks, and reference definitions ([label]: url): names and addresses, not prose.
_ROLE = re.compile(r":[A-Za-z][\w+.-]*(?::[\w+.-]+)*:(?=`)|(?<=`):[A-Za-z][\w+.-]*:")
_LINK_TARGET = re.compile(r"(?<=\])\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+\"[^\"\n]*\")?\)")
_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>\n]*)?/?>|<[A-Za-z][\w+.-]*:[^<>\s]+>")
_REFERENCE = re.compile(r"^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*\S+.*$", re.MULTILINE)
# reST field names (:param name:, :returns:, :maxdepth:) at the start of a line, and directive heads
# (.. note::, .. _target:, .. |name| image::): markup, not words.
_FIELD = re.compile(r"^([ \t]*):[^:\n`]+:(?=\s|$)", re.MULTILINE)
_DIRECTIVE_HEAD = re.compile(r"^[ \t]*\.\.[ \t]+(?:\|[^|\n]+\|[ \t]+)?[\w:+.-]+::.*$|^[ \t]*\.\.[ \t]+_[^:\n]+:.*$",
                             re.MULTILINE)
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_DIRECTIVE = re.compile(r"[ \t]*\.\.[ \t]+(?:\|[^|\n]+\|[ \t]+)?([\w:+.-]+)::")
# Directives whose body is code or data (their body is blanked); any other directive's body (note, warning,
# versionadded, a Sphinx `function::` description) is prose.
CODE_DIRECTIVES = frozenset({
    "code", "code-block", "sourcecode", "literalinclude", "highlight", "doctest", "testcode", "testoutput",
    "testsetup", "testcleanup", "math", "productionlist", "raw", "csv-table", "list-table", "graphviz",
    "digraph", "graph", "autosummary", "toctree", "index", "include",
})


def mask_code_spans(text: str) -> str:
    """`text` with its code spans (and the reST roles on them) and bare calls blanked."""
    if "`" in text:
        if ":" in text:  # roles first: they are found by the span beside them
            text = _ROLE.sub(_blank_match, text)
        text = _CODE_SPAN.sub(_blank_match, text)
    return mask_calls(text)


def mask_calls(text: str) -> str:
    """`text` with its bare calls (`systime()`, `foo(bar)`), command help's abbreviation marks, options
    (`--verbose`) and dot files (`.editrc`) blanked."""
    if "-" in text or "." in text:
        text = _OPTION_OR_DOTFILE.sub(_blank_match, text)
    return _blank_calls(text) if "(" in text or "[" in text else text


def _blank_calls(text: str) -> str:
    """`text` with the calls and marks in its runs of non-space characters that hold a bracket blanked. Each
    run is found from its first bracket, searched for in C, and read back to its start here: an expression
    for the whole run starts with a look behind, tried at every character (twice the time on the stdlib)."""
    pieces, done = [], 0
    while (bracket := _BRACKET.search(text, done)) is not None:
        start = bracket.start()
        while start > done and not text[start - 1].isspace():
            start -= 1
        end = _RUN_END.match(text, bracket.start()).end()
        pieces.append(text[done:start])
        pieces.append(_CALL.sub(_blank_match, text[start:end]))
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def mask_markdown(text: str) -> str:
    """A Markdown text with its fenced code blocks, code spans, link targets, HTML tags and reference
    definitions blanked."""
    text = mask_fences(text)
    text = _LINK_TARGET.sub(_blank_match, text)
    text = mask_code_spans(text)
    text = _TAG.sub(_blank_match, text)
    return _REFERENCE.sub(_blank_match, text)


def mask_rst(text: str) -> str:
    """A reStructuredText text (a .rst file or a docstring) with its literal blocks (after `::`), code
    directives, doctest sessions, inline literals, roles, field names and directive heads blanked."""
    text = mask_literal_blocks(text)
    text = mask_doctest(text)
    text = mask_code_spans(text)
    # (each pattern only where the text holds the mark it needs: most docstrings hold none of them)
    if ":" in text:
        text = _FIELD.sub(lambda m: m.group(1) + blank(m.group()[len(m.group(1)):]), text)
    if ".." in text:
        text = _DIRECTIVE_HEAD.sub(_blank_match, text)
    return _TAG.sub(_blank_match, text) if "<" in text else text


def mask_fences(text: str) -> str:
    """Markdown fenced blocks (``` or ~~~, closed by a fence of the same mark at least as long, or the end
    of the text) blanked, fences included."""
    if "```" not in text and "~~~" not in text:
        return text
    out, fence = [], None
    for line in text.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence is None:
            # a backtick fence's info string has no backtick (```python); otherwise it is a code span
            if opened and not (opened.group(1)[0] == "`" and "`" in line[opened.end():]):
                fence = opened.group(1)
                out.append(blank(line))
            else:
                out.append(line)
            continue
        out.append(blank(line))
        if (opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence)
                and not line[opened.end():].strip()):
            fence = None
    return "".join(out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def mask_literal_blocks(text: str) -> str:
    """reST literal blocks blanked: the lines indented deeper than a paragraph that ends with `::` (or than a
    code directive such as `.. code-block:: python`), up to the first line that is not."""
    if "::" not in text:
        return text
    out, base = [], None  # base: the indent the current literal block must exceed, None outside one
    for line in text.splitlines(keepends=True):
        body = line.strip()
        if base is not None:
            if not body or _indent(line) > base:
                out.append(blank(line))
                continue
            base = None
        out.append(line)
        directive = _DIRECTIVE.match(line)
        if directive:
            if directive.group(1) in CODE_DIRECTIVES:
                base = _indent(line)
        elif body.endswith("::"):
            base = _indent(line)
    return "".join(out)


def mask_doctest(text: str) -> str:
    """Doctest sessions blanked: each `>>>` line, its `...` continuations and its output lines (up to the
    next blank line or prompt)."""
    if ">>>" not in text:
        return text
    out, in_session = [], False
    for line in text.splitlines(keepends=True):
        body = line.strip()
        if body.startswith(">>>"):
            in_session = True
        elif not body:
            in_session = False
        out.append(blank(line) if in_session else line)
    return "".join(out)
