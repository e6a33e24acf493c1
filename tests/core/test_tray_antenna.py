"""The chip tray counted by the tray antenna (docs/tray.md, "Counted by the tray antenna"): an
opener or a closer whose counts are the core's own stable read of the tray when it is applied,
grouped by denomination at the values the chips were read with; the same after a replay (the
reads come before it in the journal) and from a checkpoint; refused with its reason and nothing
changed at a table without a chip reader, before the tray is read, with a chip on it that does
not count, on an empty tray, with a chip not in play, with chips given as well, for a fill or a
credit; and a ``TrayCounted`` journaled before the field existed still read as a count by hand."""

from __future__ import annotations

import json
from typing import Any

import pytest

from station.chip_inputs import ChipsOnPlace, ChipStatusSet
from station.chips.registry import ChipStanding, ChipStatus
from station.core import outputs as out
from station.core.chip_table import ChipRules
from station.core.state import machine_state, restore_machine
from station.event_codec import event_from_dict, event_to_dict
from station.events import Actor, DropCounted, Event, TrayCorrected, TrayCounted
from station.games.baccarat.table import BaccaratTable, Variant
from station.games.table import Chips

SUE = Actor("supervisor", "sue")
DEE = Actor("dealer", "dee")
CHIPS_IN_PLAY = (100, 500, 1000)
UIDS = [f"E0040100000000{n:02X}" for n in range(16)]


def chip(n: int, value: int = 1000, status: ChipStatus = ChipStatus.ACTIVE) -> ChipStanding:
    return ChipStanding(UIDS[n], status, value)


def tray(*chips: ChipStanding, read: int = 1) -> ChipsOnPlace:
    return ChipsOnPlace("tray", chips, read=read, at_ms=read * 100)


def by_reader(what: str = "opener", witness: str = "dee", actor: Actor = SUE,
              chips: tuple[tuple[int, int], ...] = (), slip: str = "") -> TrayCounted:
    return TrayCounted(what, chips, witness, actor, slip, counted_by="reader")


def chip_table(make_table: Any) -> Any:
    """A mini baccarat table that reads its chips, its chips in play 1.00, 5.00 and 10.00."""
    return make_table(table=BaccaratTable(Variant.MINI, 7, 1000, 500_000, Chips(CHIPS_IN_PLAY)),
                      chips=ChipRules("tap", True))


#: A tray of two 10.00, one 5.00 and three 1.00 chips: 28.00.
TRAY = (chip(0), chip(1), chip(2, 500), chip(3, 100), chip(4, 100), chip(5, 100))
TRAY_COUNTS = ((100, 3), (500, 1), (1000, 2))


def test_an_opener_and_a_closer_counted_by_the_tray_antenna(make_table: Any) -> None:
    table = chip_table(make_table)
    table.post(tray(*TRAY), by_reader("opener"))
    opener = table.last(out.TrayRecorded)
    assert (opener.what, opener.chips, opener.value, opener.signed, opener.counted_by) == (
        "opener", TRAY_COUNTS, 2800, ("sue", "dee"), "reader")
    assert table.machine.tray_ledgers[0]["entries"][0]["counted_by"] == "reader"
    assert table.loop.published.tray["entries"] == [
        {"entry": 1, "kind": "opener", "value": 2800, "slip": "", "signed": ["sue", "dee"], "counted_by": "reader"}]

    # The tray changes after the count: the opener stays what the antenna read when it was applied,
    # after a replay from the start and from a checkpoint alike.
    table.post(tray(chip(0), chip(2, 500), read=2))
    state = machine_state(table.machine)
    assert machine_state(restore_machine(table.options, state)) == state
    table.restart()
    assert machine_state(table.machine) == state
    assert table.machine.tray_ledgers[0]["entries"][0]["value"] == 2800

    # A hand count at the same table says so; the closer by the antenna reads the tray as it is now.
    table.post(TrayCounted("fill", ((1000, 1),), "rob", SUE, "F-1"))
    assert table.last(out.TrayRecorded).counted_by == "hand"
    table.post(by_reader("closer"), DropCounted(0, SUE))
    closer = [r for r in table.of(out.TrayRecorded) if r.what == "closer"][-1]
    assert (closer.chips, closer.value, closer.counted_by) == (((500, 1), (1000, 1)), 1500, "reader")
    reconciled = table.last(out.TrayReconciled)
    assert (reconciled.opener, reconciled.fills, reconciled.closer, reconciled.win) == (2800, 1000, 1500, -2300)


