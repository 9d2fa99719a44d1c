"""The store of words' searches (`typofix.engine.searchstore`) with the bundled model: what comes back is what was
searched, to the last bit; it stays bounded; its identity changes with what a search depends on; a damaged or
unwritable store is left alone."""

from __future__ import annotations

import os

import pytest

from typofix.engine import searchstore
from typofix.engine.corrector import Corrector
from typofix.engine.searchstore import SearchStore
from typofix.files.packagedata import packaged

WORDS = ["recieve", "npm", "kubectl", "teh", "definately"]


@pytest.fixture(scope="module")
def corrector():
    return Corrector.load()


def test_a_stored_search_comes_back_as_it_was_searched(corrector, tmp_path):
    searched = corrector.search_memory(WORDS).searched
    store = SearchStore(tmp_path / "s.sqlite")
    store.put(searched)
    back = store.get([*WORDS, "absent"])
    assert set(back) == set(WORDS)
    for word in WORDS:
        (others, keep), (stored_others, stored_keep) = searched[word], back[word]
        assert [(c.word, c.score) for c in stored_others] == [(c.word, c.score) for c in others]  # (exactly)
        assert (stored_keep.word, stored_keep.score) == (keep.word, keep.score)


def test_the_store_keeps_the_most_recently_written_words(corrector, tmp_path, monkeypatch):
    monkeypatch.setattr(searchstore, "MAX_WORDS", 3)
    searched = corrector.search_memory(WORDS).searched
    store = SearchStore(tmp_path / "s.sqlite")
    for word in WORDS:
        store.put({word: searched[word]})
    assert set(store.get(WORDS)) == set(WORDS[-3:])


def test_the_identity_follows_the_settings_and_the_words(corrector):
    fast = Corrector.load(fast=True)
    yours = Corrector.load(user_words=["Kubeflowz"])
    assert corrector.identity == Corrector.load().identity
    assert len({corrector.identity, fast.identity, yours.identity}) == 3


def test_the_identity_follows_the_packaged_data(corrector):
    table = packaged("rerank.json")  # (its time moved by a second, and put back)
    times = table.stat()
    before = corrector.identity
    try:
        os.utime(table, ns=(times.st_atime_ns, times.st_mtime_ns + 1_000_000_000))
        assert corrector.identity != before
    finally:
        os.utime(table, ns=(times.st_atime_ns, times.st_mtime_ns))
    assert corrector.identity == before


def test_a_damaged_store_is_made_anew_and_an_unwritable_one_left_alone(corrector, tmp_path, monkeypatch):
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", str(tmp_path))
    (tmp_path / f"searches-{corrector.identity}.sqlite").write_bytes(b"not a database " * 100)
    store = SearchStore.open(corrector.identity)
    assert store.get(WORDS) == {}
    store.put(corrector.search_memory(WORDS).searched)
    assert set(store.get(WORDS)) == set(WORDS)
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", str(blocked / "cache"))  # a folder under a file: never made
    assert SearchStore.open(corrector.identity) is None
