"""Every command in README.md runs as written, and prints what the README says it prints.

The README's commands are in two kinds of fenced block:

* ```console: `$ command` lines, each followed by what it prints on the terminal, stdout and stderr
  (checked exactly, trailing blank lines aside);
* ```sh: one command a line, with `# comments`; each must succeed, its output is not shown.

Each block runs in a fresh folder standing in for the root of a clone after `make install`: the venv's bin
first on PATH (as `source .venv/bin/activate` puts it), `data/` of the repository beside it (read-only
commands such as `typofix evaluate data/eval/...` read it), a personal word list of its own (empty). A `make`
command is checked with `make -n` in the repository (the target exists and its recipe expands) instead of
being run: those are the long ones (`make test`, `make train`, ...), covered by their own tests. Commands
that take longer than a few seconds without being `make` targets are in LONG and run only under `-m slow`.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BIN = Path(sys.executable).parent  # the venv's bin: typofix, typofix-train, typofix-ispell, python
MAX_LINES = 300

# Commands whose exit status is not 0, as the README says: `check` exits 1 when it finds something, a bad
# training key is exit 2.
EXIT_STATUS = {
    "typofix check letter.txt": 1,
    "typofix check --write-changes letter.txt": 1,
    "typofix-train model.enc_hiden_size=64": 2,
}
# Commands that take longer than this test's budget: they run under `-m slow` (make test-all).
LONG = {
    "typofix-train experiment=tiny hydra.run.dir=tiny-run",  # ~10-45 s of training on one core
}
# The `make` targets the README names; `make test` is the suite CI runs (.ci/run), the others are long or
# interactive: install, test, train and train-fast (hours of CPU), plots (re-renders docs/*.png), serve
# (runs until Ctrl-C).
MAKE_TARGETS = {"install", "test", "train", "train-fast", "plots", "serve"}


@dataclass
class Command:
    line: str  # as written, comment included (bash ignores it)
    output: list[str] | None  # console blocks: the lines shown under it; sh blocks: None

    @property
    def text(self) -> str:
        """The command without its trailing comment."""
        return re.sub(r"\s+#\s.*$", "", self.line).strip()


@dataclass
class Block:
    kind: str  # "console" or "sh"
    start: int  # line number in README.md, for the test id
    commands: list[Command]


def blocks(markdown: str) -> list[Block]:
    found, lines, i = [], markdown.splitlines(), 0
    while i < len(lines):
        fence = re.fullmatch(r"```(\w+)", lines[i])
        if not fence:
            i += 1
            continue
        kind, start, body = fence.group(1), i + 1, []
        i += 1
        while lines[i] != "```":
            body.append(lines[i])
            i += 1
        i += 1
        if kind == "console":
            commands: list[Command] = []
            for line in body:
                if line.startswith("$ "):
                    commands.append(Command(line[2:], []))
                else:
                    assert commands, f"README.md:{start}: output before any `$ ` command"
                    commands[-1].output.append(line)
            found.append(Block(kind, start, commands))
        elif kind == "sh":
            found.append(Block(kind, start, [Command(line, None) for line in body
                                             if line.strip() and not line.lstrip().startswith("#")]))
    return found


README_BLOCKS = blocks(README.read_text(encoding="utf-8"))


def python_block() -> str:
    match = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert match, "the README's Python example is gone"
    return match.group(1)


@pytest.fixture
def clone(tmp_path) -> tuple[Path, dict]:
    """A folder standing in for a clone's root, and the environment of an activated venv."""
    (tmp_path / "data").symlink_to(ROOT / "data")
    config = tmp_path / ".config-home"
    config.mkdir()
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "XDG_CONFIG_HOME": str(config),
           "OMP_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore"}
    return tmp_path, env


