"""Which of `check`'s findings -w writes: a finding of text, sure enough (`--write-confidence`), standing in a
comment, a docstring or doc comment, or the prose of a text, Markdown or reST file, and not code-shaped there.

Never written, though still reported (`"fixable": false` in --json):

* a word in a string literal of code that is no docstring (`Scan.strings`): a string is data, whatever it
  reads like (an event list `"keydown keyup"`, a shell pattern, a key, SQL), and a program's data is not
  ours to change;
* a code-shaped word (`code_shaped`), even in a comment or in prose: `$map{key}`, `obj.attr`, `--flag`, a
  word in a code span. Code that the readers did not blank is still code.
"""

from __future__ import annotations

from functools import lru_cache

from typofix.apps.check.findings import Finding
from typofix.apps.check.prose import mask_code_spans
from typofix.apps.check.checkable import Row
from typofix.words.shape import line_bounds

# A token holding one of these around a word is code: a variable ($x, ${x}), an index or a call (m[k], f(x)),
# an assignment, a name (snake_case), a path, an escape, a decorator or an address, an attribute or a
# scope (a.b, a::b), a code span.
CODE_MARKS = frozenset("${}[]()=_/\\@.:`")
CODE_STARTS = ("-", "$", "%", "#")  # an option (-v, --verbose), a variable, a placeholder, a reference
# What may stand before or after a word of prose, and is no code: quotes, brackets, emphasis, punctuation.
_OPENERS = "\"'([*\u201c\u2018"
_CLOSERS = "\"')]*.,;:!?\u201d\u2019"
_REACH = 200  # a run of more characters than this without white space around a word is code anyway


def code_shaped(text: str, start: int, end: int) -> bool:
    """Whether the word at text[start:end] is code in its surroundings: inside a code span or a bare call
    (`typofix.apps.check.prose.mask_code_spans`, as the readers blank them), after an unclosed backtick
    on its line, or part of a larger token (the run of non-space characters around it, the quotes,
    brackets, emphasis and punctuation of prose taken off its ends, a Markdown link's target too) that
    holds one of `CODE_MARKS` or starts with one of `CODE_STARTS`."""
    line_start, line_end = line_bounds(text, start, end)
    line = text[line_start:line_end]
    at, to = start - line_start, end - line_start
    if not _masked(line)[at:to].strip() or line.count("`", 0, at) % 2:
        return True
    left = at
    while left > 0 and not line[left - 1].isspace():
        left -= 1
        if at - left > _REACH:
            return True
    right = to
    while right < len(line) and not line[right].isspace():
        right += 1
        if right - to > _REACH:
            return True
    after = line[to:right]
    link = after.find("](")
    if link >= 0:  # [word](https://...): the target is the link's, not the word's
        after = after[:link + 1]
    token = (line[left:at].lstrip(_OPENERS) + line[at:to] + after.rstrip(_CLOSERS))
    return token.startswith(CODE_STARTS) or not CODE_MARKS.isdisjoint(token)


# A line's code spans and calls blanked, kept for the next finding of the same line: a long line (minified code,
# a data file) holds thousands of findings, and masking it whole for each took minutes
_masked = lru_cache(maxsize=4)(mask_code_spans)


def fixable(finding: Finding, row: Row | None, write_confidence: float, markup_blanked: bool = False) -> bool:
    """Whether -w writes `finding`, which stands in `row` (None: a literal's or a name's): a text finding
    whose confidence is `write_confidence` or more, outside the code's string literals, and not code-shaped
    (in the row as written, or, where its reader blanked the markup around words, `markup_blanked`: LaTeX's
    `\\section{...}`, in the row as masked)."""
    at = finding.start - row.start if row is not None else 0  # (where in the row: a row may start inside its line)
    return (finding.where == "text" and row is not None and finding.confidence is not None
            and finding.confidence >= write_confidence and not row.in_string(at)
            and not code_shaped(row.masked if markup_blanked else row.text, at, at + len(finding.word)))
