"""`check`'s Spool: what a run holds between its passes comes back in order, from memory or from disk."""

from __future__ import annotations

from typofix.apps.check.checkable import Checkable, Part, Row
from typofix.apps.check.spool import Spool, held_size


def items(n: int) -> list[Checkable]:
    return [Checkable(f"f{i}.py", None, rows=[Row(i + 1, 10 * i, "x" * 300, "y" * 300, ((0, 4),), ("teh",))],
                      literals=[Part(i, 1, i + 1, "recieve", ("recieve",))]) for i in range(n)]


def test_a_spool_gives_back_what_it_was_given_in_order_within_its_budget_or_past_it():
    made = items(10)
    for budget, spilled in ((10 * held_size(made[0]), False), (3 * held_size(made[0]), True)):
        with Spool(budget) as spool:
            for item in made:
                spool.add(item)
            assert (spool._file is not None) == spilled and spool.count == 10
            assert list(spool) == made and list(spool) == made  # again and again
            if spilled:
                assert spool._held == []  # past its budget, nothing is held in memory


def test_a_drained_spool_gives_each_item_once_in_order_and_holds_none_of_them_after():
    made = items(10)
    for budget in (10 * held_size(made[0]), 3 * held_size(made[0])):
        spool = Spool(budget)
        for item in made:
            spool.add(item)
        drained = spool.drain()
        first = next(drained)
        assert first == made[0] and spool._held == []  # what is in memory is let go as it is handed out
        assert [first, *drained] == made
        assert spool._held == [] and spool._file is None  # closed: its file deleted


def test_held_size_counts_what_an_item_costs_beyond_its_text():
    bare = Checkable("f.py", None)
    assert held_size(bare) > 0  # a file with nothing to check still costs its object, path and digest
    one, two = items(2)
    assert held_size(one) > len(one.rows[0].text) + len(one.rows[0].mask) + len(one.literals[0].text)
