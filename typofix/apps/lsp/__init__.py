"""`typofix lsp`: typofix as a language server over stdio (pygls and lsprotocol), for every editor that speaks
the Language Server Protocol: Neovim, Helix, VS Code (through a generic LSP client extension), Emacs (eglot),
Zed, Sublime, Kate. docs/editors.md says how to hook it in.

One job a module: `settings` (what the client may set: preset, confidence, language ids, extra words),
`checking` (one document's findings, read and judged as `typofix check` reads and judges a file of its name),
`diagnostics` (findings as LSP diagnostics, positions in the client's units), `actions` (the code actions:
replace a word with each of its suggestions, add it to your words), `scheduler` (diagnostics debounced and
computed off the event loop, one at a time, stale ones dropped) and `server` (the pygls server that wires them
to the protocol). The command is `typofix.apps.cli.lsp`.
"""
