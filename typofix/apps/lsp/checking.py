"""One document's findings, as `typofix check` finds and judges those of a file of its name: the file's
reader (`typofix.apps.check.reader.scan_text`: comments and strings of code, Markdown and reST without their
code, plain text whole), the lines the model must weigh (`typofix.apps.check.triage`), its findings
(`FileChecker`) and the check's verdict (`Verdict`) against the document's own vocabulary, the known
misspellings and the user's words.

A document the client names without a file name (untitled:, a buffer) is read by its language id instead:
`name_for` gives it the name of a file of that language.
"""

from __future__ import annotations

import os
from urllib.parse import unquote, urlparse

from typofix.apps.check.checker import FileChecker
from typofix.apps.check.findings import Finding
from typofix.apps.check.known import known_misspellings
from typofix.apps.check.reader import scan_text
from typofix.apps.check.triage import sieved
from typofix.apps.check.verdict import Verdict
from typofix.apps.check.vocabulary import Vocabulary, WordUse
from typofix.apps.lsp.settings import ServerSettings

# Language ids (as LSP clients send them) and a file name of that language, for documents without a name.
NAMES = {"markdown": "x.md", "restructuredtext": "x.rst", "rst": "x.rst", "plaintext": "x.txt", "text": "x.txt",
         "python": "x.py", "javascript": "x.js", "javascriptreact": "x.jsx", "typescript": "x.ts",
         "typescriptreact": "x.tsx", "go": "x.go", "rust": "x.rs", "c": "x.c", "cpp": "x.cpp", "java": "x.java",
         "shellscript": "x.sh", "sh": "x.sh", "bash": "x.sh", "yaml": "x.yaml", "toml": "x.toml", "json": "x.json",
         "ruby": "x.rb", "lua": "x.lua", "html": "x.html", "css": "x.css", "makefile": "Makefile", "tex": "x.tex",
         "latex": "x.tex", "gitcommit": "COMMIT_EDITMSG.txt", "nroff": "x.1", "groff": "x.1", "man": "x.1"}


def name_for(uri: str, language_id: str | None) -> str:
    """The file name a document is read as: its own when its URI has one with an extension `check` knows the
    language of (or no language id says otherwise), else one for its language id."""
    parsed = urlparse(uri)
    own = os.path.basename(unquote(parsed.path)) if parsed.scheme in ("file", "") else ""
    if own and ("." in own or language_id not in NAMES):
        return own
    return NAMES.get(language_id or "", own or "x.txt")


class DocumentChecker:
    """Finds what `typofix check` would report in one document, with one corrector."""

    def __init__(self, corrector, settings: ServerSettings, user_words: tuple[str, ...], prose_threshold: float = 0.0):
        self.corrector, self.settings = corrector, settings
        self.user_words = frozenset(user_words) | frozenset(settings.words)
        self.known = known_misspellings()
        self.files = FileChecker(corrector, prose_threshold=prose_threshold)

    def accept(self, word: str) -> None:
        """Never report `word` again (added to the user's words)."""
        self.corrector.accepted.add([word])
        self.user_words |= {word}

    def findings(self, uri: str, language_id: str | None, text: str) -> list[Finding]:
        """The findings `typofix check` would report in `text`, the document at `uri`, in text order."""
        scan = scan_text(name_for(uri, language_id), text)
        vocabulary = Vocabulary(self.known)
        vocabulary.add(WordUse.of(scan))
        verdict = Verdict(vocabulary, self.settings.confidence, known=self.known, user_words=self.user_words)
        item = sieved(self.files.checkable(scan), verdict, self.corrector)  # (the lines no finding can come of)
        return [f for f, row in self.files.findings(item) if verdict.keep_in(f, row)]
