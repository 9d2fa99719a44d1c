"""The user's own words (`typofix.files.userwords`): word files read in order with their case, comments and
blank lines skipped, a bad line named; the personal list under $XDG_CONFIG_HOME, missing meaning empty; saving
atomically, without repeats."""

from __future__ import annotations

import pytest

from typofix.files.userwords import WordsError, personal_words_path, read_words, save_words, user_words


def test_a_word_file_keeps_order_and_case_and_skips_comments(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("# my project\nKubernetes\n\n  typofix  \nGitHub\n", encoding="utf-8")
    assert read_words(path) == ["Kubernetes", "typofix", "GitHub"]


def test_a_word_may_have_apostrophes_digits_and_accents(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("O'Reilly\nk8s\nna\u00efve\nx86\nwell-known\n", encoding="utf-8")
    assert read_words(path) == ["O'Reilly", "k8s", "na\u00efve", "x86", "well-known"]


@pytest.mark.parametrize("line", ["two words", "trailing'", "-dash", "snake_case", "a/b"])
def test_a_line_that_is_not_one_word_is_named(tmp_path, line):
    path = tmp_path / "words.txt"
    path.write_text(f"fine\n{line}\n", encoding="utf-8")
    with pytest.raises(WordsError, match=r"words.txt:2: expected one word"):
        read_words(path)


def test_unreadable_files(tmp_path):
    with pytest.raises(WordsError, match="word list not found"):
        read_words(tmp_path / "missing.txt")
    assert read_words(tmp_path / "missing.txt", missing_ok=True) == []
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n")
    with pytest.raises(WordsError, match="not UTF-8"):
        read_words(tmp_path / "latin1.txt")
    with pytest.raises(WordsError, match="cannot read word list"):
        read_words(tmp_path)  # a folder


def test_the_personal_list_lives_in_the_config_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert personal_words_path() == tmp_path / "config" / "typofix" / "words.txt"
    assert user_words() == []  # none yet: an empty list, not an error
    extra = tmp_path / "extra.txt"
    extra.write_text("frobnitz\nkubernetes\n")
    save_words(personal_words_path(), ["kubernetes", "typofix", "kubernetes"])
    assert personal_words_path().read_text() == "kubernetes\ntypofix\n"  # the folder made, repeats dropped
    assert user_words([extra]) == ["kubernetes", "typofix", "frobnitz"]
    assert user_words([extra], personal=False) == ["frobnitz", "kubernetes"]
    monkeypatch.setenv("XDG_CONFIG_HOME", "")  # set but empty: the default folder
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert personal_words_path() == tmp_path / "home" / ".config" / "typofix" / "words.txt"
