"""The chip tray's ledger (docs/tray.md): an opener, fills and credits, a closer and the drop,
each refused with its reason where a role or a rule forbids it; the win by inventory equal to
closer - opener + credits - fills + drop to the chip, and its variance from the house's result
of the rounds equal to an overpay the dealer made from the tray; corrections journaled with who
and why, reconciled again; the same after a replay and from a checkpoint."""

from __future__ import annotations

from typing import Any

import pytest

from station.core import outputs as out
from station.events import Actor, DropCounted, Event, TrayCorrected, TrayCounted

SUE = Actor("supervisor", "sue")
DEE = Actor("dealer", "dee")
#: The default table's chips: 1.00, 5.00, 10.00, 25.00, 100.00, 500.00.
OPENER = ((100, 200), (500, 100), (1000, 100), (2500, 40), (10_000, 20), (50_000, 4))


def count(what: str, chips: tuple[tuple[int, int], ...] = OPENER, witness: str = "dee", actor: Actor = SUE,
          slip: str = "") -> TrayCounted:
    return TrayCounted(what, chips, witness, actor, slip)


def value(chips: tuple[tuple[int, int], ...]) -> int:
    return sum(d * n for d, n in chips)


def play_round(table: Any, bets: tuple[tuple[str, str, int], ...], cards: str) -> int:
    """One round: bets, no more bets, cards, next round; the house's result of it."""
    for box, region, amount in bets:
        table.bet(box, "ann", region, amount)
    table.act("no_more_bets").cards(cards)
    house = table.last(out.RoundSettled).house_net
    table.act("next_round")
    return int(house)


@pytest.mark.parametrize(("event", "reason"), [
    (count("opener", actor=DEE), "only a supervisor signs for the chip tray"),
    (count("opener", witness=""), "a second signature is needed: name the witness (the dealer, or the runner of "
                                  "a fill)"),
    (count("opener", witness="sue"), "the witness must be another person than sue, who signs"),
    (count("inventory"), "a tray count is an opener, fill, credit, closer, not 'inventory'"),
    (count("opener", ((2000, 5),)), "20.00 is not a chip in play (1.00, 5.00, 10.00, 25.00, 100.00, 500.00)"),
    (count("opener", ((100, 5), (100, 6))), "the 1.00 chips are counted twice"),
    (count("opener", ((100, -1),)), "a count of -1 1.00 chips: counts are 0 or more"),
    (count("opener", ()), "count the chips by denomination"),
    (count("fill", ((2500, 20),), slip="F-1"), "the table is not open: count its opener first"),
    (DropCounted(50_000, SUE), "no table opening is waiting for its drop: count an opener first, or correct the "
                               "drop entered"),
    (DropCounted(50_000, DEE), "only a supervisor enters the drop"),
    (TrayCorrected(1, "miscount", SUE, ((100, 1),)), "no tray entry 1 among the last 3 openings of the table "
                                                     "(entries none yet)"),
])
def test_a_tray_entry_is_refused_with_its_reason(table: Any, event: Event, reason: str) -> None:
    table.post(event)
    refused = table.last(out.Refused)
    assert (refused.what, refused.reason) == (event.kind, reason)
    assert not table.of(out.TrayRecorded) and table.machine.tray_ledgers == []


def test_the_rules_of_an_open_table(table: Any) -> None:
    table.post(count("opener"))
    table.post(count("opener"))
    assert table.last(out.Refused).reason == "the table is open (ledger 1): count its closer first"
    table.post(count("fill", ((2500, 20),)))
    assert table.last(out.Refused).reason == "a fill needs the number of its slip"
    table.post(count("credit", ((2500, 0),), slip="C-1"))
    assert table.last(out.Refused).reason == "a credit of no chips"
    table.post(TrayCorrected(1, " ", SUE, ((100, 1),)))
    assert table.last(out.Refused).reason == "say why the entry is corrected"
    assert [e["kind"] for e in table.machine.tray_ledgers[0]["entries"]] == ["opener"]


def test_a_day_whose_inventory_win_differs_from_the_rounds_by_the_overpay(table: Any) -> None:
    table.start_shoe()
    table.post(count("opener"))
    house = play_round(table, (("1", "player", 5000), ("2", "banker", 2000)), "KH 3H 2D 3D 2S")  # Banker 6 v 4
    table.post(count("fill", ((2500, 40), (10_000, 10)), witness="rob", slip="F-1001"))
    house += play_round(table, (("1", "player", 10_000),), "9H 3H KD 3D")  # Player natural 9 v 6
    table.post(count("credit", ((50_000, 2),), witness="rob", slip="C-2001"))
    # The tray after the day, as the dealer really paid: every payout from it, and one overpay of
    # 25.00 on the Player win (35.00 where 10.00 were due).
    fills, credits, overpay = value(((2500, 40), (10_000, 10))), 100_000, 2500
    tray = value(OPENER) + fills - credits + house - overpay  # the house's result is won or paid from the tray
    drop = 0  # no cash bought in at this table: chips came from the tray only
    closer = ((100, tray // 100),)  # counted in 1.00 chips for the test's arithmetic
    table.post(count("closer", closer))
    assert not table.of(out.TrayReconciled)  # the drop is not known yet
    table.post(DropCounted(drop, SUE, "count room"))
    reconciled = table.last(out.TrayReconciled)
    win = value(closer) - value(OPENER) + credits - fills + drop
    assert (reconciled.win, reconciled.house, reconciled.variance) == (win, house, -overpay)
    assert (reconciled.opener, reconciled.fills, reconciled.credits, reconciled.closer, reconciled.drop) == (
        value(OPENER), fills, credits, value(closer), drop)
    entries = [(r.entry, r.what, r.slip, r.signed) for r in table.of(out.TrayRecorded)]
    assert entries == [(1, "opener", "", ("sue", "dee")), (2, "fill", "F-1001", ("sue", "rob")),
                       (3, "credit", "C-2001", ("sue", "rob")), (4, "closer", "", ("sue", "dee")),
                       (5, "drop", "", ("sue",))]

    # The closer recounted: the overpay's 25.00 chip was found under the float.
    table.post(TrayCorrected(4, "recounted: a 25.00 chip under the float", SUE, ((100, tray // 100), (2500, 1))))
    corrected = table.last(out.TrayRecorded)
    assert (corrected.corrects, corrected.change, corrected.signed, corrected.reason) == (
        4, 2500, ("sue",), "recounted: a 25.00 chip under the float")
    assert table.last(out.TrayReconciled).variance == 0

    # The next day opens a new ledger; the old one is still correctable.
    table.post(count("opener", closer))
    assert table.machine.tray_ledgers[-1]["ledger"] == 2


def test_the_ledger_replays_the_same_from_the_start_and_from_a_checkpoint(table: Any) -> None:
    from station.core.state import machine_state, restore_machine

    table.start_shoe()
    table.post(count("opener"), count("fill", ((2500, 4),), witness="rob", slip="F-7"), DropCounted(12_000, SUE))
    state = machine_state(table.machine)
    assert machine_state(restore_machine(table.options, state)) == state
    table.restart()
    assert machine_state(table.machine) == state
    table.post(count("closer"))
    assert table.last(out.TrayReconciled).drop == 12_000
