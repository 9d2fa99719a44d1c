"""Text handling for the corrector: split text into the words a model may rewrite and everything else, and
carry a word's case over to its correction. Pure Python; joining the pieces gives back the text exactly.

What counts as a word to correct: a run of ASCII letters of 2..`max_len` characters written in lower case,
UPPER CASE or Title case. Left as they are: URLs, e-mail addresses, numbers and words with digits, words with
non-ASCII letters, mixed-case words (iPhone, McDonald), over-long tokens, single letters, and apostrophe forms
other than the usual clitics. Hyphenated words are corrected part by part; a clitic ('s, n't, 're, ...) is
split off and the stem alone is corrected.

Also left as they are, unless `leave_special=False` (special tokens, written on purpose and rarely typos):
acronyms (all-caps words of 2-5 letters: NASA, OK), Roman numerals of 2+ letters in upper or lower case (XIV,
ii), initials (a capital, or a capital and one small letter, right before a full stop: H., Wm., Jr.), code
(snake_case, dotted names such as os.path or config.yaml, paths such as /usr/bin, ./configure, ~/notes,
src/main.c, C:\\Users, anything in `backticks`), #hashtags and @mentions, and any word touching a lone
surrogate (a byte that was not valid UTF-8, read with errors="surrogateescape"): Caf\\udce9 is no "Caf".
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

MAX_WORD_LEN = 30

# Order matters: a URL or an address is taken whole before its parts could be read as words. The bounded
# repeats keep a long run of junk ("a.a.a.a...") linear: no start position rescans the whole run.
_URL = r"(?P<url>\b(?:[a-z][a-z0-9+.\-]{0,20}://|www\.)[^\s<>\"]+)"
_EMAIL = r"(?P<email>\b[\w.+\-]{1,64}@[\w\-]+(?:\.[\w\-]+)+)"
_WORD = r"(?P<word>[^\W_]+(?:['\u2019\-][^\W_]+)*)"
# Code and tags, tried before words. Each either starts only on its own mark (` # @ / ~ . X:\) or scans a
# bounded run, so junk stays linear too. A relative path needs two slashes or a file name with an extension
# (src/lib/x, src/main.c): with one slash and no dot it is prose (and/or, km/h, colour/color). An identifier
# needs an underscore between letters or digits, or dunder marks: _emphasis_ in plain text is prose.
_SPECIAL = r"""(?P<special>
      `[^`\n]{1,200}`                                         # `inline code`
    | (?<!\w)[#@]\w+                                          # #hashtag, @mention
    | (?<![\w.~/\\])(?:~|\.\.?)?/[\w.\-~+%/]*                 # /usr/bin/slapd, ./configure, ~/notes
    | (?<!\w)[a-z]:\\[\w.\-~+%\\]*                            # C:\Users
    | \w[\w.\-+]{0,64}(?:/[\w.\-+]{1,64}){2,32}               # src/lib/x
    | \w[\w.\-+]{0,64}/[\w\-+]{1,64}(?:\.[\w\-+]{1,64}){1,8}  # src/main.c
    | _{0,8}[^\W_]\w*(?:\.\w+)+                               # os.path, config.yaml, e.g, J.R.R, __init__.py
    | _{0,8}[^\W_]+(?:_+[^\W_]+)+_*                           # snake_case, MAX_LEN, _GNU_SOURCE
    | __[^\W_]\w*__                                           # __init__
)"""
# Every token starts with a word character or one of these marks: the look-ahead turns every other place (white
# space, most punctuation) away at once, where each alternative would be tried in turn.
_TOKEN_START = r"(?=[\w.+\-`#@~/])"
_TOKEN = re.compile(_TOKEN_START + "(?:%s)" % "|".join([_URL, _EMAIL, _WORD]), re.VERBOSE | re.IGNORECASE)
_TOKEN_SPECIAL = re.compile(_TOKEN_START + "(?:%s)" % "|".join([_URL, _EMAIL, _SPECIAL, _WORD]),
                            re.VERBOSE | re.IGNORECASE)
