"""`typofix lsp` through the real command, driven by pygls' own LSP client over the subprocess's stdio: what an
editor sees (diagnostics, code actions, incremental edits, settings, adding a word), with no editor installed.
A real editor (Neovim): tests/test_lsp_neovim.py."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

MARKDOWN = "# Letters\n\nWe recieve the letter and teh parcel.\n"
PYTHON = 'def recieve_data(x):\n    # teh data arrives definately late\n    return x\n'
WAIT = 120  # seconds an answer may take on a loaded machine (the engine loads first): a limit, not a measure


class Client(LanguageClient):
    """pygls' client, keeping what the server publishes and logs."""

    def __init__(self):
        super().__init__("typofix-test", "1")
        self.diagnostics: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.logs: list[str] = []
        self.errors: list[str] = []  # what the server reported failing (a check that raised): no test expects one
        self.arrived = asyncio.Event()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams):
            self.diagnostics.setdefault(params.uri, []).append(params)
            self.arrived.set()

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def logged(params: types.LogMessageParams):
            self.logs.append(params.message)
            if params.type == types.MessageType.Error:
                self.errors.append(params.message)
            self.arrived.set()

        @self.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(params: types.ConfigurationParams):
            return [{"words": ["Gregor"]} for _ in params.items]

    async def until(self, found):
        """Wait until `found()` is true (each time something arrives); fail at once, with the server's message,
        when the server reports an error, rather than wait out the limit for what will not come."""
        async def wait():
            while not found():
                assert not self.errors, f"the server failed: {self.errors[0]}"
                self.arrived.clear()
                await self.arrived.wait()
        await asyncio.wait_for(wait(), WAIT)

    def latest(self, uri: str, version: int | None = None) -> types.PublishDiagnosticsParams | None:
        published = [p for p in self.diagnostics.get(uri, []) if version is None or p.version == version]
        return published[-1] if published else None


def spans(params: types.PublishDiagnosticsParams) -> list[tuple[int, int, int, str]]:
    return [(d.range.start.line, d.range.start.character, d.range.end.character, d.data["word"])
            for d in params.diagnostics]


def open_params(uri: str, language: str, text: str) -> types.DidOpenTextDocumentParams:
    return types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text))


def change(uri: str, version: int, line: int, start: int, end: int, text: str) -> types.DidChangeTextDocumentParams:
    edit = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(line, start), types.Position(line, end)), text=text)
    return types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(uri=uri, version=version), [edit])


async def session(tmp_path):
    client = Client()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    await client.start_io(sys.executable, "-m", "typofix", "lsp", "--stdio", env=env, cwd=str(tmp_path))
    capabilities = types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(configuration=True))
    result = await client.initialize_async(types.InitializeParams(
        capabilities=capabilities, process_id=os.getpid(), root_uri=tmp_path.as_uri(),
        initialization_options={"preset": "default", "confidence": 2.0, "colour": "blue"}))
    assert result.server_info.name == "typofix"
    assert result.capabilities.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert list(result.capabilities.execute_command_provider.commands) == ["typofix.addWord"]
    client.initialized(types.InitializedParams())
    return client


def test_diagnostics_actions_edits_settings_and_words(tmp_path):
    asyncio.run(scenario(tmp_path))


async def scenario(tmp_path):
    client = await session(tmp_path)
    try:
        await client.until(lambda: any("unknown typofix settings: colour" in m for m in client.logs))
        md, py = (tmp_path / "note.md").as_uri(), (tmp_path / "tool.py").as_uri()
        client.text_document_did_open(open_params(md, "markdown", MARKDOWN))
        await client.until(lambda: client.latest(md, 1))
        first = client.latest(md, 1)
        assert spans(first) == [(2, 3, 10, "recieve"), (2, 26, 29, "teh")]
        messages = [d.message for d in first.diagnostics]
        assert "receive" in messages[0].split() and "the" in messages[1].replace(",", " ").split()
        assert {d.source for d in first.diagnostics} == {"typofix"}

        # code actions at the first word: each suggestion as an edit, the correction preferred, then "add"
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(md), range=types.Range(types.Position(2, 5), types.Position(2, 5)),
            context=types.CodeActionContext(diagnostics=[])))
        replace = [a for a in actions if getattr(a, "edit", None) is not None]
        assert replace[0].title == "Replace with 'receive'" and replace[0].is_preferred
        assert replace[0].edit.changes[md][0].new_text == "receive"
        assert replace[0].edit.changes[md][0].range == first.diagnostics[0].range
        # (pygls' client reads a CodeAction with a command back as a Command: the title tells them apart)
        assert [a.title for a in actions if a.title.startswith("Add")] == ["Add 'recieve' to your words"]

        # incremental edits, sent at once: only the last version's findings count, and no result is labelled
        # with a version whose text it was not computed from
        client.text_document_did_change(change(md, 2, 2, 26, 29, "the"))  # teh -> the
        client.text_document_did_change(change(md, 3, 2, 3, 10, "receive"))  # recieve -> receive
        client.text_document_did_change(change(md, 4, 2, 0, 0, "Definately, "))
        await client.until(lambda: client.latest(md, 4))
        assert spans(client.latest(md, 4)) == [(2, 0, 10, "Definately")]
        for published in client.diagnostics[md]:
            expected = {1: spans(first), 2: [(2, 3, 10, "recieve")], 3: [], 4: [(2, 0, 10, "Definately")]}
            assert spans(published) == expected[published.version]

        # code: comments and strings only, never the names
        client.text_document_did_open(open_params(py, "python", PYTHON))
        await client.until(lambda: client.latest(py, 1))
        assert [s[3] for s in spans(client.latest(py, 1))] == ["teh", "definately"]

        # positions count UTF-16 code units, as LSP says: the emoji is two; an untitled buffer is read by its language
        untitled = "untitled:Untitled-1"
        client.text_document_did_open(open_params(untitled, "plaintext", "\U0001F600 na\u00efve teh cat\n"))
        await client.until(lambda: client.latest(untitled, 1))
        assert spans(client.latest(untitled, 1)) == [(0, 9, 12, "teh")]

        # settings: only python documents are checked now; the markdown's diagnostics are withdrawn
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"typofix": {"languages": ["python"], "confidence": "high"}}))
        await client.until(lambda: not client.latest(md).diagnostics)
        assert any("confidence must be a number" in m for m in client.logs)

        # add a word: saved to the personal list, and no longer reported
        await client.workspace_execute_command_async(types.ExecuteCommandParams("typofix.addWord", ["definately"]))
        assert (tmp_path / "config" / "typofix" / "words.txt").read_text() == "definately\n"
        await client.until(lambda: [s[3] for s in spans(client.latest(py))] == ["teh"])

        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(py)))
        await client.until(lambda: not client.latest(py).diagnostics)
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        if client._server.returncode is None:  # a failure above: do not wait for a server never told to exit
            client._server.kill()
        await client.stop()


def test_a_bad_word_list_is_one_line_and_exit_2(tmp_path):
    done = subprocess.run([sys.executable, "-m", "typofix", "lsp", "--words", str(tmp_path / "nope.txt")],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
                          env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path)})
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
