"""`check -w`: a file rewritten with its typos fixed, safely.

* Only words of text (comments, strings, docs) are fixed; a name is never touched (`Finding.where`).
* Python stays the same program: the fixed source must parse to the same syntax tree as before, string
  contents aside, or the file is left as it is.
* A symlink is followed: its target is rewritten and the link stays a link. The target is replaced
  atomically (`typofix.files.atomic`), with its permission bits and, where we may, its owner and group.
* The file must be as it was read (no one edited it meanwhile) and writable by us: a read-only file, a
  folder where no temporary file can be made, an immutable file end as one line naming the file and why
  (`FixError`), and the file is left as it was.
"""

from __future__ import annotations

import ast
import os
import stat

from typofix.apps.check.findings import Finding
from typofix.apps.check.reader import read_text
from typofix.files.atomic import atomic_path


class FixError(OSError):
    """A file that could not be fixed; the message is one line naming it and why."""


def fixed_text(text: str, fixes: list[Finding]) -> str:
    """`text` with each finding's word replaced by its correction (every other character kept)."""
    for finding in sorted(fixes, key=lambda f: f.start, reverse=True):
        end = finding.start + len(finding.word)
        if text[finding.start:end] != finding.word:
            raise ValueError(f"{finding.path}:{finding.line}:{finding.column}: expected {finding.word!r}")
        text = text[:finding.start] + finding.correction + text[end:]
    return text


def same_python(before: str, after: str) -> bool:
    """Whether two Python sources are the same program but for the contents of their string literals."""
    try:
        trees = [ast.parse(before), ast.parse(after)]
    except (SyntaxError, ValueError):
        return False
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                node.value = ""
    return ast.dump(trees[0]) == ast.dump(trees[1])


def write_fixes(path: str, text: str, fixes: list[Finding], python: bool = False) -> None:
    """Rewrite the file at `path`, read as `text`, with `fixes` (text findings) applied; FixError when it
    cannot be done safely."""
    new = fixed_text(text, fixes)
    if new == text:
        return
    target = os.path.realpath(path)
    shown = path if target == os.path.abspath(path) else f"{path} (-> {target})"
    if python and not same_python(text, new):
        raise FixError(f"not fixed {shown}: the fixes would change the code, not only its text")
    try:
        status = os.stat(target)
        # no write bit for anyone is a file someone made read-only: root could replace it, and must not
        if not os.access(target, os.W_OK) or not status.st_mode & 0o222:
            raise FixError(f"cannot write {shown}: the file is read-only")
        if read_text(target) != text:
            raise FixError(f"not fixed {shown}: it changed while it was checked")
        with atomic_path(target) as tmp:
            with open(tmp, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write(new)
            os.chmod(tmp, stat.S_IMODE(status.st_mode))
            if (status.st_uid, status.st_gid) != (os.geteuid(), os.getegid()):
                try:
                    os.chown(tmp, status.st_uid, status.st_gid)
                except PermissionError:
                    pass  # only root may give a file away: it stays ours, as any editor would leave it
    except FixError:
        raise
    except OSError as err:
        raise FixError(f"cannot write {shown}: {err.strerror or err}") from None
