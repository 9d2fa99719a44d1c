"""Zipf usage tables (typofix.words.usage): a batch lookup answers as one lookup a token, whatever its width."""

from __future__ import annotations

import numpy as np

from typofix.words.usage import TokenUsage


def test_a_batch_lookup_answers_as_single_lookups_for_tokens_of_every_width():
    table = TokenUsage.from_table({"a": 7.1, "cat": 4.5, "receive": 4.2, "zebra": 2.0, "x" * 12: 1.0})
    width = table.tokens.dtype.itemsize
    # The longest token exactly, one a letter longer, and one far wider than the table (looked up at the table's
    # width: not there, without numpy converting the table to the wider keys).
    tokens = ["cat", "a", "receive", "recieve", "", "é", "x" * width, "x" * 13, "y" * (width + 30), "zebra"]
    many = table.get_many(tokens)
    assert many.tolist() == [table.get(t) for t in tokens]
    assert many.tolist() == [np.float32(4.5), np.float32(7.1), np.float32(4.2), 0.0, 0.0, 0.0, np.float32(1.0),
                             0.0, 0.0, np.float32(2.0)]
