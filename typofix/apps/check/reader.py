"""One file, read for checking: its text (UTF-8, undecodable bytes carried through as surrogateescape,
line endings as they are) and its `Scan`, by the reader its language calls for."""

from __future__ import annotations

from typofix.apps.check.ignores import apply_ignores
from typofix.apps.check.languages import Language, language_of
from typofix.apps.check.lexed import scan_lexed
from typofix.apps.check.prose import mask_code_spans, mask_markdown, mask_rst
from typofix.apps.check.pysource import scan_python
from typofix.apps.check.regions import Scan


def read_text(path: str) -> str:
    """The file's text, every byte and line ending kept (a rewrite changes nothing but its words)."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        return f.read()


def scan_text(path: str, text: str) -> Scan:
    """The Scan of `text`, the content of the file at `path` (its name and first line pick the reader)."""
    language = language_of(path, text[:200].partition("\n")[0])
    if language.kind == "python":
        # Python the tokenizer cannot read (Python 2, a template) is read by Pygments' Python lexer
        scan = scan_python(path, text) or scan_lexed(path, text, Language("code", "python"))
    elif language.kind == "code":
        scan = scan_lexed(path, text, language)
    elif language.kind == "markdown":
        scan = Scan(path, text, language, mask_markdown(text))
    elif language.kind == "rst":
        scan = Scan(path, text, language, mask_rst(text))
    else:
        scan = Scan(path, text, language, mask_code_spans(text))
    return apply_ignores(scan)


def scan_file(path: str) -> Scan:
    return scan_text(path, read_text(path))
