"""bench.wild: the wild-text scoring (fixed, broken, recased), the in-place fixers' token rejoining, and one real
peer (codespell) run end to end on a tiny set, when it is installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import prose, wild

CLEAN = "Costco sells the cat food\nat the mall, quietly.\n"
TYPOS = "costco sells teh cat fod\nat the mall, quietly.\n"


def test_fixed_broken_and_recased_are_counted_apart():
    output = "Costco sells the cat fod\nat The mall quietly.\n"  # costco, teh fixed; fod missed; the recased
    score = wild.score_wild("x", "tech", CLEAN, TYPOS, output, seconds=1.0)
    assert (score.misspellings, score.fixed, score.correct_tokens) == (3, 2, 6)
    assert score.recased == [("the", "The")]
    assert score.broken == [("mall,", "mall")]  # a lost comma is more than case
    assert score.fixed_share == pytest.approx(2 / 3)
    assert score.broken_per_10k == pytest.approx(10_000 / 6)


def test_a_misspelling_fixed_but_for_case_is_not_fixed():
    output = "COSTCO sells the cat food\nat the mall, quietly.\n"
    score = wild.score_wild("x", "chat", CLEAN, TYPOS, output, seconds=1.0)
    assert score.fixed == 2 and score.broken == [] and score.recased == []


def test_a_text_without_misspellings_scores_broken_only():
    score = wild.score_wild("x", "foreign", "Le chat dort.", "Le chat dort.", "Le chart dort.", seconds=1.0)
    assert (score.misspellings, score.fixed_share, len(score.broken)) == (0, 0.0, 1)
    run = wild.WildRun("cmd", {}, sizes={"foreign": (3, 0)}, scores=[score], checkers=["x"])
    assert "| x | - / 3,333 | 0 | 1.0 |" in wild.render(run)


def test_misaligned_tokens_are_an_error():
    with pytest.raises(prose.ProseError, match="output has 10 tokens for 9"):
        wild.score_wild("x", "tech", CLEAN, TYPOS, TYPOS.replace("cat", "ca t"), seconds=1.0)
    with pytest.raises(prose.ProseError, match="typos text has 8 tokens"):
        wild.score_wild("x", "tech", CLEAN, TYPOS.replace("cat fod", "catfod"), CLEAN, seconds=1.0)


def test_common_breaks_count_pairs_most_frequent_first():
    score = wild.WildScore("x", "tech", 0, 0, 9, [("a", "b"), ("c", "d"), ("c", "d")], [], 1.0)
    assert score.common_breaks(1) == [(("c", "d"), 2)]


def test_a_fix_into_several_words_is_one_token():
    before = "it works incase of rain\nincase\n\nalot more"
    after = "it works in case of rain\nin case\n\na lot more"
    assert wild.rejoin_split_tokens(before, after) == "it works in_case of rain\nin_case\n\na_lot more"
    assert wild.rejoin_split_tokens("a b", "a b") == "a b"


def test_a_missing_tool_is_skipped_with_a_note(tmp_path):
    missing = wild.InPlaceFixer("nothing", "no-such-spell-checker", ["-w"], ok_codes=(0,))
    run = wild.WildRun("cmd", {})
    wild.run_checker(missing, {}, run)
    assert run.skipped == {"nothing": "`no-such-spell-checker` not installed (pip install no-such-spell-checker)"}
    assert "- nothing: skipped," in wild.render(run)


def test_a_missing_genre_file_is_a_clear_error(tmp_path, capsys):
    assert wild.main(["--wild", str(tmp_path), "--checkers", "codespell"]) == 2
    assert "not found:" in capsys.readouterr().err


def _tiny_wild(folder: Path) -> Path:
    """A wild set of three one-line genres: two misspellings codespell knows, and a correct token (a name, say)
    that it splits in two (`incase -> in case`); none in `foreign`."""
    for genre in wild.GENRES:
        clean = "We received the letter about it, incase it matters.\n"
        typos = "We recieved teh letter about it, incase it matters.\n" if genre != "foreign" else clean
        (folder / f"{genre}-clean.txt").write_text(clean, encoding="utf-8")
        (folder / f"{genre}-typos.txt").write_text(typos, encoding="utf-8")
    return folder


@pytest.mark.skipif(wild.tool_path("codespell") is None, reason="codespell not installed")
def test_codespell_end_to_end_writes_the_section(tmp_path, capsys):
    out = tmp_path / "BENCHMARKS.md"
    out.write_text("# Benchmarks\n", encoding="utf-8")
    wild_folder = _tiny_wild(tmp_path)
    assert wild.main(["--wild", str(wild_folder), "--checkers", "codespell", "--out", str(out), "--json"]) == 0
    raw = json.loads(capsys.readouterr().out)
    tech = next(s for s in raw["scores"] if s["genre"] == "tech")
    # recieved and teh fixed; incase -> "in case" is one token, in_case: broken, not a misalignment
    assert (tech["misspellings"], tech["fixed"], tech["broken"]) == (2, 2, 1)
    assert tech["broken_pairs"] == [[["incase", "in_case"], 1]]
    assert raw["failed"] == [] and raw["versions"]["codespell"].startswith("codespell ")
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks\n") and text.count("<!-- kept: bench.wild -->") == 1
    assert "| codespell | 100.0% / 1,429 | 100.0% / 1,429 | - / 1,111 | 0 / 0 / 0 |" in text
