"""Tests of the benchmark harness (bench/): scoring on tiny fixtures, the pipe protocol, each installed peer,
and the running-text (prose) section.

Peers run for real on three words where installed and are skipped otherwise.
SymSpell and the Norvig-style corrector get a tiny word list so that loading
takes milliseconds, not the seconds their full dictionaries need.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from bench import footprint, informal, model_work, peers, prose, prose_checkers, report, run, scoring, startup
from typofix.engine.settings import DecodingSettings

# --- scoring ----------------------------------------------------------------------------------------------

ROWS = [("teh", "the"), ("recieve", "receive"), ("a", "and"), ("a", "at"), ("wich", "which")]
PREDICTIONS = {
    "teh": ["the", "ten"],
    "recieve": ["relieve", "receive"],
    "a": ["at", "and"],  # one typo, two intended words: one row right at top-1, both within top-5
    "wich": [],  # flagged, nothing offered: left unchanged
}


def test_top1_is_the_first_candidate_or_the_word_itself():
    assert scoring.top1("teh", ["the", "ten"]) == "the"
    assert scoring.top1("wich", []) == "wich"


def test_top_k_accuracy_counts_each_row_once():
    assert scoring.top_k_accuracy(ROWS, PREDICTIONS, 1) == pytest.approx(2 / 5)  # teh, a->at
    assert scoring.top_k_accuracy(ROWS, PREDICTIONS, 5) == pytest.approx(4 / 5)  # all but wich
    assert scoring.top_k_accuracy(ROWS, PREDICTIONS, 2) == scoring.top_k_accuracy(ROWS, PREDICTIONS, 5)
    assert scoring.top_k_accuracy([], {}, 1) == 0.0


def test_a_typo_with_several_targets_is_right_on_at_most_one_row_at_top1():
    rows = [("a", "and"), ("a", "at"), ("a", "the")]
    assert scoring.top_k_accuracy(rows, {"a": ["the", "and", "at"]}, 1) == pytest.approx(1 / 3)
    assert scoring.top_k_accuracy(rows, {"a": ["the", "and", "at"]}, 5) == 1.0


def test_unchanged_share_counts_accepted_and_unanswered_words():
    predictions = dict(PREDICTIONS, teh=["teh", "the"])  # accepted as a word
    assert scoring.unchanged_share(ROWS, predictions) == pytest.approx(2 / 5)  # teh and wich
    assert scoring.unchanged_share(ROWS, PREDICTIONS) == pytest.approx(1 / 5)


def test_changed_words_are_the_false_corrections():
    words = ["the", "their", "the"]
    predictions = {"the": ["the"], "their": ["there", "their"]}
    assert scoring.changed_words(words, predictions) == [("their", "there")]
    assert len(scoring.score_correct_words("x", "sample", words, predictions).changed) == 1


def test_lowercase_candidates_keeps_the_first_of_each_word():
    assert scoring.lowercase_candidates(["John", "john", "DOT", "dot", "don't"]) == ["john", "dot", "don't"]


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ("", "", 0),
        ("", "abc", 3),
        ("teh", "the", 1),  # one transposition
        ("ca", "abc", 3),  # OSA, not unrestricted Damerau (which gives 2)
        ("kitten", "sitting", 3),
        ("recieve", "receive", 1),
        ("acommodation", "accommodation", 1),
        ("o", "accordingly", 10),
    ],
)
def test_osa_distance(a, b, distance):
    assert scoring.osa_distance(a, b) == distance
    assert scoring.osa_distance(b, a) == distance


def test_distance_buckets():
    assert [scoring.distance_bucket(d) for d in (0, 1, 2, 3, 9)] == ["1", "1", "2", "3+", "3+"]


def test_accuracy_by_bucket():
    rows = [("teh", "the"), ("recieve", "receive"), ("wich", "which"), ("o", "accordingly")]
    predictions = {"teh": ["the"], "recieve": ["relieve"], "wich": [], "o": ["of"]}
    # wich->which is 1 edit (insertion), so bucket 1 holds teh, recieve and wich.
    assert scoring.accuracy_by_bucket(rows, predictions) == {"1": (1, 3), "2": (0, 0), "3+": (0, 1)}


def test_score_set_gathers_every_score():
    score = scoring.score_set("x", "tiny", ROWS, PREDICTIONS, seconds=0.5)
    assert (score.rows, score.words, score.words_per_second) == (5, 4, 8.0)
    assert score.top1 == pytest.approx(0.4)


# --- sampling ---------------------------------------------------------------------------------------------


def test_sample_rows_is_deterministic_and_keeps_file_order():
    rows = [(f"t{i}", f"w{i}") for i in range(100)]
    sample = run.sample_rows(rows, 10, seed=0)
    assert sample == run.sample_rows(rows, 10, seed=0)
    assert sample == sorted(sample, key=rows.index)
    assert len(sample) == 10 and run.sample_rows(rows, 200, seed=0) == rows


def test_load_sets_reads_only_the_named_folders_and_names_clashes_by_folder(tmp_path):
    for folder in ("dev", "dev/holdout", "other"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "set.tsv").write_text("teh\tthe\nwich\twhich\n")
    assert [s.name for s in run.load_sets([tmp_path / "dev"], None, 0)] == ["set"]
    sets = run.load_sets([tmp_path / "dev", tmp_path / "other"], 1, 0)
    assert [(s.name, len(s.rows), s.file_rows) for s in sets] == [("dev/set", 1, 2), ("other/set", 1, 2)]


def test_correct_word_samples(tmp_path):
    words = tmp_path / "words.tsv"
    words.write_text("the\t1000\nof\t500\nzyzzyva\t1\n")
    samples = run.correct_word_samples(words, 2, seed=0)
    assert samples == run.correct_word_samples(words, 2, seed=0)
    assert len(samples["by frequency"]) == 2 and len(set(samples["uniform"])) == 2


# --- the ispell pipe protocol (canned output, no program needed) ------------------------------------------

PIPE_OUTPUT = (
    "@(#) International Ispell Version 3.1.20 (but really Aspell 0.60.8)\n"
    "& accesing 2 0: accessing, Acceding\n\n"
    "*\n\n"
    "# xqzwv 0\n\n"
    "*\n& knwn 2 5: known, Nan\n\n"
    "\n"
)


def test_answer_blocks_give_one_block_per_input_line():
    blocks = peers.answer_blocks(PIPE_OUTPUT)
    assert len(blocks) == 5
    assert blocks[1] == ["*"] and blocks[4] == []


def test_rejected_words_carry_their_offsets():
    block = ["*", "& knwn 2 6: known, Nan", "# xqzwv 12", "? wrld 0 17: world"]
    assert peers.rejected_words(block) == [
        ("knwn", 6, ["known", "Nan"]), ("xqzwv", 12, []), ("wrld", 17, ["world"])
    ]


def test_candidates_from_answer_blocks():
    blocks = peers.answer_blocks(PIPE_OUTPUT)
    words = ["accesing", "the", "xqzwv", "well-knwn", ""]
    got = [peers._candidates(word, block) for word, block in zip(words, blocks)]
    assert got == [["accessing", "Acceding"], ["the"], [], ["well-known", "well-Nan"], [""]]


# --- the Norvig-style corrector ---------------------------------------------------------------------------


@pytest.fixture
def tiny_words(tmp_path):
    """A five-word list with counts, the language model of the tiny peers."""
    path = tmp_path / "words.tsv"
    path.write_text("the\t1000\nthen\t100\nthis\t80\nhello\t10\nreceive\t5\n")
    return path


def test_edits1():
    one = peers.edits1("teh")
    assert {"the", "te", "tehs", "tex"} <= one and "teh" in one  # a substitution by the same letter
    assert "eth" in one and "het" not in one


def test_norvig_prefers_fewest_edits_then_count(tiny_words):
    norvig = peers.NorvigChecker(tiny_words)
    assert norvig.available()
    norvig.load()
    got = norvig.suggest_many(["the", "thn", "hlo", "recieve", "qqqqqq"], 5)
    assert got[0] == ["the"]  # a known word is its own correction
    assert got[1] == ["the", "then"]  # thn: the and then at 1 edit, the more frequent first
    assert got[2] == ["hello"]  # two edits
    assert got[3] == ["receive"]
    assert got[4] == []  # nothing within two edits


class _Counted(peers.NorvigChecker):
    """The Norvig-style corrector, counting its loads; `drift` makes it answer differently after the first."""

    def __init__(self, words_path, drift=False):
        super().__init__(words_path)
        self.loads, self.drift = 0, drift

    def load(self):
        super().load()
        self.loads += 1

    def suggest_many(self, words, k):
        got = super().suggest_many(words, k)
        return [["drift"]] * len(words) if self.drift and self.loads > 1 else got


def test_a_short_timed_call_is_repeated_after_a_fresh_load_and_must_answer_the_same(tiny_words):
    sets = [report.EvalSet("tiny", [("thn", "the"), ("recieve", "receive")], 2)]
    checker = _Counted(tiny_words)
    checker.load()
    scores, _ = run.benchmark_checkers([checker], sets, {})
    assert checker.loads == run.CALLS  # a call of milliseconds: timed CALLS times, a fresh load before each again
    assert scores[0].top1 == 1.0 and scores[0].words_per_second > 0
    drifting = _Counted(tiny_words, drift=True)
    drifting.load()
    with pytest.raises(RuntimeError, match="answered tiny differently"):
        run.benchmark_checkers([drifting], sets, {})


def test_repeated_calls_take_turns_between_checkers(tiny_words):
    sets = [report.EvalSet("one", [("thn", "the")], 1), report.EvalSet("two", [("recieve", "receive")], 1)]
    calls = []

    class Logged(_Counted):
        def suggest_many(self, words, k):
            if words != run.WARM_UP:
                calls.append((self.name, words[0]))
            return super().suggest_many(words, k)

    first, second = Logged(tiny_words), Logged(tiny_words)
    first.name, second.name = "first", "second"
    for checker in (first, second):
        checker.load()
    scores, _ = run.benchmark_checkers([first, second], sets, {})
    assert [(s.checker, s.set_name) for s in scores] == [("first", "one"), ("first", "two"), ("second", "one"),
                                                         ("second", "two")]
    repeats = calls[2 * len(sets):]  # after each checker's first call on every set
    assert repeats == [("first", "thn"), ("second", "thn")] * (run.CALLS - 1) + \
        [("first", "recieve"), ("second", "recieve")] * (run.CALLS - 1)


def test_norvig_is_unavailable_without_its_word_list(tmp_path):
    norvig = peers.NorvigChecker(tmp_path / "missing.tsv")
    assert not norvig.available() and "not found" in norvig.notice


# --- every installed peer, for real, on three words -------------------------------------------------------


def _peers(words_path):
    """The real peers, SymSpell on a tiny dictionary (its bundled one takes seconds to index)."""
    symspell_dictionary = words_path.with_name("symspell.txt")
    symspell_dictionary.write_text(words_path.read_text().replace("\t", " "))
    return [
        peers.aspell(),
        peers.hunspell(),
        peers.SymSpellChecker(2, symspell_dictionary),
        peers.SymSpellChecker(3, symspell_dictionary),
        peers.PySpellChecker(),
        peers.NorvigChecker(words_path),
        peers.TypofixChecker("typofix (default)", "default"),
    ]


@pytest.mark.parametrize("index", range(7))
def test_installed_peer_corrects_three_words(tiny_words, index):
    checker = _peers(tiny_words)[index]
    if not checker.available():
        pytest.skip(f"{checker.name}: {checker.notice}")
    checker.load()
    got = [scoring.lowercase_candidates(c) for c in checker.suggest_many(["teh", "the", "recieve"], 5)]
    assert len(got) == 3 and all(len(c) <= 5 for c in got)
    assert got[1][0] == "the"  # a correct word is left alone
    assert "the" in got[0] and "receive" in got[2]
    assert checker.version()


# --- report -----------------------------------------------------------------------------------------------


def test_report_marks_the_best_values_and_writes_files_atomically(tmp_path):
    rows = [("teh", "the"), ("wich", "which")]
    scores = [
        scoring.score_set("Aspell", "tiny", rows, {"teh": ["the"], "wich": ["which"]}, 1.0),
        scoring.score_set("Norvig-style (ED 2)", "tiny", rows, {"teh": ["the"], "wich": []}, 0.5),
    ]
    result = report.Run(
        command="python -m bench.run --eval tiny",
        machine={"CPU": "test"},
        sets=[report.EvalSet("tiny", rows, 2)],
        limit=None,
        seed=0,
        sample_size=2,
        versions={"Aspell": "0", "Norvig-style (ED 2)": "0"},
        skipped=[("typofix (fast)", "not importable")],
        scores=scores,
        false_corrections=[scoring.score_correct_words("Aspell", "uniform", ["the"], {"the": ["the"]})],
    )
    out = tmp_path / "BENCHMARKS.md"
    report.write_report(result, out, tmp_path / "docs")
    text = out.read_text()
    assert "| Aspell | **100.0%** | **100.0%** | **0.0%** | 2 | 1.0× |" in text
    assert "| Norvig-style (ED 2) | 50.0% | 50.0% | 50.0% | **4** | **2.0×** |" in text
    assert "typofix (fast)" in text and "python -m bench.run --eval tiny" in text
    assert (tmp_path / "docs" / report.TOP1_PNG).read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "docs" / report.DISTANCE_PNG).stat().st_size > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["BENCHMARKS.md", "docs"]  # no temporary left over
    # A section another command put in (bench.network_value) survives the next rewrite, once.
    out.write_text(report.put_section(out.read_text(), "other", "## Other\n\n| a |\n"))
    report.write_report(result, out, tmp_path / "docs")
    assert out.read_text().count("<!-- kept: other -->\n## Other\n\n| a |\n<!-- /kept: other -->\n") == 1


def test_the_footprint_table_gives_both_ratios_and_the_peak_memory(tmp_path):
    """Start-up included, a checker's speed is set against Aspell's whole run; start-up excluded, against the
    per-set table's; beside them the peak RSS."""
    rows = [("teh", "the"), ("wich", "which")]
    result = report.Run(command="bench", machine={}, sets=[report.EvalSet("tiny", rows, 2)], limit=None, seed=0,
                        sample_size=2,
                        scores=[scoring.score_set("Aspell", "tiny", rows, {"teh": ["the"], "wich": []}, 0.5),
                                scoring.score_set("typofix (fast)", "tiny", rows, {"teh": ["the"], "wich": []}, 1.0)],
                        footprints=[footprint.Footprint("Aspell", "tiny", 2, 0.25, 7.0),
                                    footprint.Footprint("typofix (fast)", "tiny", 2, 1.0, 90.4)])
    text = report.render_markdown(result, Path("docs"))
    assert "| Aspell | tiny | 2 | 0.25 | 8 | 1.0× | 1.0× | 7 |" in text
    assert "| typofix (fast) | tiny | 2 | 1.00 | 2 | 0.25× | 0.5× | 90 |" in text


