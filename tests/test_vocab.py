import pytest

from typofix.words.vocab import Vocab


def test_round_trip_and_specials():
    vocab = Vocab("abc")
    assert (vocab.pad_id, vocab.sos_id, vocab.eos_id, vocab.unk_id) == (0, 1, 2, 3)
    assert len(vocab) == 7
    ids = vocab.encode("cab", add_sos=True, add_eos=True)
    assert ids[0] == vocab.sos_id and ids[-1] == vocab.eos_id
    assert vocab.decode(ids) == "cab"


def test_unknown_characters_become_unk_and_decode_stops_at_eos():
    vocab = Vocab("ab")
    assert vocab.encode("aXb") == [4, vocab.unk_id, 5]
    assert not vocab.covers("aXb") and vocab.covers("abba")
    assert vocab.decode([4, vocab.eos_id, 5]) == "a"
    assert vocab.decode([vocab.pad_id, 4, 5, vocab.pad_id]) == "ab"


@pytest.mark.parametrize("alphabet", ["", "aa"])
def test_bad_alphabet_is_rejected(alphabet):
    with pytest.raises(ValueError):
        Vocab(alphabet)


def test_ascii_and_other_words_encode_alike():
    """ASCII words take a byte-translation shortcut; they must get the ids a character-by-character lookup gives
    (UNK for what the alphabet lacks), as words with other characters do."""
    vocab = Vocab("ab'é")
    assert vocab.encode("ab'<x") == [4, 5, 6, vocab.unk_id, vocab.unk_id]
    assert vocab.encode("aé\x00b") == [4, 7, vocab.unk_id, 5]
    assert vocab.encode("") == []
