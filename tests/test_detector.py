"""The misspelling detector (`typofix.engine.detector`): its trees, its evidence, the document's vocabulary, and
the bundled tables' judgement of the same word in prose, in code and in another language."""

from __future__ import annotations

import json

import numpy as np
import pytest

from typofix.engine.detector import (FEATURES, ROWS_AT_ONCE, Detector, DocumentVocabulary, Occurrence, evidence,
                                     evidence_matrix)
from typofix.engine.settings import DecodingSettings


def occurrence(text: str, written: str, correction: str, margin: float = 5.0, repeats: int = 1,
               context_fit: float = 0.0) -> Occurrence:
    start = text.index(written)
    return Occurrence(written, correction, margin, text, start, start == 0, repeats, context_fit)


def test_trees_are_walked_as_written(tmp_path):
    # One stump on `usage`: at most 3.0 goes left (+2), above goes right (-1); a second tree adds a constant.
    stump = {"feature": [FEATURES.index("usage"), -1, -1], "threshold": [3.0, 0, 0], "left": [1, -1, -1],
             "right": [2, -1, -1], "value": [0, 2.0, -1.0]}
    leaf = {"feature": [-1], "threshold": [0], "left": [-1], "right": [-1], "value": [0.5]}
    table = tmp_path / "detector.json"
    table.write_text(json.dumps({"features": list(FEATURES), "base": -0.5, "trees": [stump, leaf]}))
    detector = Detector.load(str(table))
    features = np.zeros((3, len(FEATURES)))
    features[:, FEATURES.index("usage")] = [1.0, 3.0, 5.0]
    logits = np.array([-0.5 + 2.0 + 0.5, -0.5 + 2.0 + 0.5, -0.5 - 1.0 + 0.5])
    assert np.allclose(detector.probabilities(features), 1 / (1 + np.exp(-logits)))
    assert detector.probabilities(np.zeros((0, len(FEATURES)))).shape == (0,)


def test_the_detector_kept_in_the_index_cache_judges_as_its_table(tmp_path, monkeypatch):
    """Read from the index cache's arrays (the second load), the bundled detector gives the very floats its JSON
    table gives, for rows of every kind at once and one at a time."""
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", str(tmp_path))
    from typofix.files.packagedata import packaged

    table = Detector.from_table(packaged("detector.json"))
    built, cached = Detector.load(), Detector.load()  # the first builds and saves, the second maps the arrays
    assert any(tmp_path.iterdir())
    features = np.round(np.random.default_rng(0).normal(size=(500, len(FEATURES))) * 3, 2)
    expected = table.probabilities(features)
    assert 0.1 < (expected > 0.5).mean() < 0.9  # rows on both sides of the threshold
    for detector in (built, cached):
        assert detector.probabilities(features).tolist() == expected.tolist()
        assert detector.probabilities(features[7:8]).tolist() == expected[7:8].tolist()


def test_a_table_of_other_features_or_malformed_is_a_clear_error(tmp_path):
    table = tmp_path / "detector.json"
    table.write_text(json.dumps({"features": ["usage"], "base": 0.0, "trees": []}))
    with pytest.raises(ValueError, match="features"):
        Detector.load(str(table))
    table.write_text("{not json")
    with pytest.raises(ValueError, match="misspelling detector"):
        Detector.load(str(table))


def test_evidence_reads_the_word_its_token_and_its_line():
    prose = evidence(occurrence("We recieved the letter yesterday.", "recieved", "received"))
    option = evidence(occurrence("run it with --recieved=yes", "recieved", "received"))
    f = dict(zip(FEATURES, prose))
    assert f["swap"] == 1 and f["one_edit"] == 1 and f["edits"] == 1 and f["correction_usage"] > f["usage"]
    assert f["code_token"] == 0 and f["leading_mark"] == 0 and f["option_line"] == 0
    g = dict(zip(FEATURES, option))
    assert g["code_token"] == 1 and g["leading_mark"] == 1 and g["option_line"] == 1
    short = dict(zip(FEATURES, evidence(occurrence("ok thx see you", "thx", "the"))))
    assert short["short"] == 1 and short["no_vowel"] == 1 and short["absent"] == 0  # people write thx
    absent = dict(zip(FEATURES, evidence(occurrence("the qzxwv here", "qzxwv", "queue"))))
    assert absent["absent"] == 1 and absent["usage"] == 0