@pytest.mark.skipif(not Path(footprint.GNU_TIME).is_file(), reason="no GNU time")
def test_a_footprint_is_the_child_process_own_peak_not_the_benchmarks(tmp_path):
    """The child's peak RSS is its own: a benchmark that grew large first does not lend it its high-water mark."""
    held = b"x" * (160 << 20)  # the harness at 160 MB and more
    run = footprint.timed_run([sys.executable, "-c", "b = b'x' * (40 << 20)"], "", tmp_path)
    assert 40 << 10 <= run.peak_kb < 150 << 10 and run.seconds > 0 and run.cpu_seconds >= 0
    del held
    with pytest.raises(RuntimeError, match="exited with 3"):
        footprint.timed_run([sys.executable, "-c", "raise SystemExit(3)"], "", tmp_path)


# --- prose: scoring ---------------------------------------------------------------------------------------

CLEAN = "The cat sat\non the mat, quietly.\n"
TYPOS = "Teh cat sat\non the mta, quietly.\n"


def test_prose_counts_fixed_missed_and_broken_tokens():
    output = "The cat set\non the mta, quietly.\n"  # Teh fixed, mta missed, sat broken
    score = prose.score_text("x", CLEAN, TYPOS, output, seconds=2.0)
    assert (score.misspellings, score.fixed, score.correct_words) == (2, 1, 5)
    assert score.broken == [("sat", "set")]
    assert score.words == 7 and score.words_per_second == 3.5
    assert score.fixed_share == 0.5 and score.broken_share == pytest.approx(1 / 5)