# What any token but a word needs somewhere in the text: a URL's "://" or "www.", an address's @, a mark code or a
# tag starts with or holds (` # @ / \\ _), a dotted name's dot before a word character. A text without any of them
# holds words alone, which `_WORD_SPLIT` finds as the token patterns would (they try a word last).
_NOT_ONLY_WORDS = re.compile(r"[`#@/\\_]|\.\w|www\.", re.IGNORECASE)
_WORD_SPLIT = re.compile(_WORD, re.IGNORECASE)
_ASCII_WORD = re.compile(r"[A-Za-z]+")
# Clitics split off a stem: "doesn't" is "does" + "n't". The contractions whose stem is no word stay whole.
_CLITIC = re.compile(r"(?:n['\u2019]t|['\u2019](?:s|re|ve|ll|d|m))$", re.IGNORECASE)
_WHOLE_CONTRACTIONS = {"can't", "won't", "shan't", "ain't"}
_ACRONYM = re.compile(r"[A-Z]{2,5}")
# Well-formed: thousands, hundreds, tens, units in that order, each digit in its one subtractive or additive
# spelling (XIV, MCMXC; not IIII, VX, IC). "civil" and "mid" are not numerals; "mix" is, and a word anyway.
_ROMAN = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_INITIAL = re.compile(r"[A-Z][a-z]?")  # before a full stop: H. Wm. Jr.
_SURROGATES = re.compile(r"[\ud800-\udfff]")  # surrogateescape gives U+DC80..U+DCFF; no other lone one is text


class Piece(NamedTuple):
    """A slice of the text: `word` True when the model may rewrite it, False when it is copied as it is."""

    text: str
    word: bool


def split_text(text: str, max_len: int = MAX_WORD_LEN, leave_special: bool = True) -> list[Piece]:
    """The text as pieces, in order; `"".join(p.text for p in pieces) == text` always holds. `leave_special`
    copies acronyms, numerals, initials, code, tags and words touching undecodable bytes (see the module
    docstring); False hands them to the model like any other word. Copied text comes whole between two
    words: word / copied / word ..."""
    bad_bytes = leave_special and _SURROGATES.search(text) is not None  # one scan, not two matches a word
    if _NOT_ONLY_WORDS.search(text) is None:
        return _split_words(text, max_len, leave_special, bad_bytes)
    return _split_tokens(text, max_len, leave_special, bad_bytes)


def _split_tokens(text: str, max_len: int, leave_special: bool, bad_bytes: bool) -> list[Piece]:
    """`split_text` of any text, token by token (URLs, addresses, code and tags found and copied)."""
    pieces: list[Piece] = []
    copied = 0  # where the copied text not yet in a piece starts (it goes on up to the next word)
    for match in (_TOKEN_SPECIAL if leave_special else _TOKEN).finditer(text):
        token = match.group()
        if match.lastgroup != "word" or len(token) > max_len:
            continue
        at, end = match.span()
        if leave_special and ((bad_bytes and _touches_bad_byte(text, at, end))
                              or (text.startswith(".", end) and _INITIAL.fullmatch(token))):
            continue
        copied = _add_word(pieces, text, token, at, copied, max_len, leave_special)
    if copied < len(text):
        pieces.append(Piece(text[copied:], False))
    return pieces


def _add_word(pieces: list[Piece], text: str, token: str, at: int, copied: int, max_len: int,
              leave_special: bool) -> int:
    """Append the word `token`, at `at` of `text`, to `pieces` as its word pieces, each after the copied text
    before it (from `copied` on); where the copied text not yet in a piece now starts."""
    word_pieces = _word_pieces(token, max_len, leave_special)
    if len(word_pieces) == 1:  # (the token whole, as most are: no loop)
        piece = word_pieces[0]
        if not piece.word:
            return copied
        if at > copied:
            pieces.append(_new_tuple(Piece, (text[copied:at], False)))
        pieces.append(piece)
        return at + len(piece.text)
    for piece in word_pieces:
        if piece.word:
            if at > copied:
                pieces.append(_new_tuple(Piece, (text[copied:at], False)))
            pieces.append(piece)
            copied = at + len(piece.text)
        at += len(piece.text)
    return copied


# A piece of copied text is made by tuple's own __new__: a named tuple's is a Python function, and a text has a
# copied piece between every two words
_new_tuple = tuple.__new__


