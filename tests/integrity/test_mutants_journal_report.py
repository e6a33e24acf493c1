"""The integrity report of a real journal (``station integrity report``), at the corners
mutation testing (tools/mutate.py, docs/testing.md) found unguarded: each test here fails on a
mutant that survived the rest of the tests. The journal is written by a real core loop."""

from __future__ import annotations

from typing import Any

from station.core.options import CoreOptions
from station.events import CutCardSeen
from station.integrity.report import integrity_report


def test_each_shoe_lists_the_deck_checks_of_its_set_before_and_during_it(make_table: Any) -> None:
    """A count before a shoe is of the set that goes into it; a count during a shoe is of the
    next set (or the one in play): each shoe lists the counts made while the shoe before it and
    while it was in play, and no other."""
    table = make_table()
    table.counted(change={"AS": 7})  # before shoe 1
    for shoe in (1, 2, 3):
        table.start_shoe()
        table.counted(change={"2H": 7 + shoe})  # during it: 2H over by shoe - 1
        table.act("no_more_bets").cards("9H 2H").post(CutCardSeen("shoe")).cards("KD 3D").act("next_round")
        table.act("no_more_bets").cards("9H 2H KD 3D").act("next_round")
    assert table.state == "shuffling" and table.machine.shoe.number == 3
    table.loop.close()
    report = integrity_report(table.path, CoreOptions())
    checks = {s["shoe"]: [c["detail"].split(";")[0] for c in s["deck_checks"]] for s in report["shoes"]}
    assert checks == {
        1: ["415 cards counted, 416 expected", "complete: 416 cards, 8 decks"],
        2: ["complete: 416 cards, 8 decks", "417 cards counted, 416 expected"],
        3: ["417 cards counted, 416 expected", "418 cards counted, 416 expected"],
    }
