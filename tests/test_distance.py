"""`typofix.words.distance.osa_distance`: optimal string alignment, a transposition one edit."""

from __future__ import annotations

from typofix.words.distance import osa_distance


def test_osa_distance():
    assert osa_distance("speling", "spelling") == 1
    assert osa_distance("recieve", "receive") == 1  # a transposition is one edit
    assert osa_distance("ca", "abc") == 3  # no substring edited twice
    assert osa_distance("", "abc") == 3 and osa_distance("same", "same") == 0
