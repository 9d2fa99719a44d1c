"""What a word's surroundings say about it (`typofix.words.shape`): the token and the line it stands in."""

from __future__ import annotations

from typofix.words.shape import (code_share, has_option, hyphenated, in_code_token, leading_mark, mixed_case,
                                 no_vowel, quoted, stretched, surroundings)


def test_surroundings_find_the_token_and_the_line():
    text = "first line\nset Type=oneshot here\nlast"
    start = text.index("oneshot")
    around = surroundings(text, start, start + len("oneshot"))
    assert around.token == "Type=oneshot"
    assert around.token[around.word_start:].startswith("oneshot")
    assert around.line == "set Type=oneshot here"
    assert around.line[around.line_offset:].startswith("oneshot")
    assert surroundings("word", 0, 4) == ("word", 0, "word", 0)


def test_code_shaped_tokens():
    assert in_code_token("Type=oneshot") and in_code_token("$rmap{foo}") and in_code_token("v3")
    assert in_code_token("foo.bar,baz") and in_code_token("src/main")
    # the punctuation prose puts around a word is not code
    assert not in_code_token("receive,") and not in_code_token('"quoted"') and not in_code_token("(aside)")
    assert not in_code_token("end.")


def test_leading_marks_and_hyphens():
    assert leading_mark("--async") and leading_mark("-v") and leading_mark("$HOME") and leading_mark("#include")
    assert leading_mark("[--uri]") and leading_mark("%d")
    assert not leading_mark("-") and not leading_mark("word") and not leading_mark("(word)")
    assert hyphenated("well-known") and hyphenated("remove-iam-policy-binding")
    assert not hyphenated("word") and not hyphenated("-flag") and not hyphenated("word-")


def test_quoted_words():
    assert quoted("'rset'", 1, 4) and quoted("`npm`", 1, 3) and quoted('"keyup",', 1, 5)
    assert not quoted("rset", 0, 4) and not quoted("'rset", 1, 4) and not quoted("don't", 0, 3)


def test_lines_that_read_as_code_or_commands():
    assert code_share("for (i = 0; i < n; i++) { x[i] = 0; }") > 0.3
    assert code_share("We received the letter and the parcel.") == 0.0
    assert code_share("") == 0.0
    # a comment's, heading's or list item's mark before the first word is no code
    assert code_share("# We received the letter.") == code_share("// We received it.") == 0.0
    assert code_share("- the letter") == code_share("  * the letter") == 0.0
    assert code_share("#include <stdio.h>") > 0.1 and code_share("x = f(y)  # set x") > 0.2  # (no mark: code)
    assert has_option("run it with -v to see more") and has_option("--verbose prints every step")
    assert not has_option("a well-known fact") and not has_option("nothing - at all")


def test_word_shapes():
    assert no_vowel("npm") and no_vowel("thx") and not no_vowel("teh") and not no_vowel("gym")
    assert stretched("sooo") and stretched("YESSS") and not stretched("success")
    assert mixed_case("macOS") and mixed_case("PagerDuty") and not mixed_case("Paris") and not mixed_case("NASA")
