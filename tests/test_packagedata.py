"""The data files shipped with the package (`typofix.files.packagedata`): `packaged` finds data/'s files where
the package is installed, and `read_json_table` reads a table or says which table it could not read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from typofix.files.packagedata import packaged, read_json_table

DATA = Path(__file__).parents[1] / "data"


@pytest.mark.parametrize("parts", [("words.tsv",), ("rerank.json",), ("eval", "norvig-testset1.tsv")])
def test_packaged_files_are_data_files(parts):
    path = packaged(*parts)
    assert path.is_file() and path.read_bytes() == DATA.joinpath(*parts).read_bytes()


def test_a_table_is_read_or_named_in_one_error(tmp_path):
    table = read_json_table(packaged("channel.json"), "fitted channel")
    assert table == json.loads((DATA / "channel.json").read_text(encoding="utf-8"))
    (tmp_path / "broken.json").write_text('{"weights": ')
    for name in ("broken.json", "missing.json"):
        with pytest.raises(ValueError, match=f"cannot read the fitted scorer table .*{name}: ") as err:
            read_json_table(tmp_path / name, "fitted scorer table")
        assert "\n" not in str(err.value)
