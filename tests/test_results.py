"""The engine's result types (`typofix.engine.results`): what a suggestion and a correction carry, and the
JSON objects the --json writers print."""

from __future__ import annotations

import json

import numpy as np
import pytest

from typofix.engine.explain import Change
from typofix.engine.results import Correction, Suggestion, Trace, TracedCandidate


def test_a_suggestion_carries_its_evidence_and_writes_json():
    attn = np.array([[0.9, 0.1, 0.0], [0.2, 0.1, 0.7], [0.1, 0.8, 0.1], [0.1234567, 0.3, 0.5765433]])  # (T, S)
    s = Suggestion("the", -1.234567, "teh", attn)
    assert s.changes == [Change("swap", 1, 3, "eh", "he")]
    assert s.explanation == 'teh -> the  (swap at 2-3: "eh" -> "he")'
    assert Suggestion("the", 0.0, "the").changes == []
    assert s.as_json() == {"word": "the", "score": -1.2346}
    assert s.as_json(digits=5) == {"word": "the", "score": -1.23457}
    record = s.as_json(digits=5, evidence=True)
    assert list(record) == ["word", "score", "explanation", "changes", "attn"]
    assert record["explanation"] == s.explanation
    assert record["changes"] == [{"kind": c.kind, "start": c.start, "end": c.end, "typed": c.typed, "fix": c.fix}
                                 for c in s.changes]
    assert record["attn"][3] == [0.123457, 0.3, 0.576543]
    assert json.loads(json.dumps(record)) == record  # plain JSON types throughout
    assert Suggestion("the", 1.0, "the").as_json(evidence=True)["attn"] is None


def test_a_suggestion_compares_without_its_attention():
    s = Suggestion("receive", 2.5, "recieve", np.zeros((8, 7)))
    assert (s.word, s.score, s.typo) == ("receive", 2.5, "recieve")
    assert s == Suggestion("receive", 2.5, "recieve")  # the attention is evidence, not identity
    assert s != Suggestion("receive", 2.5, "Recieve")
    assert Suggestion("x", float("-inf"), "x").as_json() == {"word": "x", "score": None}  # valid JSON, no -Infinity
    with pytest.raises(AttributeError):
        s.word = "relieve"  # frozen


def test_a_correction_says_where_what_and_why_and_writes_json():
    c = Correction(4, 8, "form", "from", "real-word")
    assert c.as_json() == {"start": 4, "end": 8, "before": "form", "after": "from", "why": "real-word"}
    assert Correction(0, 3, "teh", "the").why == "misspelling"
    assert json.loads(json.dumps(c.as_json())) == c.as_json()
    with pytest.raises(ValueError, match="why must be one of"):
        Correction(0, 3, "teh", "the", "style")


def test_a_trace_ends_in_its_last_pass():
    cheap = {"teh": TracedCandidate("teh", -3.0, 4, 0, -20.0, 1.0),
             "the": TracedCandidate("the", -1.0, 4, 1, -3.0, 5.0)}
    wide = {**cheap, "tech": TracedCandidate("tech", -2.0, 5, 1, -9.0, 4.0)}
    assert Trace("teh", cheap).final is cheap
    assert Trace("teh", cheap, wide).final is wide
