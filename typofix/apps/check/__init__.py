"""`typofix check`: typos in a repository's comments, strings and docs, never in its code.

One job a module: `walk` (which files, as git sees them), `languages` (what a file is written in),
`pysource`, `lexed`, `prose` and `roff` (what to check in Python, in other languages through Pygments, in
Markdown and reST, in man pages), `literals` (inside a string or a comment), `regions` (a file as read: its
masked text and names), `ignores` (`typofix: ignore`), `reader` (one file, read), `vocabulary` (the
project's own words), `known` (known misspellings), `checker` (the model's findings in one file), `verdict`
(which to report), `findings` (a finding and its output formats), `fixes` (-w, safely), `config`
(.typofix.toml, [tool.typofix]), `pool` (--jobs) and `run` (one run of all of it). The command is
`typofix.apps.cli.check`.
"""
