"""Source in any language Pygments has a lexer for (JavaScript, TypeScript, Go, Rust, C, C++, Java, shell,
YAML, TOML, JSON, Makefile, ...), read through that lexer: comments, doc comments and string literals are
checked (a doc comment, String.Doc to Pygments, is a comment: -w may fix it; a string literal is data,
reported but never written), names are identifiers, and the keywords and builtins the lexer knows are
known words.

A string literal is the run of string tokens a lexer gives for it (quotes, text, escapes and the
interpolations inside: `"hello ${name} world"`, YAML's plain scalars word by word); its escapes,
interpolations and placeholders are blanked, and it is text only with white space between its words
(`typofix.apps.check.literals`). Preprocessor lines, shebangs, regular expressions, characters, symbols and
shell command substitutions are code."""

from __future__ import annotations

import re
from functools import lru_cache

from pygments.lexer import words as WordsPattern
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Keyword, Literal, Name, String, Text

from typofix.apps.check.languages import Language
from typofix.apps.check.literals import is_text, mask_comment, mask_literal
from typofix.apps.check.prose import blank, mask_code_spans, mask_rst
from typofix.apps.check.regions import Regions, Scan

_CODE_COMMENTS = (Comment.Preproc, Comment.PreprocFile, Comment.Hashbang)
# String tokens that are code even inside a literal: blanked, but they keep the literal together.
_IN_LITERAL = (String.Escape, String.Interpol, String.Affix, String.Delimiter, Name.Variable)
_NOT_TEXT = (String.Regex, String.Char, String.Symbol, String.Other)
_SHELLS = frozenset({"bash", "zsh", "tcsh", "fish", "powershell", "perl", "ruby", "make", "docker"})
_MARKUP = frozenset({"html", "xml"})  # their Text tokens are the document's text
_QUOTES = re.compile(r"[\"'`]+")  # a literal's own quotes (a JavaScript template's backticks are no code span)
_PATTERN_NOISE = re.compile(r"\\.|\(\?[^:)]*[:)]?|\[[^\]]*\]|\{[^}]*\}")


def _is(ttype, kinds) -> bool:
    return any(ttype in kind for kind in kinds)


@lru_cache(maxsize=64)
def lexer_words(alias: str) -> frozenset[str]:
    """The keywords and builtins a Pygments lexer's rules name (lowercase): the words of its `words(...)`
    lists and the alternatives of its keyword patterns, so `elif`, `fmt`, `println` are known words of
    their language whether or not the files at hand use them."""
    found: set[str] = set()
    for klass in type(get_lexer_by_name(alias)).__mro__:
        for rules in (klass.__dict__.get("tokens") or {}).values():
            for rule in rules:
                if not (isinstance(rule, tuple) and len(rule) >= 2 and _is(rule[1], (Keyword, Name.Builtin))):
                    continue  # a rule for other tokens, or one whose action is a callback (bygroups)
                if isinstance(rule[0], WordsPattern):
                    found.update(rule[0].words)
                elif isinstance(rule[0], str):
                    found.update(re.findall(r"[A-Za-z][A-Za-z0-9_]+", _PATTERN_NOISE.sub(" ", rule[0])))
    return frozenset(w.lower() for w in found)


def scan_lexed(path: str, text: str, language: Language) -> Scan:
    """The Scan of source in `language` (a "code" language with a Pygments lexer alias)."""
    lexer = get_lexer_by_name(language.lexer, stripnl=False, stripall=False, ensurenl=False)
    shell = language.lexer in _SHELLS
    markup = language.lexer in _MARKUP
    regions = Regions(text)
    literal: list[tuple[int, str, bool]] = []  # the literal being read: (offset, value, text or code)
    interpolating = False
    for index, ttype, value in lexer.get_tokens_unprocessed(text):
        stringy = ttype in String or ttype in Literal.Scalar.Plain
        textual = stringy and not _is(ttype, _NOT_TEXT) and not (shell and ttype in String.Backtick)
        if literal and (textual or _is(ttype, _IN_LITERAL) or interpolating
                        or (not value.strip() and "\n" not in value)):
            if ttype in String.Interpol:
                interpolating = value.rstrip().endswith(("{", "(")) or (interpolating and "}" not in value)
            code = interpolating or _is(ttype, _IN_LITERAL) or ttype in String.Interpol or _QUOTES.fullmatch(value)
            literal.append((index, value, not code))
            continue
        if literal:
            _flush(regions, literal)
            literal, interpolating = [], False
        if textual:
            if ttype in String.Doc:
                regions.add(index, mask_rst(mask_literal(value)))
            else:
                literal.append((index, value, not _QUOTES.fullmatch(value)))
                interpolating = ttype in String.Interpol and value.rstrip().endswith(("{", "("))
        elif ttype in Comment and not _is(ttype, _CODE_COMMENTS):
            regions.add(index, mask_comment(value))
        elif ttype in Keyword or ttype in Name.Builtin:
            regions.keywords.add(value.lower())
        elif ttype in Name:
            regions.identifier(index, value)
        elif markup and ttype in Text and value.strip():
            regions.add(index, mask_code_spans(value))
    if literal:
        _flush(regions, literal)
    return regions.scan(path, language)


def _flush(regions: Regions, literal: list[tuple[int, str, bool]]) -> None:
    """Add a literal's tokens as text (white space between words) or as a one-word literal."""
    while literal and not literal[-1][1].strip():  # white space after the last string token is not its own
        literal.pop()
    if not literal:
        return
    start = literal[0][0]
    raw = "".join(value for _, value, _ in literal)
    masked = mask_literal("".join(value if keep else blank(value) for _, value, keep in literal))
    if is_text(raw):
        regions.add(start, masked, string=True)  # data (an event name, a pattern, a key): reported, not written
    elif masked.strip(" \t\"'`"):
        word = masked.strip(" \t\"'`")
        offset = masked.index(word)
        regions.literal(start + offset, raw[offset:offset + len(word)])