def test_prose_compares_tokens_exactly_and_ignores_white_space():
    output = "the  cat sat on the mat, quietly"  # case and a lost full stop count; white space does not
    score = prose.score_text("x", CLEAN, TYPOS, output, seconds=1.0)
    assert score.fixed == 1  # mta, -> mat, but Teh -> the is not The
    assert score.broken == [("quietly.", "quietly")]


def test_prose_token_count_mismatch_is_an_error():
    with pytest.raises(prose.ProseError, match="output has 8 tokens for 7"):
        prose.score_text("x", CLEAN, TYPOS, "The cat sat on the m ta, quietly.", seconds=1.0)
    with pytest.raises(prose.ProseError, match="typos text has 6 tokens"):
        prose.score_text("x", CLEAN, "Teh cat sat on themta, quietly.", CLEAN, seconds=1.0)


def test_prose_common_breaks_most_frequent_first():
    score = prose.ProseScore("x", 0, 0, 5, [("a", "b"), ("c", "d"), ("c", "d")], 1.0)
    assert score.common_breaks(1) == [("c", "d")] and score.common_breaks(5) == [("a", "b"), ("c", "d")][::-1]


# --- prose: the checkers over text --------------------------------------------------------------------------


def test_first_suggestions_replace_at_the_offsets_and_keep_everything_else():
    line = '"Teh" cat, (mta) alot; xqzwv.'
    # Offsets count the ^ sent before the line.
    block = ["& Teh 3 2: The, Tech", "*", "& mta 2 13: mat, meta", "& alot 2 18: a lot, allot", "# xqzwv 24"]
    assert prose_checkers.first_suggestions(line, block) == '"The" cat, (mat) a_lot; xqzwv.'
    assert prose_checkers.first_suggestions(line, []) == line
    with pytest.raises(RuntimeError, match="does not point"):
        prose_checkers.first_suggestions(line, ["& mta 2 12: mat"])