def run(command: Command, cwd: Path, env: dict, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `command` as a terminal shows it: stdout and stderr in one stream (errors are one line on stderr)."""
    return subprocess.run(["bash", "-c", command.line], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)


def check(command: Command, done: subprocess.CompletedProcess) -> None:
    expected = EXIT_STATUS.get(command.text, 0)
    assert done.returncode == expected, (f"`{command.text}` exited {done.returncode}, the README expects "
                                         f"{expected}:\n{done.stdout[-2000:]}")
    if command.output is not None:
        assert done.stdout.rstrip("\n") == "\n".join(command.output).rstrip("\n"), \
            f"`{command.text}` printed something else than the README shows"


def test_readme_is_a_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; keep it to {MAX_LINES}, move the rest to docs/"
    assert "make test" in README.read_text(encoding="utf-8")  # the one test command, which CI runs
    assert "make test" in (ROOT / ".ci" / "run").read_text()


@pytest.mark.parametrize("page", [README, *sorted((ROOT / "docs").glob("*.md"))], ids=lambda p: p.name)
def test_prose_after_a_code_block_starts_at_the_margin(page):
    """A paragraph after a fenced block starts at the left margin: indented, it reads as part of the block (or,
    by four spaces, as a code block of its own)."""
    lines, fenced = page.read_text(encoding="utf-8").splitlines(), False
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            fenced = not fenced
            if not fenced:  # the block ends here: the next line with text starts at the margin
                following = next((n for n, text in enumerate(lines[number:], number + 1) if text.strip()), None)
                assert following is None or not lines[following - 1][:1].isspace() or \
                    lines[following - 1].lstrip()[:1] in "-*|>", f"{page.name}:{following}: indented after a code block"


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation but - and _ dropped, spaces to -."""
    headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("page", [README, *sorted((ROOT / "docs").glob("*.md"))], ids=lambda p: p.name)
def test_links_resolve(page):
    """Every relative link of the README and the docs pages names a file that exists, and a heading in it."""
    for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", page.read_text(encoding="utf-8")):
        if "://" in target:
            continue
        path = (page.parent / target) if target else page
        assert path.exists(), f"{page.name} links to {target}, which does not exist"
        if anchor and path.suffix == ".md":
            assert anchor in anchors(path), f"{page.name} links to {target}#{anchor}: no such heading"


def test_every_command_block_is_understood():
    commands = [c for b in README_BLOCKS for c in b.commands]
    assert len(commands) >= 20
    for command in commands:
        assert not command.line.endswith("\\"), "one command a line: the test runs each line by itself"
        assert "<" not in command.text.replace(" < ", " "), f"a placeholder in `{command.text}`: it cannot run as written"
    named = {c.text for c in commands}
    assert set(EXIT_STATUS) <= named and LONG <= named, "EXIT_STATUS or LONG names a command the README dropped"


def test_make_targets_exist():
    commands = [c.text for b in README_BLOCKS for c in b.commands if c.text.startswith("make ")]
    targets = {shlex.split(c)[1] for c in commands}
    assert targets <= MAKE_TARGETS, f"new make targets in the README, say why they are not run: {targets - MAKE_TARGETS}"
    for command in commands:
        done = subprocess.run(["make", "-n", *shlex.split(command)[1:]], cwd=ROOT, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, f"`{command}`: {done.stderr}"


FAST_BLOCKS = [b for b in README_BLOCKS if any(not c.text.startswith("make ") and c.text not in LONG
                                               for c in b.commands)]


@pytest.mark.parametrize("block", FAST_BLOCKS, ids=[f"{b.kind}-line{b.start}" for b in FAST_BLOCKS])
def test_readme_block_runs_as_written(block, clone):
    folder, env = clone
    for command in block.commands:
        if command.text.startswith("make ") or command.text in LONG:
            continue
        check(command, run(command, folder, env))


def test_python_example_runs(clone):
    folder, env = clone
    done = subprocess.run([sys.executable, "-c", python_block()], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[:2] == ["receive", "The quick brown fox"]
    assert "accommodate" in lines[2]


@pytest.mark.slow
@pytest.mark.parametrize("line", sorted(LONG))
def test_long_readme_commands_run(line, clone):
    folder, env = clone
    command = next(c for b in README_BLOCKS for c in b.commands if c.text == line)
    check(command, run(command, folder, env, timeout=900))