def _split_words(text: str, max_len: int, leave_special: bool, bad_bytes: bool) -> list[Piece]:
    """`split_text` of a text where no token but a word can start (`_NOT_ONLY_WORDS` finds nothing): the same
    pieces, from one `re.split` in C (every other part a word token) instead of a match object a token. Most
    lines of prose and comments are such text."""
    parts = _WORD_SPLIT.split(text)  # text between words, a word, text between words, ..., the text after
    pieces: list[Piece] = []
    copied = 0  # as in `split_text`
    at = len(parts[0])
    for k in range(1, len(parts), 2):
        token, after = parts[k], parts[k + 1]
        end = at + len(token)
        if len(token) <= max_len and not (leave_special and (
                (bad_bytes and _touches_bad_byte(text, at, end))
                or (after[:1] == "." and _INITIAL.fullmatch(token)))):
            copied = _add_word(pieces, text, token, at, copied, max_len, leave_special)
        at = end + len(after)
    if copied < len(text):
        pieces.append(Piece(text[copied:], False))
    return pieces


def neighbours(pieces: list[Piece], i: int) -> tuple[str | None, str | None]:
    """The lowercase words right before and after word piece `i` where only white space separates them: a
    word piece, or a plain word the copied text ends or starts with (the single letters "a" and "I", an
    acronym). A sentence end, a comma, a number or any other token between means no neighbour on that side."""
    left = right = None
    if i >= 1 and not pieces[i - 1].word:
        if pieces[i - 1].text.isspace():
            left = pieces[i - 2].text.lower() if i >= 2 else None
        elif found := _LAST_WORD.search(pieces[i - 1].text):
            left = found.group(1).lower()
    if i + 1 < len(pieces) and not pieces[i + 1].word:
        if pieces[i + 1].text.isspace():
            right = pieces[i + 2].text.lower() if i + 2 < len(pieces) else None
        elif found := _FIRST_WORD.match(pieces[i + 1].text):
            right = found.group(1).lower()
    return left, right


def starts_sentence(pieces: list[Piece], i: int) -> bool:
    """Whether piece `i` opens a sentence: nothing but white space, opening quotes or brackets before it since
    the start of the text or of a line (or a heading's, a list item's, a quote's or a comment's mark there,
    `LINE_MARKS`, with its sentence going on after it), or a full stop, question or exclamation mark, or colon. A capital there says nothing about
    the word; inside a sentence it says "a name"."""
    for j in range(i - 1, -1, -1):  # (not `reversed(pieces[:i])`: a copy of the text's pieces at every call)
        piece = pieces[j]
        text = piece.text.rstrip(_OPENERS)
        if "\n" in piece.text[len(text):] or "\r" in piece.text[len(text):]:
            return True  # a line opens a sentence (a heading, a list item): as a text read line by line sees it
        if text:
            if text[-1] in ".!?:":
                return True
            on_line = _LINE_BREAK.split(piece.text)[-1]
            line_start = len(on_line) < len(piece.text) or j == 0
            return (line_start and LINE_MARKS.fullmatch(on_line.rstrip(_QUOTES_AND_BRACKETS)) is not None
                    and _sentence_goes_on(pieces, i))
    return True


def _sentence_goes_on(pieces: list[Piece], i: int) -> bool:
    """Whether piece `i` is followed, past a space, by a word in lower case: a sentence goes on so, where a
    label (`# Wolof`, `# Dari - Afghanistan`, `- Jane Doe`) is a name as often as not, and no sentence."""
    following = pieces[i + 1:i + 3]
    return (len(following) == 2 and following[0].text in (" ", "\t") and following[1].word
            and following[1].text[:1].islower())


_OPENERS = " \t\r\n\"'([{\u201c\u2018"  # white space, and what may open a sentence before its first word
_QUOTES_AND_BRACKETS = "\"'([{\u201c\u2018"
_LINE_BREAK = re.compile(r"\r\n?|\n")
# What a line may start with before its first word that is neither code nor a word: a heading's mark, a list
# item's bullet, a quote's mark, a comment's (`# Title`, `- item`, `* item`, `> quoted`, `// note`, `; note`,
# `% note`, `-- note`), then white space
LINE_MARKS = re.compile(r"[ \t]*(?:#{1,6}|[-*+>]|//+|;+|%+|--)[ \t]+")


_LAST_WORD = re.compile(r"(?:^|(?<=\s))([A-Za-z]+)\s+$")  # copied text ending in a word and white space
_FIRST_WORD = re.compile(r"\s+([A-Za-z]+)(?=\s|$)")  # copied text starting with white space and a word


def _touches_bad_byte(text: str, start: int, end: int) -> bool:
    """A lone surrogate right before or after text[start:end]: the word is part of a token whose real spelling
    we cannot see (Caf + an undecodable byte), so no correction of its ASCII part can be right."""
    return bool(_SURROGATES.match(text, end) or (start and _SURROGATES.match(text, start - 1)))


