"""The index cache (typofix.words.indexcache): a saved index loads as the index that was built, answers the same, and
is never stale; a damaged, unwritable or turned-off cache costs time, never a wrong answer or an error."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from typofix.words.indexcache import (MAX_INDEXES, Remembered, SortedStrings, SortedTable, TextList, cached,
                                      find_string, let_go, strings, text_array)
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


def test_a_cached_word_list_answers_as_its_dict_read_in_place(cache, tmp_path, monkeypatch):
    path = tmp_path / "words.tsv"
    path.write_text("the\t50\nteh\t3\nand\t40\nnaïve\t7\nzero\t0\n")
    built = Lexicon.from_tsv(path)
    asked = ["the", "teh", "and", "naïve", "zero", "thee", "", "the\x00", "\udcff", "x" * 30]
    want = ([w in built for w in asked], [built.count(w) for w in asked], [built.log_prior(w) for w in asked])
    monkeypatch.setattr(Remembered, "LIMIT", 4)  # the remembered answers are forgotten part way through a round
    loaded = Lexicon.from_tsv(path)
    assert not isinstance(loaded.counts, dict)  # in place
    assert loaded.contains_many(asked) == want[0] and loaded.counts_of(asked).tolist() == want[1]  # together,
    for _ in range(2):  # one at a time, asked afresh and remembered
        assert ([w in loaded for w in asked], [loaded.count(w) for w in asked],
                [loaded.log_prior(w) for w in asked]) == want
    assert loaded.log_priors(asked) == want[2] and len(loaded.counts._answers) <= 4
    assert dict(loaded.counts) == dict(built.counts) and sum(loaded.counts.values()) == loaded.total
    assert [loaded.counts.get(w) for w in asked] == [built.counts.get(w) for w in asked]
    with pytest.raises(KeyError):
        loaded.counts["thee"]
    loaded.add_words(["thee", "the"], 2)  # the user's words: a dict of the list, added to
    assert isinstance(loaded.counts, dict) and loaded.count("thee") == 2 and loaded.count("the") == 50


def test_a_sound_index_over_a_word_list_read_in_place_answers_as_over_its_dict(cache, words, tmp_path):
    path = tmp_path / "words.tsv"
    path.write_text("".join(f"{w}\t{c}\n" for w, c in words.counts.items()))
    Lexicon.from_tsv(path)  # (saved to the cache: the next one reads it in place)
    loaded = Lexicon.from_tsv(path)
    assert not isinstance(loaded.counts, dict)
    built = SoundIndex(dict(words.counts))
    in_place = SoundIndex.from_arrays(loaded.counts, built.arrays())
    typos = TYPOS + ["fonetik", "sikology", "nolij", "rekwire"]
    assert len(in_place) == len(built) and in_place.near_many(typos, 10) == built.near_many(typos, 10)


def test_text_arrays_round_trip():
    for texts in (["a", "b\u00e9", "", "cd"], [], ["x"]):
        assert strings(text_array(texts)) == texts


@pytest.mark.parametrize("items", [[], ["one"], ["naïve", "", "x", "café au lait", "z"], [f"w{i}" for i in range(50)]])
def test_a_text_list_reads_its_strings_in_place_as_the_list_would(items):
    text = np.frombuffer(text_array(items).tobytes(), dtype=np.uint8)
    want = strings(text_array(items))  # (one empty string comes back as none, as `strings` says)
    found = TextList(text)
    assert len(found) == len(want) and [found[i] for i in range(len(want))] == want
    assert [found[-i] for i in range(1, len(want) + 1)] == [want[-i] for i in range(1, len(want) + 1)]
    assert list(found) == want and found.strings() == want and found[::2] == want[::2]
    assert TextList(text).lengths().tolist() == [len(w) for w in want]
    for start, stop in ((1, 3), (0, len(want)), (2, 1), (len(want) - 1, None)):
        part = found[start:stop]  # a slice: a text list over the same bytes
        assert isinstance(part, TextList) and list(part) == want[start:stop] and part.strings() == want[start:stop]
        assert part.lengths().tolist() == [len(w) for w in want[start:stop]]
        assert part.take(np.arange(len(part))) == want[start:stop]
    rows = np.array([i % len(want) for i in range(7)] if want else [], dtype=np.int64)
    assert found.take(rows) == [want[i] for i in rows]
    many = np.arange(len(want)).repeat(-(-70 // max(len(want), 1)))  # past 64: gathered and split at once
    assert found.take(many) == [want[i] for i in many] and found[1:].take(many[many < len(want) - 1]) == [
        want[1:][i] for i in many[many < len(want) - 1]]
    assert pickle.loads(pickle.dumps(found)).take(rows) == found.take(rows)  # (a process pool's workers)
    with pytest.raises(IndexError):
        found[len(want)]


# A NUL, a lone surrogate (an undecodable byte carried through) and a string longer than any listed one are never
# listed; the empty string only where it is.
ASKED_ABOUT = ["apple", "Apple", "naïve", "", "zebra", "a", "appl", "apple\x00", "\udcff", "x" * 40, "ünïcode", "b"]


@pytest.mark.parametrize("listed", [[], ["apple"], ["apple", "Banana", "naïve", "zebra", "a", "ünïcode", "b", ""]])
def test_sorted_strings_and_tables_answer_as_a_set_and_a_dict(listed, monkeypatch):
    monkeypatch.setattr(Remembered, "LIMIT", 5)  # 12 lookups a round: the answers are forgotten and asked afresh
    found = SortedStrings.of(listed)
    assert [w in found for w in ASKED_ABOUT * 2] == [w in set(listed) for w in ASKED_ABOUT * 2]
    assert len(found) == len(set(listed)) and set(found) == set(listed) and len(found._answers) <= 5
    assert [find_string(found.listed, w) >= 0 for w in ASKED_ABOUT] == [w in set(listed) for w in ASKED_ABOUT]
    forms = {w: w.upper() + "!" for w in listed}
    table = SortedTable.of(forms)
    assert [table.get(w) for w in ASKED_ABOUT * 2] == [forms.get(w) for w in ASKED_ABOUT * 2]
    again = SortedTable(np.array(table.keys), np.array(table.values))  # as the index cache gives them back
    assert [again.get(w, "?") for w in ASKED_ABOUT] == [forms.get(w, "?") for w in ASKED_ABOUT]


@pytest.mark.parametrize("listed", [[], ["apple"], ["apple", "Banana", "naïve", "zebra", "a", "ünïcode", "b", ""]])
def test_strings_looked_up_together_answer_as_one_at_a_time(listed):
    found = SortedStrings.of(listed)
    asked = ASKED_ABOUT * 2 + ["APPLE", "apple's", "y" * 300, "\u0130stanbul"]
    assert found.contains_many(asked) == [w in set(listed) for w in asked] and found.contains_many([]) == []
    assert [w in found for w in asked] == found.contains_many(asked)
    forms = {w: w.upper() + "!" for w in listed}
    table = SortedTable.of(forms)
    assert table.get_many(asked) == [forms.get(w) for w in asked] == [table.get(w) for w in asked]


def test_a_deletion_index_over_words_read_in_place_answers_as_over_the_list(words):
    ranked = list(words.counts)
    built = DeletionIndex(ranked, 2)
    in_place = DeletionIndex.from_arrays(TextList(text_array(ranked)), built.arrays())
    for n in (3, 50):
        assert in_place.near_many(TYPOS, n, 2) == built.near_many(TYPOS, n, 2)


def _resident_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads this process's memory from /proc")
def test_let_go_unmaps_an_index_until_it_is_read_again(cache):
    class Table:
        def __init__(self, data):
            self.data = data

        def arrays(self):
            return {"data": self.data}

    made = cached("let-go-test", "0" * 20, lambda: Table(np.arange(8 << 20, dtype=np.int64)), lambda a: a)  # 64 MB
    del made  # (the built one, in memory; what follows reads the saved one, mapped)
    mapped = cached("let-go-test", "0" * 20, lambda: pytest.fail("saved above"), lambda a: Table(a["data"])).data
    before = _resident_mb()
    total = int(mapped.sum())  # every page read
    read = _resident_mb()
    let_go(mapped)
    after = _resident_mb()
    assert read - before > 32 and read - after > 32, (before, read, after)
    assert int(mapped.sum()) == total == (8 << 20) * ((8 << 20) - 1) // 2  # read again, the same


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
