"""The code actions of a reported word: replace it with each of its suggestions (the correction first, the
preferred action), and add it to your words (the command `ADD_WORD`, which the server runs: the personal list
of `typofix.files.userwords`, the one every typofix command reads)."""

from __future__ import annotations

from lsprotocol import types

ADD_WORD = "typofix.addWord"


def overlaps(a: types.Range, b: types.Range) -> bool:
    """Whether two ranges share a position (an empty range touching a word counts: a cursor on it)."""
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and \
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)


def code_actions(uri: str, diagnostics: list[types.Diagnostic], wanted: types.Range) -> list[types.CodeAction]:
    """The actions for the reported words in range `wanted` of the document at `uri`."""
    actions = []
    for diagnostic in diagnostics:
        if not overlaps(diagnostic.range, wanted):
            continue
        word, suggestions = diagnostic.data["word"], diagnostic.data["suggestions"]
        for i, suggestion in enumerate(suggestions):
            edit = types.WorkspaceEdit(changes={uri: [types.TextEdit(range=diagnostic.range, new_text=suggestion)]})
            actions.append(types.CodeAction(title=f"Replace with '{suggestion}'", kind=types.CodeActionKind.QuickFix,
                                            diagnostics=[diagnostic], edit=edit, is_preferred=i == 0))
        actions.append(types.CodeAction(
            title=f"Add '{word}' to your words", kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            command=types.Command(title=f"Add '{word}' to your words", command=ADD_WORD, arguments=[word])))
    return actions
