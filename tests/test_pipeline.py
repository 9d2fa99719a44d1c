"""The text pipeline (`typofix.engine.pipeline`) through the Corrector on a real tiny model: acceptance, case,
special tokens and every character outside words kept, corrections and real-word errors as `Correction`s; and,
an acceptance check of the bundled model, its context choosing a typo's correction per occurrence."""

from __future__ import annotations

import pickle

import pytest

from bench.model_work import count_rows

from typofix.engine.corrector import Corrector
from typofix.engine.results import Correction
from typofix.engine.settings import DecodingSettings
from typofix.words.text import split_text

# The engine's mechanics, word by word: without the detector, which weighs a word's line and document too (and
# was fitted on the bundled model's scores, not this tiny model's; tests/test_detector.py)
SMALL = DecodingSettings(beam=3, detect_threshold=0.0)


@pytest.fixture(scope="module")
def corrector(tiny_ckpt):
    return Corrector.load(tiny_ckpt, settings=SMALL)


def test_case_is_kept(corrector):
    lower = corrector.correct("speling")
    assert corrector.correct("Speling") == lower[:1].upper() + lower[1:]
    assert corrector.correct("SPELING") == lower.upper()
    assert corrector.correct("TEH") == "TEH"  # up to five capitals: an acronym, left alone


def test_accepted_words_are_left_alone(tiny_ckpt):
    corrector = Corrector.load(tiny_ckpt, settings=SMALL)
    assert corrector.correct("the brown fox planed") == "the brown fox planed"
    assert corrector.suggest("fox", 3)[0].word == "fox"
    assert corrector.is_accepted("colour") and corrector.is_accepted("color") and not corrector.is_accepted("teh")
    eager = Corrector.load(tiny_ckpt, settings=SMALL.with_(leave_accepted=False))
    assert not eager.is_accepted("the")



def test_words_accepted_later_are_left_alone_and_the_remembered_answers_hold(tiny_ckpt):
    # The pipeline remembers, across calls, the words it found accepted and each token's repair: a word the user
    # accepts after a text was corrected (the language server's "add to dictionary") is left alone from then on,
    # and a text corrected again comes out as it did the first time.
    corrector = Corrector.load(tiny_ckpt, settings=SMALL)
    text = "the brown fox planed a speling for dont"
    first, fixed = corrector.correct(text), corrector.correct("speling")
    assert "speling" not in first and fixed in first
    assert corrector.correct(text) == first
    corrector.accepted.add(["speling"])
    assert corrector.correct(text) == first.replace(fixed, "speling", 1)

# The words the issue saw broken, each a word (accepted) or a special token; none may change, in text or alone.
SAFE_WORDS = ["foo", "RC", "ls", "acknowledgments", "afterward", "NASA", "FBI", "IBM", "COVID", "html", "OK",
              "Emoji", "MIT", "GPL", "II", "XIV"]
SAFE_TEXT = ("Emoji and #hashtag in foo_bar, os.path and /usr/sbin/slapd; `recieve` stays; MIT or GPL, "
             "chapter II, Wm. Shakespeare and H. G. Wells, licensed by NASA.")


def test_correct_words_and_special_tokens_come_back_unchanged(corrector):
    assert corrector.correct_many(SAFE_WORDS) == SAFE_WORDS
    assert corrector.correct(SAFE_TEXT) == SAFE_TEXT
    assert [ranked[0].word for ranked in corrector.suggest_many(SAFE_WORDS, 3)] == SAFE_WORDS


def test_bytes_that_are_not_utf8_are_left_alone(corrector):
    text = "Caf\udce9 and teh"  # a Latin-1 byte read with errors="surrogateescape"
    fixed = corrector.correct(text)
    assert fixed.startswith("Caf\udce9 and ") and fixed.count("\udce9") == 1


def test_pass_through(corrector):
    for text in ["3", "1,000.5", "http://exmaple.com/speling", "someone@exmaple.com", "abc123", "café", "naïve",
                 "iPhone", "x" * 40, "z" * 10_000, "", " \t\n", "\x00\x01\ufffd", "o'clock"]:
        assert corrector.correct(text) == text, text


def test_every_character_outside_words_is_unchanged(corrector):
    text = "  Teh QUIK, brown-fox\trecieved 3 leters (from http://exmaple.com).\r\nWe'd said: \"speling!\"\n"
    pieces = split_text(text)
    fixed = [corrector.correct(p.text) if p.word else p.text for p in pieces]
    assert corrector.correct(text) == "".join(fixed)
    assert corrector.correct_many([text, "teh"]) == [corrector.correct(text), corrector.correct("teh")]


def test_corrections_say_where_what_and_why(corrector):
    text = "Teh speling of recieve, and teh fox."
    [found] = corrector.corrections_many([text])
    assert found and all(isinstance(c, Correction) and c.why == "misspelling" for c in found)
    assert [c.start for c in found] == sorted(c.start for c in found)
    fixed = text
    for c in reversed(found):
        assert text[c.start:c.end] == c.before and c.after != c.before
        fixed = fixed[:c.start] + c.after + fixed[c.end:]
    assert fixed == corrector.correct(text)
    assert corrector.corrections_many(["the fox", ""]) == [[], []]


def test_corrections_of_only_some_words_are_theirs_and_leave_the_others_unsearched(tiny_ckpt):
    texts = ["i recieve teh letter from monday's speling bee", "Teh wrold is big, i'm sure"]
    every = Corrector.load(tiny_ckpt, settings=SMALL).corrections_many(texts)
    some = Corrector.load(tiny_ckpt, settings=SMALL)
    only = {"recieve", "wrold"}
    restricted = some.corrections_many(texts, only=only)
    # the words asked for change as they would, and so do what needs no search: an accepted word's capitals, the
    # pronoun i; a word not asked for (monday, teh) stays as it is
    assert restricted == [[c for c in found if c.before.lower() in only or some.is_accepted(c.before)
                           or not c.before.isalpha()] for found in every]
    assert any(c.before == "monday" for c in every[0]) and not any(c.before == "monday" for c in restricted[0])
    assert {w for w in ("teh", "speling") if w in some.pipeline._candidates} == set()  # never searched


