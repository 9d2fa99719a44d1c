"""Files of real misspellings (`typofix.files.misspellings`): `typo<TAB>correct` rows, stripped and lowercased,
and every bad file one error that names the file and, for a bad row, its line."""

from __future__ import annotations

import pytest

from typofix.files.misspellings import MisspellingsError, read_misspellings
from typofix.files.packagedata import packaged


def test_rows_are_stripped_lowercased_and_blank_lines_skipped(tmp_path):
    path = tmp_path / "set.tsv"
    path.write_text(" Recieve\treceive \n\n  \nTEH\tThe\r\n", encoding="utf-8")
    assert read_misspellings(path) == [("recieve", "receive"), ("teh", "the")]
    shipped = packaged("eval", "norvig-testset1.tsv")
    rows = read_misspellings(shipped)
    assert ("accesing", "accessing") in rows
    assert len(rows) == sum(1 for line in shipped.read_text(encoding="utf-8").splitlines() if line.strip())


def test_a_bad_file_names_itself_and_its_line(tmp_path):
    bad = tmp_path / "bad.tsv"
    for content, message in [("teh\tthe\nonlyonecolumn\n", "bad.tsv:2: expected 'typo<TAB>correct'"),
                             ("a\tb\tc\n", "bad.tsv:1: "), ("\tthe\n", "bad.tsv:1: "), ("\n\n", "bad.tsv: no rows")]:
        bad.write_text(content, encoding="utf-8")
        with pytest.raises(MisspellingsError, match=message):
            read_misspellings(bad)
    bad.write_bytes(b"caf\xe9\tcafe\n")
    with pytest.raises(MisspellingsError, match="cannot read .*bad.tsv"):
        read_misspellings(bad)
    with pytest.raises(MisspellingsError, match="cannot read .*missing.tsv: No such file"):
        read_misspellings(tmp_path / "missing.tsv")
    assert issubclass(MisspellingsError, ValueError)  # the exit policy's bad input: exit code 2
