"""bench.network_value: the table of what the network buys, on a handful of rows with the tiny checkpoint, and
the no-network corrector it measures."""

from __future__ import annotations

import pytest

from bench import network_value, report
from typofix.files.misspellings import read_misspellings
from typofix.engine.ranking import channel_score

TYPOS = ["speling", "recieve", "teh", "acommodate", "wich", "bannana"]


def test_no_network_ranks_the_lexicon_neighbours_by_the_channel_score_alone():
    corrector = network_value.networks(tiny_model=None)[0].load()  # the "no network" row
    assert corrector.stepper is None
    s, lexicon = corrector.settings, corrector.lexicon
    for typo, got in zip(TYPOS, corrector.suggest_many(TYPOS, k=1000, with_typo=True)):  # as evaluate asks
        assert not corrector.is_accepted(typo)
        near = corrector.neighbours.wide([typo])[0]
        expected = {w: channel_score(0.0, w, typo, lexicon, s.prior_weight, s.edit_weight, s.first_letter_weight)
                    for w in near}
        expected[typo] = channel_score(0.0, typo, typo, lexicon, s.prior_weight) + s.min_confidence  # stay as is
        # exactly the neighbours and the typo, nothing a model would propose
        assert {g.word: g.score for g in got} == expected
        assert [g.score for g in got] == sorted(expected.values(), reverse=True)
    assert corrector.correct("speling") == "spelling"


@pytest.mark.slow  # three networks over every set; the no-network row above stays
def test_table_has_every_network_and_set(tiny_ckpt):
    rows_by_set = {path.split("/")[-1].removesuffix(".tsv"): read_misspellings(path)[:6]
                   for path in network_value.SETS}
    rows = network_value.networks(tiny_ckpt)
    result = network_value.measure(rows_by_set, rows)
    assert set(result) == {network.label for network in rows}
    for by_set in result.values():
        assert set(by_set) == set(rows_by_set)
        for top1, top5 in by_set.values():
            assert 0.0 <= top1 <= top5 <= 1.0
    text = network_value.render(result, rows, rows_by_set, "python -m bench.network_value")
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(table) == 1 + len(rows)  # the header and one line per network
    for i, network in enumerate(rows, start=1):
        assert table[i].startswith(f"| {network.label} |")
        assert f"{i}. **{network.label}**: " in text  # the caption says what every row is


def test_put_section_replaces_its_own_section_or_appends_it():
    text = "# Benchmarks\n\nfigures\n"
    once = report.put_section(text, "bench.network_value", "## What the network buys\n\nold\n")
    assert once.startswith(text) and once.endswith("old\n<!-- /kept: bench.network_value -->\n")
    twice = report.put_section(once, "bench.network_value", "## What the network buys\n\nnew\n")
    assert twice == once.replace("old", "new")
    assert report.put_section("", "x", "body") == "<!-- kept: x -->\nbody\n<!-- /kept: x -->\n"
