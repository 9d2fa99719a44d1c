"""Findings as LSP diagnostics: the word's range in the client's position units (UTF-16 unless the client and
server agreed on another: `pygls.workspace.PositionCodec`), a message naming the correction and its runners-up,
and the word and its suggestions in `data` (the code actions read them back)."""

from __future__ import annotations

from lsprotocol import types

from typofix.apps.check.findings import Finding

SOURCE = "typofix"


def word_range(lines: list[str], finding: Finding, codec) -> types.Range:
    """The range of the finding's word; `lines` are the checked text's lines (split at \\n)."""
    line = lines[finding.line - 1]
    start = codec.client_num_units(line[:finding.column - 1])
    end = start + codec.client_num_units(finding.word)
    return types.Range(types.Position(finding.line - 1, start), types.Position(finding.line - 1, end))


def message(finding: Finding) -> str:
    """`recieve ==> receive (or relieve)`: `typofix check`'s line, the runners-up after it."""
    others = finding.suggestions[1:]
    return f"{finding.word} ==> {finding.correction}" + (f" (or {', '.join(others)})" if others else "")


def to_diagnostics(text: str, findings: list[Finding], codec) -> list[types.Diagnostic]:
    lines = text.split("\n")
    return [types.Diagnostic(range=word_range(lines, f, codec), message=message(f),
                             severity=types.DiagnosticSeverity.Information, source=SOURCE, code=f.where,
                             data={"word": f.word, "suggestions": list(f.suggestions)})
            for f in findings]
