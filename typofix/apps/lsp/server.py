"""The language server: pygls' `LanguageServer` with typofix's handlers.

Lifecycle: `initialize` reads `initializationOptions` (`typofix.apps.lsp.settings`); `initialized` loads the
engine in the worker (so the first document does not wait for it as long) and asks the client for its
`typofix` configuration where it can answer; `workspace/didChangeConfiguration` applies new settings and checks
every open document again. Documents: full text on open, incremental changes after (pygls' workspace applies
them); diagnostics are published per document version (`typofix.apps.lsp.scheduler`). A failure of the engine
(a bad model file) is shown to the user once per cause and the server goes on.
"""

from __future__ import annotations

import logging

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from typofix import __version__
from typofix.apps.lsp.actions import ADD_WORD, code_actions
from typofix.apps.check.verdict import DETECT_THRESHOLD
from typofix.apps.lsp.checking import DocumentChecker
from typofix.apps.lsp.diagnostics import to_diagnostics
from typofix.apps.lsp.scheduler import DEBOUNCE, Scheduler
from typofix.apps.lsp.settings import ServerSettings, read_settings
from typofix.files.exits import one_line

SECTION = "typofix"  # the workspace configuration section


class TypofixServer(LanguageServer):
    def __init__(self, user_words: tuple[str, ...] = ()):
        super().__init__("typofix", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.user_words = user_words
        self.settings = ServerSettings()
        self.scheduler = Scheduler()
        self.checker: DocumentChecker | None = None  # built and used in the worker thread only
        self.generation = 0  # bumped by new settings and words: results computed before are stale
        self.published: dict[str, tuple[int | None, list[types.Diagnostic]]] = {}
        self.reported: set[str] = set()

    # --- in the worker thread ---------------------------------------------------------------------------------

    def current_checker(self) -> DocumentChecker:
        """The checker for the current settings, built (the engine loaded) when they changed."""
        settings = self.settings
        if self.checker is None or self.checker.settings != settings:
            from typofix.engine.jobs import CorrectorRecipe
            from typofix.engine.settings import DecodingSettings

            decoding = DecodingSettings.preset(settings.preset)
            # the corrector proposes as `correct` does, the check's threshold then judges (as `typofix check`)
            prose_threshold = decoding.detect_threshold  # (prose documents: as `typofix check` judges them)
            decoding = decoding.with_(min_confidence=min(decoding.min_confidence, settings.confidence),
                                      detect_threshold=DETECT_THRESHOLD)
            words = tuple(dict.fromkeys(self.user_words + settings.words))
            corrector = CorrectorRecipe(None, decoding, words).load()
            self.checker = DocumentChecker(corrector, settings, words, prose_threshold)
        return self.checker

    # --- on the event loop ------------------------------------------------------------------------------------

    def apply_settings(self, options, where: str) -> None:
        read = read_settings(options, self.settings)
        for problem in read.problems:
            self.log(f"{where}: {problem}", types.MessageType.Warning)
        if read.settings != self.settings:
            self.settings = read.settings
            self.generation += 1
            self.check_all()

    def log(self, text: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=f"typofix: {text}"))

    def failed(self, error: Exception) -> None:
        text = one_line(error)
        self.log(text, types.MessageType.Error)
        if text not in self.reported:  # once per cause, not once per keystroke
            self.reported.add(text)
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"typofix: {text}"))

    def check(self, uri: str, delay: float = 0.0) -> None:
        """Check the open document at `uri` (after `delay` seconds of quiet) and publish its diagnostics."""
        document = self.workspace.get_text_document(uri)
        if not self.settings.checks(document.language_id):
            self.forget(uri)
            return
        text, version, language_id = document.source, document.version, document.language_id
        codec, generation = document.position_codec, self.generation

        def work() -> list[types.Diagnostic]:
            findings = self.current_checker().findings(uri, language_id, text)
            return to_diagnostics(text, findings, codec)

        def still_current() -> bool:
            now = self.workspace.text_documents.get(uri)
            return now is not None and now.version == version and self.generation == generation

        def publish(diagnostics: list[types.Diagnostic]) -> None:
            self.published[uri] = (version, diagnostics)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, diagnostics, version))

        self.scheduler.schedule(uri, delay, work, still_current, publish, self.failed)

    def check_all(self) -> None:
        for uri in list(self.workspace.text_documents):
            self.check(uri)

    def forget(self, uri: str) -> None:
        self.scheduler.cancel(uri)
        if self.published.pop(uri, None) is not None:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    def diagnostics_of(self, uri: str) -> list[types.Diagnostic]:
        """The diagnostics published for the document's current version (none while it is being checked)."""
        document = self.workspace.text_documents.get(uri)
        version, diagnostics = self.published.get(uri, (None, []))
        return diagnostics if document is not None and document.version == version else []

    async def add_word(self, word: str) -> None:
        """Add `word` to the personal list (as `typofix-ispell` does) and check every document again."""
        from typofix.files.userwords import personal_words_path, read_words, save_words

        path = personal_words_path()
        save_words(path, read_words(path, missing_ok=True) + [word])
        self.user_words = tuple(dict.fromkeys(self.user_words + (word,)))
        await self.scheduler.run(lambda: self.current_checker().accept(word))
        self.generation += 1
        self.check_all()


def build_server(user_words: tuple[str, ...] = ()) -> TypofixServer:
    server = TypofixServer(user_words)

    @server.feature(types.INITIALIZE)
    def initialize(ls: TypofixServer, params: types.InitializeParams) -> None:
        ls.apply_settings(params.initialization_options, "initializationOptions")

    @server.feature(types.INITIALIZED)
    async def initialized(ls: TypofixServer, params: types.InitializedParams) -> None:
        workspace = ls.client_capabilities.workspace
        warm = ls.scheduler.run(ls.current_checker)  # queued first: the engine loads while the client settles
        if workspace is not None and workspace.configuration:
            try:
                found = await ls.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
            except Exception as error:  # a client that cannot answer: the settings stay as they are
                ls.log(f"no workspace configuration: {one_line(error)}", types.MessageType.Warning)
            else:
                if found and found[0] is not None:
                    ls.apply_settings(found[0], "workspace configuration")
        try:
            await warm
        except Exception as error:
            ls.failed(error)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def changed_configuration(ls: TypofixServer, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and SECTION in settings:
            ls.apply_settings(settings[SECTION], "workspace configuration")
            return
        workspace = ls.client_capabilities.workspace
        if workspace is not None and workspace.configuration:  # the client says "changed", we ask what
            found = await ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
            if found and found[0] is not None:
                ls.apply_settings(found[0], "workspace configuration")

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TypofixServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.check(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TypofixServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.check(params.text_document.uri, DEBOUNCE)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TypofixServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: TypofixServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        return code_actions(uri, ls.diagnostics_of(uri), params.range)

    @server.command(ADD_WORD)
    async def add_word(ls: TypofixServer, *args) -> None:
        word = args[0] if args and isinstance(args[0], str) and args[0].strip() else None
        if word is None:
            ls.log(f"{ADD_WORD} needs a word, got {list(args)!r}", types.MessageType.Warning)
            return
        await ls.add_word(word.strip())

    return server


def serve(user_words: tuple[str, ...] = ()) -> int:
    """Serve one client over stdin and stdout until it says exit (or closes stdin)."""
    logging.basicConfig(level=logging.WARNING, format="typofix lsp: %(message)s")  # stderr: stdout is the protocol
    server = build_server(user_words)
    try:
        server.start_io()
    finally:
        server.scheduler.close()
    return 0