def test_a_correction_of_an_entry_the_antenna_counted_is_by_hand(make_table: Any) -> None:
    table = chip_table(make_table)
    table.post(tray(*TRAY), by_reader("opener"))
    table.post(TrayCorrected(1, "a 10.00 chip under the float", SUE, ((100, 3), (500, 1), (1000, 3))))
    corrected = table.last(out.TrayRecorded)
    assert (corrected.corrects, corrected.change, corrected.counted_by) == (1, 1000, "hand")
    assert table.machine.tray_ledgers[0]["entries"][0]["counted_by"] == "hand"


def test_a_chip_flagged_after_it_was_read_on_the_tray_refuses_the_count(make_table: Any) -> None:
    table = chip_table(make_table)
    table.post(tray(*TRAY), ChipStatusSet(UIDS[1], "flagged", "reported stolen", SUE), by_reader("opener"))
    assert table.last(out.Refused).reason == (
        f"1 chip(s) on the tray do not count ({UIDS[1]} is flagged): take them off the tray, or count it by hand")
    assert not table.of(out.TrayRecorded) and table.machine.tray_ledgers == []


BAD = (chip(6, 0, ChipStatus.UNKNOWN), chip(7, 1000, ChipStatus.FLAGGED), chip(8, 1000, ChipStatus.RETIRED),
       chip(9, 0, ChipStatus.UNKNOWN), chip(10, 500, ChipStatus.FLAGGED))
NOT_READ = ("the tray antenna has not read the tray (no antenna is under the tray, or its chips are not steady "
            "yet): count it by hand, or wait until the tray's chips are shown")


@pytest.mark.parametrize(("reads", "event", "reason"), [
    ((), by_reader(), NOT_READ),
    ((ChipsOnPlace("spot:1:banker", (chip(0),)),), by_reader(), NOT_READ),
    ((tray(),), by_reader(), "the tray antenna reads no chips on the tray: count it by hand"),
    ((tray(chip(0), *BAD),), by_reader(),
     f"5 chip(s) on the tray do not count ({UIDS[6]} is not in the registry, {UIDS[7]} is flagged, {UIDS[8]} is "
     "retired and 2 more): take them off the tray, or count it by hand"),
    ((tray(chip(0), chip(1, 2500)),), by_reader(),
     "25.00 is not a chip in play (1.00, 5.00, 10.00), as the tray antenna reads the tray"),
    ((tray(*TRAY),), by_reader(chips=((1000, 2),)),
     "give the counts by hand or count by the tray antenna, not both: leave the chips out to count by the antenna"),
    ((tray(*TRAY),), by_reader("fill", witness="rob", slip="F-1"),
     "a fill is the chips brought from the cage, not the tray: count it by hand (the tray antenna counts an opener "
     "or a closer)"),
    ((tray(*TRAY),), by_reader("credit", witness="rob", slip="C-1"),
     "a credit is the chips sent to the cage, not the tray: count it by hand (the tray antenna counts an opener or "
     "a closer)"),
    ((tray(*TRAY),), TrayCounted("opener", (), "dee", SUE, counted_by="scale"),
     "a tray is counted by hand or by the reader (its tray antenna), not 'scale'"),
    ((tray(*TRAY),), by_reader(actor=DEE), "only a supervisor signs for the chip tray"),
    ((tray(*TRAY),), by_reader(witness="sue"), "the witness must be another person than sue, who signs"),
])
def test_a_count_by_the_tray_antenna_is_refused_with_its_reason(make_table: Any, reads: tuple[Event, ...],
                                                                 event: TrayCounted, reason: str) -> None:
    table = chip_table(make_table)
    table.post(*reads, event)
    refused = table.last(out.Refused)
    assert (refused.what, refused.reason) == ("TrayCounted", reason)
    assert not table.of(out.TrayRecorded) and table.machine.tray_ledgers == []


def test_a_table_without_a_chip_reader_counts_its_tray_by_hand(table: Any) -> None:
    table.post(by_reader())
    assert table.last(out.Refused).reason == "this table has no chip reader: count the tray by hand"
    assert table.machine.tray_ledgers == []


def test_a_count_journaled_before_the_tray_antenna_counted_is_read_as_by_hand() -> None:
    old = {"type": "TrayCounted", "what": "opener", "chips": [[2500, 40]], "witness": "dee",
           "actor": {"role": "supervisor", "who": "sue"}, "slip": ""}
    decoded = event_from_dict(old)
    assert decoded == TrayCounted("opener", ((2500, 40),), "dee", SUE)
    assert isinstance(decoded, TrayCounted) and decoded.counted_by == "hand"
    new = by_reader("closer")
    record = json.loads(json.dumps(event_to_dict(new)))
    assert record["counted_by"] == "reader" and record["chips"] == []
    assert event_from_dict(record) == new