class _Lookup(peers.Checker):
    """A word-level checker from a table: known words come back as themselves, others as listed."""

    name = "lookup"
    table = {"teh": ["the"], "the": ["the"], "don": ["don"], "t": ["to"], "s": ["a"], "qqq": [], "gnu": ["gnu"]}

    def suggest_many(self, words, k):
        return [self.table.get(w, [w])[:k] for w in words]


def test_word_by_word_corrects_alphabetic_runs_in_their_case(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("Teh TEH teh's, don't 'teh' qqq GNU 3teh\n")
    got = prose_checkers.WordByWord(_Lookup()).correct_file(path)
    assert got == "The THE the's, don't 'the' qqq GNU 3the\n"  # the ending after an apostrophe is not looked up


def test_ispell_text_with_an_installed_program_keeps_the_text(tmp_path):
    checker = prose_checkers.IspellText(peers.aspell())
    if not checker.available():
        pytest.skip(checker.notice)
    path = tmp_path / "t.txt"
    path.write_text("*Teh cat (recieved) it.\n\n# done\n")
    assert checker.correct_file(path) == "*The cat (received) it.\n\n# done\n"


def test_typofix_cli_corrects_a_file(tmp_path):
    name, options = prose_checkers.TYPOFIX_VARIANTS[0]  # the default settings
    checker = prose_checkers.TypofixCLI(name, options)
    if not checker.available():
        pytest.skip(checker.notice)
    path = tmp_path / "t.txt"
    path.write_text("Teh cat recieved it.\n")
    assert checker.correct_file(path) == "The cat received it.\n"
    assert checker.version().startswith("typofix ")
    with pytest.raises(RuntimeError, match="exited with"):
        checker.correct_file(tmp_path / "missing.txt")


def test_benchmark_prose_scores_each_checker_and_reports_failures(tmp_path):
    (tmp_path / "clean.txt").write_text(CLEAN)
    (tmp_path / "typos.txt").write_text(TYPOS)

    class Split(_Lookup):
        name = "splitter"

        def suggest_many(self, words, k):
            return [["m ta"] if w == "mta" else [w] for w in words]

    result = report.Run("cmd", {}, [], None, 0, 0)
    checkers = [prose_checkers.WordByWord(_Lookup()), prose_checkers.WordByWord(Split())]
    for prose_set in run.prose_sets([tmp_path, tmp_path / "absent"]):
        run.benchmark_prose(prose_set, checkers, result)
    scored, missing = result.prose
    assert (scored.name, scored.path) == (tmp_path.name, str(tmp_path))
    assert [(s.checker, s.fixed) for s in scored.scores] == [("lookup", 1)]
    assert scored.scores[0].missed == [("mat,", "mta,")]
    assert result.skipped == [(f"splitter ({tmp_path.name})", result.skipped[0][1])]
    assert "output has 8 tokens" in result.skipped[0][1]  # the absent set adds no failure of its own
    assert "absent" in missing.notice and not missing.scores
    text = report.render_markdown(result, tmp_path)
    assert f"## Running text: absent\n\nSkipped: `{tmp_path / 'absent'}` has no clean.txt" in text


def test_prose_sets_are_named_by_folder_and_described(tmp_path):
    for folder in ("a/prose", "a/informal", "b/informal", "b/mine"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "b/mine/README.md").write_text("# Title\n\nMade from\nthe dev prose.\n\nMore.\n")
    sets = run.prose_sets([tmp_path / f for f in ("a/prose", "a/informal", "b/informal", "b/mine")])
    assert [s.name for s in sets] == ["prose", "a/informal", "b/informal", "mine"]
    assert sets[0].source == report.PROSE_SOURCES["prose"] and sets[1].source == report.PROSE_SOURCES["informal"]
    assert sets[3].source == "Made from the dev prose."
    assert run.parse_args(["--prose", "x", "y"]).prose == [Path("x"), Path("y")]
    assert run.parse_args([]).prose == [Path("../shared/eval/prose"), Path("../shared/eval/informal")]


def test_only_matches_any_case():
    assert run.selected("Aspell", ["aspell"]) and run.selected("typofix (fast)", None)
    assert not run.selected("Hunspell", ["aspell", "Sym"])


def _prose_set(name, scores, source=""):
    return report.ProseSet(name, f"eval/{name}", source, scores)


def test_report_prose_section(tmp_path):
    score = prose.score_text("Aspell", CLEAN, TYPOS, "The cat set\non the mat, quietly.\n", seconds=0.5)
    result = report.Run("cmd", {"timing rule": "core 0"}, [], None, 0, 0, prose=[_prose_set("prose", [score])],
                        prose_versions={"Aspell": "Aspell 0.60.8"})
    text = report.render_markdown(result, tmp_path)
    assert "| Aspell | **100.0% (2/2)** | **20.00% (1/5)** | **14** | 0.50 | 0.00 |" in text
    assert "- Aspell: `sat → set`" in text and "| Aspell, running text | Aspell 0.60.8 |" in text
    assert "left wrong" not in text  # the missed-slips list is typofix's only


def test_report_has_one_section_per_running_text_set_each_with_its_own_table(tmp_path):
    informal_clean, informal_typos = "Debian and Linux don't.\n", "debian and Linux dont.\n"
    fast_typofix = prose.score_text("typofix (default)", informal_clean, informal_typos,
                                    "Debian and Linux dont.\n", seconds=0.25)
    slow_typofix = prose.score_text("typofix (default)", CLEAN, TYPOS, "The cat sat\non the mat, quietly.\n",
                                    seconds=1.0)
    aspell = prose.score_text("Aspell", informal_clean, informal_typos, "Debian an Linux don't.\n", seconds=0.5)
    sets = [_prose_set("prose", [slow_typofix]), _prose_set("informal", [fast_typofix, aspell], "Slips put in."),
            report.ProseSet("informal-all", "outputs/informal-all", notice="`outputs/informal-all` has no clean.txt")]
    text = report.render_markdown(report.Run("cmd", {}, [], None, 0, 0, prose=sets), tmp_path)
    assert text.count("## Running text\n") == 1  # the rules, once
    heads = [text.index(f"## Running text: {name}\n") for name in ("prose", "informal", "informal-all")]
    assert heads == sorted(heads) and text.index("## Running text\n") < heads[0]
    prose_part, informal_part, all_part = text[heads[0]:heads[1]], text[heads[1]:heads[2]], text[heads[2]:]
    # Each set's table has its own rows, sizes and best values.
    assert "`eval/prose/typos.txt`: 7 words (white-space tokens), 2 of them misspelled." in prose_part
    assert "| typofix (default) | **100.0% (2/2)** | **0.00% (0/5)** | **7** |" in prose_part
    assert "Aspell" not in prose_part
    assert "`eval/informal/typos.txt`: 4 words (white-space tokens), 2 of them misspelled. Slips put in." \
        in informal_part
    assert "| typofix (default) | 50.0% (1/2) | **0.00% (0/2)** | **16** |" in informal_part
    assert "| Aspell | **100.0% (2/2)** | 50.00% (1/2) | 8 |" in informal_part
    assert "- typofix (default): `don't. → dont.`" in informal_part  # what typofix left wrong
    assert "- Aspell: `and → an`" in informal_part
    assert "Skipped: `outputs/informal-all` has no clean.txt." in all_part and "| checker |" not in all_part
    assert "## Running text" not in report.render_markdown(report.Run("cmd", {}, [], None, 0, 0), tmp_path)


# --- informal dev cases (bench.informal) -------------------------------------------------------------------

SLIPS = informal.Slips.from_lists(
    accepted=["Debian", "English", "english", "GCC", "TeX", "Kim", "don", "is", "well", "its", "I"],
    words=["don't", "isn't", "we'll", "it's", "that's", "pilot's", "y'all", "dont", "the"],
)


def test_slips_are_title_case_only_words_and_contractions_whose_letters_are_no_word():
    assert SLIPS.capitalised == {"Debian", "Kim"}  # English is listed lower case too; GCC, TeX, I are not Title
    # dont is a listed word; we'll and it's give well and its; pilot's is a possessive
    assert SLIPS.contractions == {"isn't", "that's", "y'all"}
    assert SLIPS.slip("Debian") == ("case", "debian") and SLIPS.slip("Isn't") == ("apostrophe", "Isnt")
    assert SLIPS.slip("debian") is None and SLIPS.slip("don't") is None and SLIPS.slip("English") is None


TEXT = "Debian  isn't (Debian),\n\n\"That's\" GCC\tDebian/GNU y'all. Kim's Debian-based\n"


def test_put_slips_keeps_the_token_layout_and_changes_only_eligible_tokens():
    typos, counts = informal.put_slips(TEXT, SLIPS, 1.0, seed=1)
    assert typos == "debian  isnt (debian),\n\n\"Thats\" GCC\tDebian/GNU yall. Kim's Debian-based\n"
    assert counts == {"case": 2, "apostrophe": 3}
    assert re.split(r"\S+", typos) == re.split(r"\S+", TEXT)  # the same white space between as many tokens
    assert informal.put_slips(TEXT, SLIPS, 0.0, seed=1) == (TEXT, {})
    score = prose.score_text("x", TEXT, typos, TEXT, seconds=1.0)
    assert (score.misspellings, score.fixed, score.broken) == (5, 5, [])


def test_put_slips_is_seeded_by_token_position():
    text = " ".join(["Debian"] * 400)
    half, counts = informal.put_slips(text, SLIPS, 0.5, seed=1)
    assert half == informal.put_slips(text, SLIPS, 0.5, seed=1)[0] and 150 < counts["case"] < 250
    assert half != informal.put_slips(text, SLIPS, 0.5, seed=2)[0]
    # A token's draw depends on its position only: text after it changes nothing before it.
    longer, _ = informal.put_slips(text + " isn't", SLIPS, 0.5, seed=1)
    assert longer.startswith(half)
    assert informal.put_slips(text, SLIPS, 0.5, seed=1)[0].split()[:10] == half.split()[:10]


def test_markdown_prose_keeps_plain_paragraphs_of_accepted_words():
    text = ("# Heading Debian\n\nDebian is well.\nIts well.\n\nUse `code` here.\n\n```\nDebian is\n```\n\n"
            "| Debian | is |\n\nA [link](http://x) is.\n\nDebian is qwzx.\n")
    assert informal.markdown_prose(text, ["Debian", "is", "well", "its", "use", "here"]) == \
        "Debian is well.\nIts well.\n"


def test_informal_main_writes_the_set(tmp_path):
    source = tmp_path / "clean.txt"
    source.write_text("We don't use Linux on Debian in February; you're right.\n")
    informal.main(["--clean", str(source), "--rate", "1.0", "--out", str(tmp_path / "set")])
    typos = (tmp_path / "set" / "typos.txt").read_text()
    assert typos == "We dont use linux on debian in february; youre right.\n"
    assert (tmp_path / "set" / "clean.txt").read_bytes() == source.read_bytes()
    assert "5 slips in 10 tokens" in (tmp_path / "set" / "README.md").read_text()
    assert run.prose_sets([tmp_path / "set"])[0].source.startswith("Clean text (`")


# --- check_peers: what each tool costs -------------------------------------------------------------------

def test_check_peers_measures_a_child_alone_its_output_time_and_memory(tmp_path):
    import gzip
    import sys

    from bench.check_peers import man_text, run_tool
    done = run_tool([sys.executable, "-c", "import sys, time; print('first', flush=True); time.sleep(0.3); "
                                           "block = bytearray(80_000_000); block[::4096] = b'x' * len(block[::4096]); "
                                           "print('last')"])
    assert (done.stdout, done.returncode) == ("first\nlast\n", 0)
    assert done.rss_mb >= 80  # the child's own peak, not this process's
    assert done.first is not None and done.first < done.seconds and done.seconds >= 0.3 and done.cpu > 0
    pages = tmp_path / "man1"
    pages.mkdir()
    for name in ("a.1", "b.1"):
        (pages / f"{name}.gz").write_bytes(gzip.compress(b".TH A 1\nsome text here\n" * 30_000))
    [made] = man_text(tmp_path, 1, folder=tmp_path)
    assert Path(made).stat().st_size == 1_000_000


def test_model_work_reads_its_variants_and_refuses_holdout():
    """`bench.model_work`'s variants are the preset with settings of their own type, a model file apart; an
    unknown setting and a holdout list are refused."""
    name, settings, model = model_work.parse_variant("w:wide_model_candidates=4,cheap_phones=false,alpha=1.5",
                                                     "default")
    assert (name, model) == ("w", None)
    assert (settings.wide_model_candidates, settings.cheap_phones, settings.alpha) == (4, False, 1.5)
    assert settings.bundled_model == "default"
    _, fast, model = model_work.parse_variant("f:model=some.onnxz", "fast")
    assert fast == DecodingSettings.preset("fast") and model == "some.onnxz"
    with pytest.raises(SystemExit, match="no setting"):
        model_work.parse_variant("x:wide_candidates=3", "default")
    with pytest.raises(SystemExit, match="reserved"):
        model_work.read_rows("../shared/eval/holdout/birkbeck.tsv", None)


def test_the_megabyte_holds_each_typo_once_in_place_of_a_word(tmp_path):
    """bench.startup's long document: a megabyte of the clean text with each chosen typo put once, where it
    can in place of the word it misspells, every other word as it was."""
    clean = tmp_path / "clean.txt"
    clean.write_text("The quick brown foxes jumped over lazy dogs near their house.\n", encoding="utf-8")
    typos = [("quikc", "quick"), ("huose", "house"), ("zebar", "zebra"), ("Capital", "capital"), ("two words", "x")]
    out = tmp_path / "megabyte.txt"
    put = startup.write_megabyte(clean, typos, out, count=3)
    text = out.read_text(encoding="utf-8")
    assert put == 3 and len(text.encode("utf-8")) >= startup.MEGABYTE
    words = re.findall(r"\w+", text)
    clean_words = re.findall(r"\w+", clean.read_text(encoding="utf-8")) * (len(words) // 11)
    assert len(words) == len(clean_words)
    changed = [(a, b) for a, b in zip(words, clean_words) if a != b]
    assert sorted(a for a, _ in changed) == ["huose", "quikc", "zebar"]
    assert ("quikc", "quick") in changed and ("huose", "house") in changed  # the word each misspells