def test_weigh_gives_the_search_that_text_correction_uses_and_its_margins(corrector):
    """A word's corrections and own score from `weigh` are those its `trace` scores, and a text corrected after
    it gets the first of them: one search, remembered, not two."""
    weighed = corrector.weigh(["Speling", "recieve"])
    assert set(weighed) == {"speling", "recieve"}
    for word, found in weighed.items():
        final = corrector.trace([word])[word].final
        assert found.own == pytest.approx(final[word].score)
        assert [c.word for c in found.corrections] == [w for w in sorted(final, key=lambda w: -final[w].score)
                                                        if w != word][:len(found.corrections)]
        best = found.corrections[0]
        assert found.margin(best.word) == pytest.approx(final[best.word].score - final[word].score)
        assert found.margin(word) == 0.0 and found.margin("notacandidate") is None
    [[change]] = corrector.corrections_many(["speling"])
    margin = weighed["speling"].margin(change.after)
    assert (margin is not None and margin >= SMALL.min_confidence) == (change.after != "speling")


def test_a_search_memory_stands_for_the_search_in_another_corrector(corrector, tiny_ckpt):
    """What `check --jobs` does: one process searches the words, another takes its memory (pickled, as between
    processes) and corrects from it what it would have found itself; a memory of other settings is refused."""
    words = ["speling", "recieve", "teh"]
    memory = pickle.loads(pickle.dumps(corrector.search_memory(words)))
    assert len(memory) == 3
    other = Corrector.load(tiny_ckpt, settings=SMALL)
    other.remember(pickle.loads(pickle.dumps(corrector.search_memory(["speling", "teh"]))))
    rows = count_rows(other.stepper)
    assert other.weigh(["speling", "teh"]) == corrector.weigh(["speling", "teh"]) and rows == [0]  # remembered
    mine, theirs = other.weigh(words), corrector.weigh(words)
    assert rows[0] > 0  # recieve, searched here
    # searched here, alone: the same answer (scores from a batch of another size agree to float rounding)
    assert [c.word for c in mine["recieve"].corrections] == [c.word for c in theirs["recieve"].corrections]
    assert mine["recieve"].own == pytest.approx(theirs["recieve"].own)
    assert other.corrections_many(["teh speling recieve"]) == corrector.corrections_many(["teh speling recieve"])
    with pytest.raises(ValueError, match="other settings"):
        Corrector.load(tiny_ckpt, settings=SMALL.with_(beam=2)).remember(memory)


def test_a_large_search_is_trimmed_batch_by_batch_to_the_scores_of_one_search(tiny_ckpt):
    """`Passes.judged` keeps each word's `k` best as its batch is searched (bounded memory on a run's
    20,000 words): the same candidates and scores, to the last bit, as the whole search trimmed at its end."""
    words = ["teh", "speling", "recieve", "wrold", "acomodate", "untill", "beleive", "ab", "ünïcode", "thier",
             "goverment", "occurence", "seperate"]
    corrector = Corrector.load(tiny_ckpt, settings=SMALL)
    passes = corrector.passes
    passes.batch_size = 2  # (a real run's 256, in small): seven batches
    readable = [w for w in words if passes.vocab.covers(w)]
    assert len(readable) < len(words)
    whole = passes.search(readable)
    judged = passes.judged(words, 3)
    assert set(judged) == set(words)
    for word in words:
        if word in whole:
            ranked, keep = whole[word]
            assert judged[word] == ([c for c in ranked if c.word != word][:3], keep)
        else:
            assert judged[word] == ([], None)  # characters the model cannot read


def test_real_word_errors_are_reported_as_corrections(corrector):
    """`form` between `came` and `the` is far likelier `from`: a "real-word" correction, never applied."""
    text = "The letter came form the office."
    [found] = corrector.real_word_errors([text])
    assert found == [Correction(16, 20, "form", "from", "real-word")]
    assert corrector.correct(text) == text
    assert corrector.real_word_errors([text], min_gain=1e9) == [[]]


@pytest.fixture(scope="module")
def bundled():
    return Corrector.load()


@pytest.mark.acceptance
def test_context_picks_the_candidate_the_neighbours_want(bundled):
    assert bundled.correct("the stock pice rose") == "the stock price rose"
    assert bundled.correct("pice") == "piece"  # one word: no context, as before
    plain = Corrector.load(settings=DecodingSettings(context_weight=0))
    assert plain.correct("the stock pice rose") == "the stock piece rose"
    assert plain.context is None


@pytest.mark.acceptance
def test_the_same_typo_is_chosen_per_occurrence(bundled):
    # Each text a document of its own: in one document a word written twice is the writer's (the detector's
    # `repeats`), which is another question than the per-occurrence choice asked here.
    assert bundled.correct_each(["the stock pice rose", "pice"]) == ["the stock price rose", "piece"]


def test_the_pronoun_i_is_written_I_among_words_not_as_a_commands_argument(tiny_ckpt):
    corrector = Corrector.load(tiny_ckpt, settings=SMALL)
    texts = ["Then i think that i will go home.", "To set it up, run npm i && npm test in the folder."]
    found = corrector.corrections_many(texts)
    assert [(c.before.strip(), c.after.strip()) for c in found[0] if "i" in c.before.split()] == [("i", "I")] * 2
    assert not [c for c in found[1] if "i" in c.before.split()]
