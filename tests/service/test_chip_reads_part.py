"""The chip reader's part (docs/chips.md): raw reads become one journaled input per change of
what a place is believed to hold, by the stable-read rule; a read of an antenna under no place
is counted and dropped; a fault of the reader breaks the runs; a steady read is believed after
``stable_ms`` by the clock alone; each chip carries its standing in the registry."""

from __future__ import annotations

from station.chip_events import ChipsRead
from station.chip_inputs import ChipsOnPlace
from station.chips.registry import ChipRecord, ChipRegistry, ChipStatus
from station.config.chip_reader import ChipReaderSection
from station.events import DeviceFault, Event, LidOpened
from station.service.chip_parts import ChipReadsPart

A, B, C = "E004010000000001", "E004010000000002", "E0040100000000FF"
REGISTRY = ChipRegistry.of("EUR", 2, [ChipRecord(A, 2500, ChipStatus.ACTIVE), ChipRecord(B, 500, ChipStatus.FLAGGED)])


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def part(stable_ms: int = 60_000, reads: int = 2) -> tuple[ChipReadsPart, list[Event], Clock]:
    section = ChipReaderSection(registry="chips.csv", antennas={"1": "spot:1:banker", "2": "payout:1"},
                                stable_reads=reads, stable_ms=stable_ms)
    clock = Clock()
    posted: list[Event] = []
    return ChipReadsPart(section, REGISTRY, "chips.csv", clock=clock), posted, clock


def test_a_place_is_journaled_once_its_chips_are_read_the_same_twice() -> None:
    chips, posted, _ = part()
    route = chips.router(posted.append)
    route(ChipsRead("chipreader", 1, (A, B), 1))
    assert posted == []
    route(ChipsRead("chipreader", 1, (A, B), 2))
    [event] = posted
    assert isinstance(event, ChipsOnPlace) and event.place == "spot:1:banker" and event.read == 2
    assert [(c.uid, c.status, c.value) for c in event.chips] == [(A, ChipStatus.ACTIVE, 2500),
                                                                 (B, ChipStatus.FLAGGED, 500)]
    route(ChipsRead("chipreader", 1, (A, B), 3))
    assert len(posted) == 1  # nothing changed: nothing journaled


def test_a_collision_or_a_missed_chip_never_makes_or_takes_a_chip() -> None:
    chips, posted, _ = part()
    route = chips.router(posted.append)
    for n, (uids, collisions) in enumerate((((A,), 0), ((A,), 0), ((), 1), ((A, C), 1), ((), 0)), start=1):
        route(ChipsRead("chipreader", 1, uids, n, collisions))
    assert [[c.uid for c in e.chips] for e in posted if isinstance(e, ChipsOnPlace)] == [[A]]


def test_an_antenna_under_no_place_is_counted_and_dropped() -> None:
    chips, posted, _ = part()
    route = chips.router(posted.append)
    for n in (1, 2):
        route(ChipsRead("chipreader", 9, (A,), n))
    assert posted == [] and chips.counts.unmapped == 2 and chips.counts.unmapped_antennas == {9}
    assert chips.status()["chip_reader"]["unmapped_reads"] == 2


def test_other_events_pass_and_a_reader_fault_breaks_the_runs() -> None:
    chips, posted, _ = part()
    route = chips.router(posted.append)
    route(ChipsRead("chipreader", 1, (A,), 1))
    fault = DeviceFault("chipreader", "antenna 1 lost", "antenna_fault")
    route(fault)
    route(LidOpened("shoe"))
    assert posted == [fault, LidOpened("shoe")] and chips.counts.interruptions == 1
    route(ChipsRead("chipreader", 1, (A,), 2))
    assert not any(isinstance(e, ChipsOnPlace) for e in posted)  # the run began again after the fault
    route(ChipsRead("chipreader", 1, (A,), 3))
    assert isinstance(posted[-1], ChipsOnPlace)


def test_a_steady_read_is_believed_after_stable_ms_by_the_clock() -> None:
    chips, posted, clock = part(stable_ms=300, reads=5)
    route = chips.router(posted.append)
    route(ChipsRead("chipreader", 2, (A,), 1))
    clock.now += 0.2
    chips.tick()
    assert posted == []
    clock.now += 0.15
    chips.tick()
    [event] = posted
    assert isinstance(event, ChipsOnPlace) and event.place == "payout:1"


def test_the_clock_sleeps_until_the_earliest_steady_read_is_due_not_by_ticks() -> None:
    chips, posted, clock = part(stable_ms=300, reads=5)
    assert chips.wait_s() == 1.0  # nothing waits on the clock: it sleeps its longest
    route = chips.router(posted.append)
    route(ChipsRead("chipreader", 2, (A,), 1))  # due 300 ms from now
    clock.now += 0.05
    route(ChipsRead("chipreader", 1, (A,), 2))  # due 300 ms from now, 50 ms later
    assert abs(chips.wait_s() - 0.25) < 1e-9  # the payout zone's read comes first
    clock.now += 0.25
    assert chips.wait_s() == 0.0
    chips.tick()
    assert [e.place for e in posted if isinstance(e, ChipsOnPlace)] == ["payout:1"]
    assert abs(chips.wait_s() - 0.05) < 1e-9  # then the spot's
    route(ChipsRead("chipreader", 1, (), 3, 1))  # a collision round: no clean read, nothing due
    assert chips.wait_s() == 1.0

