import numpy as np
import pytest

from typofix.engine.explain import Change, changes, describe, normalized_change, uncopied_positions
from typofix.training.noise import TypoGenerator


@pytest.mark.parametrize("typo, correction, expected", [
    ("recieve", "receive", 'recieve -> receive  (swap at 4-5: "ie" -> "ei")'),
    ("definately", "definitely", 'definately -> definitely  (substitution at 6: "a" -> "i")'),
    ("goverment", "government", 'goverment -> government  (missing at 6: "" -> "n")'),
    ("untill", "until", 'untill -> until  (extra at 6: "l" -> "")'),
    ("hte", "the", 'hte -> the  (swap at 1-2: "ht" -> "th")'),
    ("calldd", "called", 'calldd -> called  (substitution at 5: "d" -> "e")'),
    ("creacian", "creation", 'creacian -> creation  (substitution at 5: "c" -> "t"; substitution at 7: "a" -> "o")'),
    ("word", "word", "word -> word  (no change)"),
])
def test_describe(typo, correction, expected):
    assert describe(typo, correction) == expected


def test_changes_are_left_to_right_and_keep_separate_edits_apart():
    assert changes("definatly", "definitely") == [Change("substitution", 5, 6, "a", "i"),
                                                  Change("missing", 7, 7, "", "e")]


def test_equivalent_edits_normalise_to_the_same_place():
    # "buter": the missing "t" could go before or after the other one; both read as one canonical change.
    assert normalized_change("buter", 2, 2, "t") == normalized_change("buter", 3, 3, "t") == \
        Change("missing", 3, 3, "", "t")
    assert normalized_change("untill", 3, 6, "il") == normalized_change("untill", 4, 5, "") == \
        Change("extra", 5, 6, "l", "")  # shared "il" trimmed, then slid past the repeated "l"
    assert normalized_change("cat", 1, 2, "a") is None


def test_diff_locates_the_noise_models_single_edits():
    """With the right correction, the description's span is the generator's edit span (canonicalised)."""
    gen = TypoGenerator(edit_count_probs=(1.0,), identity_rate=0.0)
    words = ["separate", "receive", "occurred", "government", "definitely", "accommodate", "necessary",
             "physician", "knowledge", "independence", "possible", "quickly", "bobby", "character"]
    located = total = 0
    for i in range(600):
        word = words[i % len(words)]
        typo = gen.sample(word, 3, 0, i)
        if typo.text == word:
            continue
        edit = typo.edits[0]
        truth = normalized_change(typo.text, edit.start, edit.end, edit.before)
        found = changes(typo.text, word)
        total += 1
        located += len(found) == 1 and found[0].span == truth.span
    assert located / total > 0.97


def test_uncopied_positions_from_a_diagonal_and_a_swap():
    diagonal = np.eye(4, 3)  # "teh" read in order, then the end of word
    assert uncopied_positions("teh", list("the"), diagonal) == [1, 2]
    assert uncopied_positions("the", list("the"), diagonal) == []
    swapped = np.array([[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 1.0]])  # attention follows the swap
    assert uncopied_positions("teh", list("the"), swapped) == []
    with pytest.raises(ValueError):
        uncopied_positions("teh", list("the"), np.eye(4, 2))

