"""Lexicon neighbours of a typo without the model: one edit by generated edits, two by the deletion index,
both checked against brute force over the word list."""

from __future__ import annotations

import random

import numpy as np

from typofix.words.lexicon import Lexicon
from typofix.words.neighbours import DeletionIndex, deletion_hashes, one_edit_words
from typofix.words.distance import osa_distance

WORDS = ["the", "then", "than", "ten", "tea", "tech", "hen", "spelling", "spell", "spelt", "receive", "relieve",
         "deceive", "biscuits", "circuits", "literature", "laugh", "aunt", "about", "a", "at", "an"]


def test_deletion_hashes_of_equal_strings_are_equal():
    hashes, rows = deletion_hashes(["abc", "xabc", "abxc", "ab"])
    by_word = {r: set(hashes[rows == r].tolist()) for r in range(4)}
    assert by_word[0] & by_word[1] and by_word[0] & by_word[2]  # "abc" one deletion from each
    assert len(hashes) == (1 + 3 + 3) + (1 + 4 + 6) * 2 + (1 + 2 + 1)


def test_each_deletion_hashes_as_the_string_it_leaves():
    """Every entry is the hash of the string that deleting its positions leaves, as that string's own (undeleted)
    hash is, word by word in the order: the word, then each position deleted alone and with each after it."""
    words = ["", "a", "ab", "naïve", "abcdef", "xy", "été", "abcdefghij"]

    def strings(word: str, deletes: int) -> list[str]:
        left = [word]
        for i in range(len(word) if deletes >= 1 else 0):
            left.append(word[:i] + word[i + 1:])
            left += [word[:i] + word[i + 1:j] + word[j + 1:] for j in range(i + 1, len(word) if deletes >= 2 else 0)]
        return left

    for deletes in (0, 1, 2):
        hashes, rows = deletion_hashes(words, deletes)
        for row, word in enumerate(words):
            left = strings(word, deletes)
            own, whose = deletion_hashes(left, 0)  # each left string's hash, nothing deleted (grouped by length)
            assert hashes[rows == row].tolist() == own[np.argsort(whose, kind="stable")].tolist(), (word, deletes)


def test_the_index_finds_what_brute_force_finds():
    lexicon = Lexicon.from_tsv()
    ranked = sorted(lexicon.counts, key=lambda w: (-lexicon.counts[w], w))[:5000]
    index = DeletionIndex(ranked)
    rng = random.Random(0)
    typos = ["teh", "biscits", "buiscits", "literture", "xyzzy", "a", "recieve", "laff"]
    typos += ["".join(rng.choice("etaoinsrhl") for _ in range(rng.randint(2, 8))) for _ in range(30)]
    for typo, got in zip(typos, index.near_many(typos, 1_000_000)):
        want = [w for w in ranked if w != typo and osa_distance(typo, w) <= 2]
        assert got == want, typo
    assert index.near("teh", 3, exclude={"the"}) == [w for w in ranked if w not in ("the", "teh")
                                                      and osa_distance("teh", w) <= 2][:3]


def test_one_edit_words():
    lexicon = Lexicon({w: 10 for w in WORDS})
    assert one_edit_words("teh", lexicon, "abcdefghijklmnopqrstuvwxyz") == {"the", "ten", "tea", "tech"}
    assert one_edit_words("the", lexicon, "abcdefghijklmnopqrstuvwxyz") == {"then"}  # not "hen": two edits
    want = {w for w in WORDS if w != "recieve" and osa_distance("recieve", w) == 1}
    assert one_edit_words("recieve", lexicon, "abcdefghijklmnopqrstuvwxyz") == want == {"receive", "relieve"}


def test_a_few_words_wanted_are_the_most_frequent_within_reach():
    """With a few words wanted, the index reads only the first rows of each deletion's matches (rounds of
    growing width): what it finds is still the `n` most frequent words within two edits, as brute force says."""
    lexicon = Lexicon.from_tsv()
    ranked = sorted(lexicon.counts, key=lambda w: (-lexicon.counts[w], w))[:20000]
    index = DeletionIndex(ranked)
    rng = random.Random(1)
    # Short typos match thousands of words (their deletions are two or three letters), long ones a few.
    typos = ["".join(rng.choice("etaoinsrhlcdu") for _ in range(rng.randint(2, 10))) for _ in range(60)]
    typos += ["teh", "recieve", "tha", "ae"]
    # Brute force once: every listed word within two edits of each typo, most frequent first, with its distance.
    within = {typo: [(w, d) for w in ranked if w != typo for d in [osa_distance(typo, w)] if d <= 2] for typo in typos}
    for n in (1, 3, 40):
        exclude = [set(rng.sample(ranked[:200], 50)) for _ in typos]
        for typo, avoid, got in zip(typos, exclude, index.near_many(typos, n, 2, exclude)):
            assert got == [w for w, _ in within[typo] if w not in avoid][:n], (typo, n)
        for typo, got in zip(typos, index.near_many(typos, n, 1)):
            assert got == [w for w, d in within[typo] if d <= 1][:n], (typo, n)


def test_short_strings_keep_distinct_hashes_in_the_bits_an_index_keeps():
    """An index keeps a hash's high bits (its low bits hold a word's row): strings of one or two characters, the
    deletions every short word makes, must still differ there, or each of them matches thousands of entries."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    short = [*letters, *(a + b for a in letters for b in letters)]
    hashes, _ = deletion_hashes(short, 0)
    kept = hashes >> np.uint64(17)  # an index of 100,000 words keeps 47 bits
    assert len(set(kept.tolist())) == len(short)


def test_rows_are_the_words_found():
    ranked = ["the", "then", "than", "ten", "tea", "tech", "hen", "teh"]
    index = DeletionIndex(ranked)
    typos = ["teh", "thn", "xyzzy", ""]
    owner, rows = index.near_rows_many(typos, 3, 2, [set(), {"then"}, set(), set()])
    found = [[ranked[r] for o, r in zip(owner.tolist(), rows.tolist()) if o == i] for i in range(len(typos))]
    assert found == index.near_many(typos, 3, 2, [set(), {"then"}, set(), set()])
    assert found[0] == [w for w in ranked if w != "teh" and osa_distance("teh", w) <= 2][:3] == ["the", "then", "ten"]
    assert "then" not in found[1] and found[2] == found[3] == []
