"""`typofix lsp`: the language server over stdio (`typofix.apps.lsp`)."""

from __future__ import annotations

import argparse

from typofix.apps.cli.options import add_words_option, user_words


def add(subcommands) -> None:
    parser = subcommands.add_parser(
        "lsp", help="a language server over stdio: typos as diagnostics, fixes as code actions",
        description="Serve the Language Server Protocol over stdin and stdout for an editor (Neovim, Helix, VS Code "
                    "through a generic LSP client, Emacs eglot, ...): the words `typofix check` would report, as "
                    "diagnostics on open and as you type; code actions replace a word with a suggestion or add it "
                    "to your personal list. Code files are checked in their comments and strings only, as "
                    "`typofix check` checks them. Settings (initializationOptions or the `typofix` section of the "
                    "workspace configuration): preset, confidence, languages, words. More: docs/editors.md.")
    parser.add_argument("--stdio", action="store_true", help="talk over stdin and stdout (the default and only "
                        "transport; accepted because clients pass it)")
    add_words_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from typofix.apps.lsp.server import serve

    return serve(user_words(args))
