"""`typofix lsp` with a real client: Neovim's built-in LSP client (Debian's neovim, 0.7), headless, over a
Markdown file (tests/clients/lsp.lua). Skipped where Neovim is absent: `make test-editors` installs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CLIENT = Path(__file__).with_name("clients") / "lsp.lua"


@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (make test-editors installs it)")
def test_neovim_gets_two_diagnostics_and_a_fix(tmp_path):
    program = Path(sys.executable).with_name("typofix")
    if not program.is_file():
        pytest.skip("the typofix console script is not installed beside this Python")
    note = tmp_path / "note.md"
    note.write_text("# Letters\n\nWe recieve the letter and teh parcel.\n")
    out = tmp_path / "out.txt"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "TYPOFIX": str(program), "TYPOFIX_FILE": str(note), "TYPOFIX_OUT": str(out)}
    done = subprocess.run(["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {CLIENT}"],
                          capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
    lines = out.read_text().splitlines() if out.exists() else []
    assert lines and lines[-1] == "DONE", f"{lines}\n{done.stdout}\n{done.stderr}"
    diagnostics = [line.split(" ", 3) for line in lines if line.startswith("DIAGNOSTIC ")]
    assert [(int(line), int(col)) for _, line, col, _ in diagnostics] == [(2, 3), (2, 26)], lines
    assert "receive" in diagnostics[0][3].split() and "the" in diagnostics[1][3].replace(",", " ").split()
    actions = [line.removeprefix("ACTION ") for line in lines if line.startswith("ACTION ")]
    assert "Replace with 'receive'" in actions and "Add 'recieve' to your words" in actions, lines
