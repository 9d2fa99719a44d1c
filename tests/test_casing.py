"""Repairs of case and apostrophes: Monday for monday, don't for dont, I'm for im, Siobhan for siobhan."""

from __future__ import annotations

from typofix.words.casing import (APOSTROPHE, CASE, NAME, CasedForms, Repair, among_words, capital_pronouns,
                                  case_forms, is_contraction, pronouns_at)
from typofix.words.indexcache import SortedTable


def forms() -> CasedForms:
    listed = {"don't", "i'm", "you're", "isn't", "agency's", "it's", "o'clock"}
    return CasedForms(case_forms(["Monday", "Paris", "English", "MIT", "AF", "NASA"]), listed=listed.__contains__,
                      names=sorted(["Siobhan", "Paris", "Abel"], key=str.lower))


def test_case_only_differences_get_the_dictionary_form():
    cased = forms()
    assert cased.repair("monday") == Repair("Monday", CASE)
    assert cased.repair("paris") == Repair("Paris", CASE)  # a dictionary word before a name of the same letters
    assert cased.repair("Monday") is None  # already written so


def test_contractions_without_their_apostrophe():
    cased = forms()
    assert cased.repair("dont") == Repair("don't", APOSTROPHE)
    assert cased.repair("im") == Repair("I'm", APOSTROPHE)  # the pronoun is written capitalised
    assert cased.repair("youre") == Repair("you're", APOSTROPHE)
    assert cased.repair("Dont") == Repair("Don't", APOSTROPHE)  # a sentence-initial capital is kept
    assert cased.repair("its") == Repair("it's", APOSTROPHE)  # (the engine never repairs a word that is a word)
    assert cased.repair("agencys") is None  # a possessive is no contraction: agencys is a misspelled plural
    assert cased.repair("oclock") is None


def test_names_and_short_acronyms():
    cased = forms()
    assert cased.repair("siobhan") == Repair("Siobhan", NAME)
    assert cased.repair("mit") is None and cased.repair("af") is None  # 2-3 letter acronyms: slips of might, of
    assert cased.repair("nasa") == Repair("NASA", CASE)
    assert cased.repair("sIOBHAN") is None  # mixed case is written on purpose


def test_is_contraction():
    assert is_contraction("don't") and is_contraction("I'll") and is_contraction("that's")
    assert not is_contraction("pilot's") and not is_contraction("o'clock")


def test_the_pronoun_is_written_with_its_capital():
    assert capital_pronouns("and i think i'm tired, i'll go") == "and I think I'm tired, I'll go"
    assert capital_pronouns("i\u2019ve seen it; i?") == "I\u2019ve seen it; I?"
    # a list marker, a numeral, an initial, a path, an option or a part of a word stays as it is
    for kept in ("(i) first", "i) first", "item i.", "i.e. this", "-i", "x/i", "i-node", "$i", "hi", "fix it"):
        assert capital_pronouns(kept) == kept


def test_a_pronoun_stands_among_words_and_a_commands_argument_does_not():
    words = {"and", "so", "think", "said", "went", "me"}.__contains__

    def among(text: str) -> list[bool]:
        return [among_words(text, a, b, words) for a, b in pronouns_at(text)]

    assert among("so i think. Yes, i said \"i went\" and i") == [True] * 4
    assert among("i'm here\nme and i") == [True, True]
    # before it a program's name, or after it an operator or an option: an argument in a command line
    assert among("run npm i && npm test") == [False]
    assert among("so i think npm i is fine") == [True, False]
    assert among("and i -D") == [False]
    assert among("tbh i'm not sure, npm i'll say") == [True, True]  # (with its clitic: the pronoun, always)


def test_forms_looked_up_ahead_from_the_index_cache_repair_as_one_at_a_time():
    """`look_up` of a batch, with the forms read in place (`SortedTable`, as the index cache gives them), then
    `repair` of each: the same repairs as without it, case forms, contractions, names and none alike."""
    capitalised = ["Monday", "Paris", "English", "MIT", "AF", "NASA", "Naïve", "McDonald", "GitHub", "Unix", "UNIX"]
    tokens = ["monday", "Monday", "paris", "english", "mit", "nasa", "naïve", "mcdonald", "github", "unix", "dont",
              "youre", "alice", "Alice", "xyzzy", "", "a", "x" * 200, "o'clock", "\udcff", "GITHUB", "Github"]
    listed = {"don't", "you're"}
    want = [CasedForms(case_forms(capitalised), listed.__contains__, ["Alice", "Bob"]).repair(t) for t in tokens]
    ahead = CasedForms(SortedTable.of(case_forms(capitalised)), listed.__contains__, ["Alice", "Bob"])
    ahead.look_up(tokens[:12])  # the rest are looked up one at a time
    assert [ahead.repair(t) for t in tokens] == want
    assert Repair("Monday", CASE) in want and Repair("don't", APOSTROPHE) in want and None in want
