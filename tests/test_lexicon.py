import pytest

from typofix.lexicon import Lexicon, LexiconError, bundled_words_path


def test_bundled_list_loads_with_its_counts():
    lexicon = Lexicon.from_tsv()
    assert len(lexicon) >= 50_000
    assert "the" in lexicon and "teh" not in lexicon
    assert lexicon.log_prior("the") > lexicon.log_prior("receive") > lexicon.log_prior("recieve")
    assert bundled_words_path().name == "words.tsv"


def test_trie_knows_prefixes_and_word_ends():
    trie = Lexicon({"car": 3, "cart": 1, "cat": 2}).trie
    assert trie.walk("") == 0
    car = trie.walk("car")
    assert car > 0 and trie.is_word[car]
    assert not trie.is_word[trie.walk("ca")]
    assert set(trie.children(trie.walk("ca"))) == {"r", "t"}
    assert trie.spell(trie.walk("cart")) == "cart"
    assert trie.child([car, car], [ord("t"), ord("x")]).tolist() == [trie.walk("cart"), -1]
    assert trie.walk("cab") == -1
    assert len(trie) == 6  # "", c, ca, car, cart, cat


def test_min_count_filters(tmp_path):
    path = tmp_path / "w.tsv"
    path.write_text("common\t100\nrare\t1\n")
    assert set(Lexicon.from_tsv(path, min_count=2).counts) == {"common"}


@pytest.mark.parametrize("content, message", [
    ("word 12\n", "expected 'word<TAB>count'"),
    ("word\tmany\n", "expected 'word<TAB>count'"),
    ("Word\t3\n", "lowercase"),
    ("", "empty"),
])
def test_malformed_lists_name_the_problem(tmp_path, content, message):
    path = tmp_path / "w.tsv"
    path.write_text(content)
    with pytest.raises(LexiconError, match=message):
        Lexicon.from_tsv(path)


def test_missing_list_is_a_clear_error(tmp_path):
    with pytest.raises(LexiconError, match="word list not found"):
        Lexicon.from_tsv(tmp_path / "absent.tsv")


@pytest.mark.parametrize("max_edits", [0, 1, 2])
def test_trie_within_finds_exactly_the_words_in_reach(max_edits):
    """Against brute force: the optimal-string-alignment distance to every listed word."""
    from typofix.typos import osa_distance

    lexicon = Lexicon.from_tsv()
    words = sorted(lexicon.counts)[::40]  # ~2,000 words of every length and letter
    small = Lexicon({w: 1 for w in words})
    for typo in ["recieve", "teh", "acommodate", "a", "abstracts", "zzz", "tpyo"]:
        expected = {w for w in words if osa_distance(typo, w) <= max_edits}
        found = small.trie.within(typo, max_edits)
        assert sorted(found) == sorted(expected), typo
        assert len(found) == len(set(found))


def test_trie_within_counts_a_swap_as_one_edit():
    trie = Lexicon({"the": 5, "then": 1, "ten": 1}).trie
    assert set(trie.within("teh", 1)) == {"the", "ten"}
    assert trie.within("hte", 0) == []
