"""The index cache (typofix.words.indexcache): a saved index loads as the index that was built, answers the same, and
is never stale; a damaged, unwritable or turned-off cache costs time, never a wrong answer or an error."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from typofix.words.indexcache import MAX_INDEXES, SortedStrings, SortedTable, TextList, cached, strings, text_array
from typofix.words.lexicon import Lexicon, PrefixTrie
from typofix.words.neighbours import DeletionIndex
from typofix.words.phonetic import SoundIndex
from typofix.engine.search import SubtreeBounds

TYPOS = ["teh", "recieve", "wrod", "aboute", "simerly", "xyzzy", "a", "langauge"]


@pytest.fixture(scope="module")
def words():
    """The 5,000 most frequent words of the bundled list, most frequent first."""
    return Lexicon(dict(list(Lexicon.from_tsv().counts.items())[:5000]))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", str(folder))
    return folder


class Builds:
    """`build` for `cached`, counting how often it ran."""

    def __init__(self, make):
        self.make, self.count = make, 0

    def __call__(self):
        self.count += 1
        return self.make()


def _answers(kind: str, index) -> list:
    if kind == "trie":
        return [sorted(index.within(t, 2)) for t in TYPOS]
    if kind == "deletions":
        return index.near_many(TYPOS, 50, 2)
    if kind == "sound":
        return index.near_many(TYPOS, 10)
    return [index.steps.tolist(), index.log_prior.tolist()]


def _kinds(lexicon: Lexicon):
    counts, ranked = lexicon.counts, list(lexicon.counts)
    return {
        "trie": (lambda: PrefixTrie(counts), PrefixTrie.from_arrays),
        "deletions": (lambda: DeletionIndex(ranked), lambda a: DeletionIndex.from_arrays(ranked, a)),
        "sound": (lambda: SoundIndex(counts), lambda a: SoundIndex.from_arrays(counts, a)),
        "subtree": (lambda: SubtreeBounds.build(PrefixTrie(counts), lexicon), SubtreeBounds.from_arrays),
    }


@pytest.mark.parametrize("kind", ["trie", "deletions", "sound", "subtree"])
def test_a_saved_index_answers_as_the_built_one(cache, words, kind):
    make, load = _kinds(words)[kind]
    builds = Builds(make)
    built = cached(kind, words.digest, builds, load)
    loaded = cached(kind, words.digest, builds, load)
    assert builds.count == 1 and len(list(cache.iterdir())) == 1  # the second came from the cache
    assert loaded is not built and _answers(kind, loaded) == _answers(kind, built)
    for name, array in built.arrays().items():
        assert np.array_equal(loaded.arrays()[name], array), name


def test_another_word_list_or_user_words_never_meet_a_stale_index(cache, words):
    first = cached("trie", words.digest, lambda: PrefixTrie(words.counts), PrefixTrie.from_arrays)
    more = Lexicon(dict(words.counts))
    more.add_words(["zzyzxq"], 100)
    assert more.digest != words.digest
    second = cached("trie", more.digest, lambda: PrefixTrie(more.counts), PrefixTrie.from_arrays)
    assert second.walk("zzyzxq") >= 0 and first.walk("zzyzxq") < 0
    assert len(list(cache.iterdir())) == 2


def test_the_word_list_itself_comes_back_in_order(cache, tmp_path):
    path = tmp_path / "words.tsv"
    path.write_text("the\t50\nteh\t3\nand\t40\n")
    assert list(Lexicon.from_tsv(path).counts.items()) == [("the", 50), ("teh", 3), ("and", 40)]
    again = Lexicon.from_tsv(path)  # from the cache now
    assert list(again.counts.items()) == [("the", 50), ("teh", 3), ("and", 40)] and again.total == 93
    path.write_text("the\t50\nand\t40\n")  # an edited list is read afresh
    assert list(Lexicon.from_tsv(path).counts) == ["the", "and"]
    assert Lexicon.from_tsv(path, min_count=45).counts == {"the": 50}


def test_a_cached_word_list_answers_as_its_dict_before_and_after_making_it(cache, tmp_path, monkeypatch):
    path = tmp_path / "words.tsv"
    path.write_text("the\t50\nteh\t3\nand\t40\nnaïve\t7\nzero\t0\n")
    built = Lexicon.from_tsv(path)
    asked = ["the", "teh", "and", "naïve", "zero", "thee", "", "the\x00", "\udcff", "x" * 30]
    want = ([w in built for w in asked], [built.count(w) for w in asked], [built.log_prior(w) for w in asked])
    monkeypatch.setattr(Lexicon, "ASKED", 40)  # 30 lookups a round: the dict is made part way through the second
    loaded = Lexicon.from_tsv(path)
    assert loaded.contains_many(asked) == want[0] and loaded.counts_of(asked).tolist() == want[1]  # together,
    assert loaded._counts is None  # in place
    for _ in range(2):
        assert ([w in loaded for w in asked], [loaded.count(w) for w in asked],
                [loaded.log_prior(w) for w in asked]) == want
    assert loaded.contains_many(asked) == want[0] and loaded.counts_of(asked).tolist() == want[1]  # from the dict
    assert len(loaded) == 5 and loaded.total == built.total == 100 and loaded.counts == built.counts
    words, counts = Lexicon.from_tsv(path).in_order()  # from the arrays, without the dict
    assert list(words) == list(built.counts) and counts.tolist() == list(built.counts.values())


def test_a_damaged_index_is_rebuilt(cache, words):
    make, load = _kinds(words)["deletions"]
    want = _answers("deletions", cached("one", words.digest, make, load))
    (saved,) = cache.iterdir()
    (saved / "hashes.npy").write_bytes(b"not an array")
    builds = Builds(make)
    assert _answers("deletions", cached("one", words.digest, builds, load)) == want and builds.count == 1
    (saved / "rows.npy").unlink()  # one array missing
    builds = Builds(make)
    assert _answers("deletions", cached("one", words.digest, builds, load)) == want and builds.count == 1
    assert _answers("deletions", cached("one", words.digest, builds, load)) == want and builds.count == 1  # saved


def test_sound_codes_from_another_jellyfish_are_rebuilt(cache, words):
    make, load = _kinds(words)["sound"]
    want = _answers("sound", cached("sound", words.digest, make, load))
    (saved,) = cache.iterdir()
    codes = np.load(saved / "metaphone.npy")
    np.save(saved / "metaphone.npy", np.char.add(b"Q", codes))  # as if Metaphone had changed
    builds = Builds(make)
    assert _answers("sound", cached("sound", words.digest, builds, load)) == want and builds.count == 1


def test_no_cache_or_an_unwritable_one_only_costs_time(tmp_path, monkeypatch, words):
    make, load = _kinds(words)["trie"]
    want = _answers("trie", make())
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", "")  # turned off
    builds = Builds(make)
    for _ in range(2):
        assert _answers("trie", cached("trie", words.digest, builds, load)) == want
    assert builds.count == 2
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", str(blocker / "cache"))
    assert _answers("trie", cached("trie", words.digest, make, load)) == want
    assert blocker.read_text() == "not a folder"


def test_only_the_most_recently_used_indexes_are_kept(cache):
    small = Lexicon({"cat": 3, "dog": 2})
    for i in range(MAX_INDEXES + 3):
        cached(f"trie{i:02d}", small.digest, lambda: PrefixTrie(small.counts), PrefixTrie.from_arrays)
        os.utime(next(cache.glob(f"trie{i:02d}-*")), (1_000_000 + i, 1_000_000 + i))  # distinct ages
    cached("trie00", small.digest, lambda: PrefixTrie(small.counts), PrefixTrie.from_arrays)  # used again
    names = sorted(p.name.split("-")[0] for p in cache.iterdir())
    assert len(names) == MAX_INDEXES and "trie00" in names and "trie01" not in names
    assert not [p for p in cache.iterdir() if p.name.startswith(".")]  # no temporary folders left
    left = cache / ".trie-x.123-abcd.tmp"  # as a writer killed two hours ago leaves it
    left.mkdir()
    os.utime(left, (os.path.getmtime(left) - 7200,) * 2)
    cached("trie99", small.digest, lambda: PrefixTrie(small.counts), PrefixTrie.from_arrays)
    assert not left.exists()


def test_text_arrays_round_trip():
    for texts in (["a", "b\u00e9", "", "cd"], [], ["x"]):
        assert strings(text_array(texts)) == texts


@pytest.mark.parametrize("items", [[], ["one"], ["naïve", "", "x", "café au lait", "z"], [f"w{i}" for i in range(50)]])
def test_a_text_list_reads_its_strings_in_place_as_the_list_would(items, monkeypatch):
    text = np.frombuffer(text_array(items).tobytes(), dtype=np.uint8)
    want = strings(text_array(items))  # (one empty string comes back as none, as `strings` says)
    monkeypatch.setattr(TextList, "ASKED", 5)  # past five single strings, the rest are decoded at once
    found = TextList(text)
    assert len(found) == len(want) and [found[i] for i in range(len(want))] == want
    assert list(found) == want and found[1:3] == want[1:3]
    assert TextList(text).lengths().tolist() == [len(w) for w in want]
    rows = np.array([i % len(want) for i in range(7)] if want else [], dtype=np.int64)
    taken = TextList(text)
    # Decoded one by one while few are asked (five here), then by one gather of all of them.
    assert taken.take(rows[:3]) == [want[i] for i in rows[:3]] and taken.take(rows) == [want[i] for i in rows]


# A NUL, a lone surrogate (an undecodable byte carried through) and a string longer than any listed one are never
# listed; the empty string only where it is.
ASKED_ABOUT = ["apple", "Apple", "naïve", "", "zebra", "a", "appl", "apple\x00", "\udcff", "x" * 40, "ünïcode", "b"]


@pytest.mark.parametrize("listed", [[], ["apple"], ["apple", "Banana", "naïve", "zebra", "a", "ünïcode", "b", ""]])
def test_sorted_strings_and_tables_answer_as_a_set_and_a_dict(listed, monkeypatch):
    monkeypatch.setattr(SortedStrings, "ASKED", 15)  # 12 lookups a round: the set is built in the second
    monkeypatch.setattr(SortedTable, "ASKED", 15)
    found = SortedStrings.of(listed)
    assert [w in found for w in ASKED_ABOUT * 2] == [w in set(listed) for w in ASKED_ABOUT * 2]
    assert len(found) == len(set(listed)) and set(found) == set(listed)
    forms = {w: w.upper() + "!" for w in listed}
    table = SortedTable.of(forms)
    assert [table.get(w) for w in ASKED_ABOUT * 2] == [forms.get(w) for w in ASKED_ABOUT * 2]
    again = SortedTable(np.array(table.keys), np.array(table.values))  # as the index cache gives them back
    assert [again.get(w, "?") for w in ASKED_ABOUT] == [forms.get(w, "?") for w in ASKED_ABOUT]


@pytest.mark.parametrize("listed", [[], ["apple"], ["apple", "Banana", "naïve", "zebra", "a", "ünïcode", "b", ""]])
def test_strings_looked_up_together_answer_as_one_at_a_time_and_build_no_set(listed, monkeypatch):
    monkeypatch.setattr(SortedStrings, "ASKED", 15)
    monkeypatch.setattr(SortedTable, "ASKED", 15)
    found = SortedStrings.of(listed)
    asked = ASKED_ABOUT * 2 + ["APPLE", "apple's", "y" * 300, "\u0130stanbul"]
    assert found.contains_many(asked) == [w in set(listed) for w in asked] and found.contains_many([]) == []
    assert found._set is None and found._asked == 0  # in place: no set, and `ASKED` single lookups still to come
    assert [w in found for w in asked] == found.contains_many(asked)  # the set is built part way through these
    assert found._set is not None and found.contains_many(asked) == [w in set(listed) for w in asked]
    forms = {w: w.upper() + "!" for w in listed}
    table = SortedTable.of(forms)
    assert table.get_many(asked) == [forms.get(w) for w in asked] and table._dict is None and table._asked == 0
    assert [table.get(w) for w in asked] == table.get_many(asked)  # the dict is made part way through these
    assert table._dict is not None and table.get_many(asked) == [forms.get(w) for w in asked]


def test_a_deletion_index_over_words_read_in_place_answers_as_over_the_list(words):
    ranked = list(words.counts)
    built = DeletionIndex(ranked, 2)
    in_place = DeletionIndex.from_arrays(TextList(text_array(ranked)), built.arrays())
    for n in (3, 50):
        assert in_place.near_many(TYPOS, n, 2) == built.near_many(TYPOS, n, 2)


@pytest.mark.slow
def test_the_cli_corrects_alike_with_a_cold_a_warm_and_no_cache(tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("Teh quick brwon fox jumpd over the lazzy dog.\nWe recieved a letter about langauge.\n")
    outputs = []
    for setting in (str(tmp_path / "c"), str(tmp_path / "c"), ""):
        env = {**os.environ, "TYPOFIX_CACHE_DIR": setting}
        done = subprocess.run([sys.executable, "-m", "typofix", "correct", "--file", str(text)], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    assert "The quick brown fox" in outputs[0] and "received" in outputs[0]
    assert len(list((tmp_path / "c").iterdir())) >= 3  # words, trie, one-edit at least