@lru_cache(maxsize=1 << 16)  # text repeats its words: a page of 20,000 words has a few thousand distinct ones
def _word_pieces(token: str, max_len: int, leave_special: bool) -> tuple[Piece, ...]:
    """A word token (letters and digits joined by apostrophes or hyphens) as pieces: each hyphen part is
    corrected on its own; the whole token is left alone when any part is not an ordinary ASCII word. An
    acronym or numeral part is left alone without spoiling the rest (FBI-approved, FBI's)."""
    if _ASCII_WORD.fullmatch(token):  # the common case, one plain word
        return (Piece(token, _to_correct(token, max_len, leave_special)),)
    parts = re.split(r"(-)", token)  # keeps the hyphens: ["well", "-", "knwon"]
    pieces = []
    for part in parts:
        if part == "-":
            pieces.append(Piece(part, False))
            continue
        clitic = None if part.lower().replace("\u2019", "'") in _WHOLE_CONTRACTIONS else _CLITIC.search(part)
        stem = part[:clitic.start()] if clitic else part
        if not _correctable(stem, max_len) and not _known_shape(stem):
            return (Piece(token, False),)
        pieces.append(Piece(stem, _to_correct(stem, max_len, leave_special)))
        if clitic:
            pieces.append(Piece(clitic.group(), False))
    return tuple(pieces)


def _correctable(word: str, max_len: int) -> bool:
    return 2 <= len(word) <= max_len and bool(_ASCII_WORD.fullmatch(word)) and case_shape(word) is not None


def _to_correct(word: str, max_len: int, leave_special: bool) -> bool:
    """A word the model may rewrite: correctable, and no acronym or numeral where those are left alone."""
    return _correctable(word, max_len) and not (leave_special and _is_acronym_or_numeral(word))


def _is_acronym_or_numeral(word: str) -> bool:
    """NASA, OK (all caps, 2-5 letters); XIV, MCMXC, xiv (a well-formed Roman numeral, all upper or all lower)."""
    if _ACRONYM.fullmatch(word):
        return True
    return len(word) >= 2 and (word.isupper() or word.islower()) and _ROMAN.fullmatch(word.upper()) is not None


def _known_shape(word: str) -> bool:
    """A part that is left alone without spoiling its compound: a single ASCII letter (the "e" of e-mail)."""
    return len(word) == 1 and bool(_ASCII_WORD.fullmatch(word))


def case_shape(word: str) -> str | None:
    """'lower', 'upper' or 'title' for a word written in one of those ways, else None (mixed case)."""
    if word.islower():
        return "lower"
    if word.isupper():
        return "upper"
    if word[:1].isupper() and word[1:].islower():
        return "title"
    return None


def match_case(template: str, word: str) -> str:
    """`word` (lower case) written in the case of `template`: teh -> the, Teh -> The, TEH -> THE."""
    shape = case_shape(template)
    if shape == "upper":
        return word.upper()
    if shape == "title":
        return word[:1].upper() + word[1:]
    return word


def read_chunks(readline, limit: int = 1 << 16):
    """Text from `readline(limit)` (a text stream's) as (text, literal) pieces that never cut a word, so memory
    stays bounded on any input: whole lines where they are short; a longer line is cut after its last space;
    a run of `limit` characters with no space is no word and comes as literal pieces (copied, never corrected)
    up to the next whitespace."""
    carry, in_long_run = "", False
    while True:
        line = readline(limit)
        text, carry = carry + line, ""
        if not text:
            return
        if in_long_run:  # the rest of a run too long to be a word, up to the next whitespace
            cut = next((i for i, ch in enumerate(text) if ch.isspace()), len(text))
            if cut:
                yield text[:cut], True
            text, in_long_run = text[cut:], cut == len(text)
            if not text:
                continue
        if not line or line.endswith("\n") or len(line) < limit:  # a whole line, or the end of the input
            yield text, False
            continue
        cut = max(text.rfind(" "), text.rfind("\t")) + 1
        if cut == 0:
            yield text, True
            in_long_run = True
        else:
            yield text[:cut], False
            carry = text[cut:]


OUTPUT_MARGIN = 8  # a correction is rarely much longer than its typo: its length plus this many characters


def max_output_length(src_len) -> int:
    """The most characters any output of a batch may have: its longest source plus `OUTPUT_MARGIN`."""
    return int(max(src_len)) + OUTPUT_MARGIN
