"""atomic_path: the target is replaced whole or not at all, and no temporary file is left behind."""

from __future__ import annotations

import pytest

from typofix.files.atomic import atomic_path


def test_success_replaces_the_target_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "sub" / "report.md"
    with atomic_path(target) as tmp:
        assert tmp.parent == target.parent and tmp.suffix == ".md" and not target.exists()
        tmp.write_text("new")
    assert target.read_text() == "new"
    assert [p.name for p in target.parent.iterdir()] == ["report.md"]


def test_a_failing_writer_keeps_the_old_file(tmp_path):
    target = tmp_path / "model.pt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target, keep_suffix=False) as tmp:
            assert not tmp.name.endswith(".pt")
            tmp.write_text("half")
            raise RuntimeError("writer died")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["model.pt"]