def test_the_bundled_detectors_judge_the_same_word_by_where_it_stands():
    for preset in ("default", "fast"):
        detector = Detector.load(DecodingSettings.preset(preset).detector_table)
        in_prose = occurrence("The parcel was recieved on Monday by the porter at the gate.", "recieved",
                              "received", context_fit=2.0)
        as_option = occurrence("  --recieved=FILE   read the list from FILE", "recieved", "received")
        in_french = occurrence("Le paquet a été recieved par le concierge hier soir à la porte.", "recieved",
                               "received")
        repeated = occurrence("The parcel was recieved on Monday by the porter at the gate.", "recieved",
                              "received", context_fit=2.0, repeats=40)
        p = detector.probabilities(np.array([evidence(o) for o in (in_prose, as_option, in_french, repeated)]))
        assert p[0] > max(p[1], p[2]), (preset, p)
        assert p[0] > p[3], (preset, p)  # a word the document writes forty times is the writer's


def test_the_document_vocabulary_is_bounded_and_a_worker_sees_what_one_process_would():
    one = DocumentVocabulary(limit=4)
    parent = DocumentVocabulary(limit=4)
    batches = [["a", "b", "a"], ["c", "d", "e"], ["a", "f", "b"], ["g", "a"]]
    for batch in batches:
        earlier = parent.earlier(batch)
        parent.add(batch)
        worker = DocumentVocabulary.continuing(earlier)
        worker.add(batch)
        one.add(batch)
        assert {w: worker[w] for w in batch} == {w: one[w] for w in batch}
    assert len(one.counts) <= 4 + len(batches[-1])  # words written once are forgotten when full
    assert one["a"] == 4  # a word written often is kept


def test_a_batch_weighs_each_line_once_and_as_each_word_alone_would():
    """`evidence_matrix` works out a line's evidence (its code share, options, words, language) once for the
    words of the line, where each word read its line whole again (minutes for a megabyte on one line): every
    row is what `evidence` of that word alone gives, across texts whose lines start at the same offsets."""
    prose = "We recieve the letter today.\nThe comittee met at noon, see --help for more.\n"
    code = "x = f(a, b)  # recieve teh data\nIl est parti hier soir avec teh amis.\n"
    long_line = " ".join(["The second part is fine, we recieve it."] * 300)
    occurrences = [Occurrence(word, fixed, 5.0, text, text.index(word, at), False, 1, 0.0)
                   for text in (prose, code, long_line)
                   for word, fixed, at in (("recieve", "receive", 0), ("teh", "the", 0), ("comittee", "committee", 0),
                                           ("recieve", "receive", 5000))
                   if text.find(word, at) >= 0]
    assert len(occurrences) == 6
    together = evidence_matrix(occurrences)
    assert np.array_equal(together, np.array([evidence(o) for o in occurrences]))
    assert len({row[FEATURES.index("code_share")] for row in together}) > 1  # (lines told apart)


def test_many_rows_are_weighed_in_parts_as_each_alone():
    """The trees are walked for `ROWS_AT_ONCE` rows at a time (a long line's thousands of words had held their
    (trees, rows) arrays all at once): the probabilities of many rows are each row's own, to the bit."""
    detector = Detector.load()
    rng = np.random.default_rng(0)
    features = rng.normal(0.0, 2.0, (2 * ROWS_AT_ONCE + 7, len(FEATURES)))
    together = detector.probabilities(features)
    alone = np.concatenate([detector.probabilities(features[k:k + 1]) for k in range(len(features))])
    assert together.shape == (len(features),) and np.array_equal(together, alone)
    assert len(np.unique(together)) > ROWS_AT_ONCE  # (rows that differ, not one answer for all)
