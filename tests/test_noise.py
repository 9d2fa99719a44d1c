"""The typo generator (`typofix.training.noise`): each typo a pure function of (seed, epoch, index), edit spans that
locate every change, the kinds and rates it is given, and the classic misspellings it must produce."""

from collections import Counter

import pytest

from typofix.training.noise import CONFUSION_GROUPS, KEYBOARD_KINDS, KEYBOARD_NEIGHBOURS, TypoGenerator, rng_for

WORDS = ["separate", "receive", "occurred", "government", "definitely", "accommodate", "necessary", "the",
         "physician", "knowledge", "independence", "possible", "quickly", "a", "be"]


def undo(typo) -> str:
    """Rebuild the word from the typo and its edit spans (right to left, so earlier spans stay valid)."""
    text = typo.text
    # Right to left; at a shared start the span goes before the zero-width omission that sits just before it.
    for edit in sorted(typo.edits, key=lambda e: (e.start, e.end), reverse=True):
        assert text[edit.start:edit.end] == edit.after
        text = text[:edit.start] + edit.before + text[edit.end:]
    return text


def test_same_seed_epoch_index_gives_the_same_typo_and_others_differ():
    gen_a, gen_b = TypoGenerator(), TypoGenerator()
    first = [gen_a.sample(w, 7, 3, i).text for i, w in enumerate(WORDS * 4)]
    assert first == [gen_b.sample(w, 7, 3, i).text for i, w in enumerate(WORDS * 4)]
    assert first != [gen_b.sample(w, 7, 4, i).text for i, w in enumerate(WORDS * 4)]
    assert rng_for(1, 2, 3).random() == rng_for(1, 2, 3).random() != rng_for(1, 2, 4).random()


def test_edit_spans_locate_every_change_exactly():
    gen = TypoGenerator(identity_rate=0.0, edit_count_probs=(0.2, 0.3, 0.3, 0.2))
    for i in range(3000):
        word = WORDS[i % len(WORDS)]
        typo = gen.sample(word, 0, 0, i)
        assert typo.text, "a typo is never empty"
        assert undo(typo) == word
        if typo.text != word:
            assert typo.edits


def test_edit_count_distribution_and_identity_rate_are_honoured():
    gen = TypoGenerator(identity_rate=0.25, edit_count_probs=(1.0,))
    typos = [gen.sample("government", 1, 0, i) for i in range(4000)]
    identity = sum(t.text == t.word for t in typos) / len(typos)
    assert 0.2 < identity < 0.32  # identity pairs plus the rare edit that changes nothing
    assert max(len(t.edits) for t in typos) == 1
    multi = TypoGenerator(identity_rate=0.0, edit_count_probs=(0, 0, 1.0))
    assert Counter(len(multi.sample("government", 1, 0, i).edits) for i in range(300)).most_common(1)[0][0] == 3


@pytest.mark.parametrize("kind", KEYBOARD_KINDS + CONFUSION_GROUPS)
def test_every_kind_can_fire_alone(kind):
    gen = TypoGenerator({kind: 1.0}, identity_rate=0.0, edit_count_probs=(1.0,))
    kinds = {e.kind for i, w in enumerate(WORDS * 20) for e in gen.sample(w, 0, 0, i).edits}
    assert kinds == {kind}


def test_keyboard_substitutions_use_neighbouring_keys():
    gen = TypoGenerator({"substitution": 1.0}, identity_rate=0.0, edit_count_probs=(1.0,))
    for i in range(500):
        (edit,) = gen.sample("keyboard", 0, 0, i).edits
        assert edit.after in KEYBOARD_NEIGHBOURS[edit.before]
    assert set(KEYBOARD_NEIGHBOURS["s"]) == set("weadzx")


def test_cognitive_errors_of_the_classic_kind_are_produced():
    gen = TypoGenerator(identity_rate=0.0, edit_count_probs=(1.0,))
    seen = {w: {gen.sample(w, 0, 0, i).text for i in range(3000)} for w in ("receive", "separate", "occurred")}
    assert "recieve" in seen["receive"]
    assert "seperate" in seen["separate"]
    assert "occured" in seen["occurred"]


@pytest.mark.parametrize("kwargs", [{"weights": {"telepathy": 1.0}}, {"weights": {"omission": -1.0}},
                                    {"edit_count_probs": ()}, {"identity_rate": 1.0}])
def test_bad_settings_are_rejected(kwargs):
    with pytest.raises(ValueError):
        TypoGenerator(**kwargs)
