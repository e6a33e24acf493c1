"""The chip reader over a pty: the real driver against the reader's simulator, checked from both
sides: the reads the station is handed, and what the reader was sent and sent back.

Half a stack is never a read (a report whose parts stop is discarded, on request and in
continuous mode), collisions and misses are reported as the rounds saw them, an antenna's fault
is one ``DeviceFault``, and the mode outlives an unplugged cable and a restart of the reader."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from drivers.codec import chipreader as wire
from drivers.codec.framing import encode_frame
from drivers.codec.protocol import Ack, Message, Nak, NakCode
from drivers.devices import ChipReaderDriver, DeviceProtocolError, DeviceRefused, IncompleteRead
from drivers.devices.chipreader import PartAssembler
from drivers.devices.link import BOOT_RESEND_WINDOW_S
from drivers.simulators import ChipReaderSimulator, start_simulator
from station import events as ev
from station.chip_events import ChipsRead

from ..waiting import stays_false, wait_until
from .helpers import FAST, WAIT, Recorder

Rig = tuple[ChipReaderSimulator, ChipReaderDriver]
A, B, C = "E004015012345678", "E004015012345679", "E00401501234567A"
PERIOD_MS = 50


class SteppedClock:
    """The link's clock, moved on by the test instead of waited out."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def __call__(self) -> float:
        return self.now

    def past_the_boot_window(self) -> None:
        """A reader restarted after its last Boot numbers its next Boot the same (1): past this
        window the link takes it for a new power-up, not a resend (docs/protocols/README.md)."""
        self.now += BOOT_RESEND_WINDOW_S + 0.1


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


@pytest.fixture
def reader(rec: Recorder, clock: SteppedClock) -> Iterator[Rig]:
    """The reader's simulator (8 antennas) and a started driver, its start-up re-sync done."""
    running = start_simulator("chipreader", ack_timeout=0.05, seed=7)
    sim: ChipReaderSimulator = running.simulator
    driver = ChipReaderDriver("chipreader", sim.url, rec, settings=FAST, clock=clock)
    assert driver.start(WAIT)
    assert sim.wait_idle(WAIT)  # the power-on Boot has been delivered (and asked for a re-sync)
    assert driver.wait_synced(WAIT)
    yield sim, driver
    driver.stop()
    running.stop()


def reads(rec: Recorder, antenna: int | None = None) -> list[ChipsRead]:
    return [e for e in rec.of(ChipsRead) if antenna is None or e.antenna == antenna]


def wait_read(rec: Recorder, antenna: int, uids: list[str] | tuple[str, ...], collisions: int = 0) -> ChipsRead:
    """Until a read of ``antenna`` says exactly ``uids`` (in any order given)."""
    wanted = tuple(sorted(uids))
    rec.wait_matching(lambda e: isinstance(e, ChipsRead) and (e.antenna, e.uids, e.collisions)
                      == (antenna, wanted, collisions))
    return reads(rec, antenna)[-1]


def link_events(rec: Recorder) -> list[str]:
    return [type(e).__name__ for e in rec.events if isinstance(e, ev.DeviceRecovered)
            or (isinstance(e, ev.DeviceFault) and e.code != "antenna_fault")]


def asked(sim: ChipReaderSimulator) -> list[Message]:
    """The reader's commands but the antenna lists the driver reads at each connection and Boot."""
    return [c for c in sim.commands() if not isinstance(c, wire.GetAntennas)]


# -- on request ---------------------------------------------------------------------------------


def test_an_inventory_reads_the_chips_on_one_antenna(reader: Rig, rec: Recorder) -> None:
    sim, driver = reader
    sim.place(1, [A, B])
    sim.place(2, C)
    first = driver.inventory(1)
    assert (first.antenna, first.uids, first.collisions, first.parts) == (1, (A, B), 0, 1)
    assert driver.inventory(2).uids == (C,) and driver.inventory(3).uids == ()
    sim.place(3, B)  # a chip moved: it is on one antenna at a time
    assert driver.inventory(1).uids == (A,) and driver.inventory(3).uids == (B,)
    assert sim.commands(wire.Inventory) == [wire.Inventory(n) for n in (1, 2, 3, 1, 3)]
    assert driver.inventory(1).round_no > first.round_no
    assert reads(rec) == []  # reads asked for are answers, not events
    with pytest.raises(DeviceRefused, match="out_of_range"):
        driver.link.request(wire.Inventory(9))  # past the driver's own check: the reader has 8
    with pytest.raises(ValueError):
        driver.inventory(0)


def test_a_stack_of_100_chips_comes_in_parts_and_is_one_read(reader: Rig) -> None:
    sim, driver = reader
    stack = sim.stack(2, 100)
    sim.report_in_parts(16)
    sim.drop_replies(2)  # lost answers on the way: resent from the reader's cache, never a chip twice
    read = driver.inventory(2)
    assert read.uids == tuple(sorted(stack)) and read.parts == 7 and len(set(read.uids)) == 100
    assert asked(sim) == [wire.Inventory(2), *(wire.InventoryPart(2, read.round_no, n) for n in range(2, 8))]
    assert sim.stats.duplicate_commands >= 2


def test_a_requested_round_whose_parts_stop_is_no_read(reader: Rig) -> None:
    sim, driver = reader
    stack = sim.stack(4, 40)
    sim.report_in_parts(16)
    sim.abandon_next_report()
    with pytest.raises(IncompleteRead, match="stopped after 2 part"):
        driver.inventory(4)
    assert driver.parts.discarded == 1 and sim.stats.naks == {"not_allowed_now": 1}
    assert driver.inventory(4).uids == tuple(sorted(stack))  # a new round reads it whole


def test_collisions_and_misses_are_reported_as_the_round_saw_them(reader: Rig) -> None:
    sim, driver = reader
    sim.place(1, [A, B, C, "E00401501234567B", "E00401501234567C"])
    sim.collide(1, rounds=1, chips=2)
    collided = driver.inventory(1)
    assert len(collided.uids) == 3 and collided.collisions == 1
    sim.miss(1, rounds=1, chips=1)
    missed = driver.inventory(1)
    assert len(missed.uids) == 4 and missed.collisions == 0  # a miss is silent: reads are not the truth
    assert len(driver.inventory(1).uids) == 5


def test_a_faulted_antenna_is_one_fault_refused_and_named(reader: Rig, rec: Recorder) -> None:
    sim, driver = reader
    assert driver.self_test().passed
    sim.lose_antenna(3, wire.AntennaFaultCode.DISCONNECTED, "cable off")
    (fault,) = rec.wait_kind(ev.DeviceFault)
    assert (fault.code, fault.reason) == ("antenna_fault", "antenna 3: disconnected (cable off)")
    with pytest.raises(DeviceRefused, match="hardware_fault"):
        driver.inventory(3)
    assert [(a.antenna, a.fault) for a in driver.antennas() if not a.ok] == [(3, "disconnected")]
    report = driver.self_test()
    assert not report.passed and report.code == 1 and report.detail == "antenna 3 disconnected"
    assert driver.status().faulted == (3,)
    sim.lose_antenna(5, wire.AntennaFaultCode.DETUNED)
    sim.restore_antenna(3)
    assert sim.wait_idle(WAIT)
    assert [type(e).__name__ for e in rec.events] == ["DeviceFault", "DeviceFault"]  # 5 is still faulted
    sim.restore_antenna(5)
    rec.wait_kind(ev.DeviceRecovered)
    assert driver.self_test().passed and driver.status().faulted == ()


def test_an_antenna_still_faulted_when_the_link_comes_back_is_reported_again(reader: Rig, rec: Recorder) -> None:
    """The station clears a device's faults on DeviceRecovered: an antenna that is still dead is
    said again, from the antenna list read after the reconnection."""
    sim, driver = reader
    sim.lose_antenna(7, wire.AntennaFaultCode.DETUNED)
    rec.wait_kind(ev.DeviceFault)
    sim.unplug()
    rec.wait_kind(ev.DeviceFault, 2)
    sim.replug()
    rec.wait_kind(ev.DeviceRecovered)
    assert driver.wait_synced(WAIT)
    faults = rec.wait_kind(ev.DeviceFault, 3)
    assert [type(e).__name__ for e in rec.events] == ["DeviceFault", "DeviceFault", "DeviceRecovered", "DeviceFault"]
    assert [(f.code, f.reason) for f in faults[1:]] == [("link_lost", faults[1].reason),
                                                         ("antenna_fault", "antenna 7: detuned")]
    sim.restore_antenna(7)
    assert rec.wait_kind(ev.DeviceRecovered, 2)[-1].device == "chipreader"


def test_modes_and_powers_are_checked_before_sending_and_a_refused_one_is_not_kept(reader: Rig) -> None:
    sim, driver = reader
    for bad in ((True, 10), (True, 60_001), ("yes", 100), (True, 100.0)):
        with pytest.raises((TypeError, ValueError)):
            driver.set_mode(*bad)
    for level in (0, 101, True):
        with pytest.raises(ValueError):
            driver.set_rf_power(level)
    assert asked(sim) == []
    assert driver.set_mode(True, 200) and driver.set_rf_power(80)
    sim.answer_wrongly(wire.SetMode, Nak(NakCode.BUSY, "tuning"))
    with pytest.raises(DeviceRefused, match="busy"):
        driver.set_mode(True, 500)
    assert driver.wanted_mode == (True, 200)  # what a Boot would send again is what the reader took
    sim.answer_wrongly(wire.ReaderGetStatus, Ack())
    with pytest.raises(DeviceProtocolError, match="expected ReaderStatus, device answered Ack"):
        driver.status()
    info = driver.status()
    assert (info.continuous, info.period_ms, info.rf_power) == (True, 200, 80)
    assert driver.set_mode(False) and driver.status().period_ms == 0


# -- continuous mode ----------------------------------------------------------------------------


def test_continuous_mode_reports_every_antenna_whole_then_only_changes(reader: Rig, rec: Recorder) -> None:
    sim, driver = reader
    sim.place(1, [A, B])
    stack = sim.stack(2, 3)
    assert driver.set_mode(True, PERIOD_MS)
    rec.wait_for(lambda _: {e.antenna for e in reads(rec)} == set(range(1, 9)), what="every antenna's first read")
    assert reads(rec, 1)[0].uids == (A, B) and reads(rec, 2)[0].uids == tuple(sorted(stack))
    assert all(e.uids == () for e in reads(rec) if e.antenna > 2)  # an empty antenna is reported, empty
    sim.place(1, C)
    assert wait_read(rec, 1, [A, B, C]).uids == (A, B, C)  # the whole set, not the one chip put down
    rounds = sim.rounds
    wait_until(lambda: sim.rounds >= rounds + 16, WAIT, "two more passes")
    assert len(reads(rec, 2)) == 1  # unchanged: not reported again
    sim.remove(1)
    wait_read(rec, 1, [])
    assert driver.set_mode(False)
    assert sim.wait_idle(WAIT)
    count = len(reads(rec))
    sim.place(1, A)
    stays_false(lambda: len(reads(rec)) > count, 0.3, "a read after continuous mode stopped")
    assert not driver.status().continuous


def test_a_stack_in_continuous_mode_is_one_read_and_an_abandoned_report_none(reader: Rig, rec: Recorder) -> None:
    sim, driver = reader
    sim.report_in_parts(16)
    stack = sim.stack(4, 100)
    # A period long enough for the abandoned parts to go out before the next pass (its newer set
    # would take back the parts not yet sent, and leave the driver nothing to discard).
    assert driver.set_mode(True, 400)
    wait_read(rec, 4, stack)
    parts = [m for m in sim.reported if isinstance(m, wire.AntennaChanged) and m.antenna == 4]
    assert [p.part for p in parts] == list(range(1, 8)) and len({p.round_no for p in parts}) == 1
    sim.abandon_next_report()
    more = [*stack, *sim.stack(4, 1)]  # the set changes: its report is abandoned, the next whole
    wait_read(rec, 4, more)
    assert driver.parts.discarded == 1
    assert [len(e.uids) for e in reads(rec, 4)] == [100, 101]  # never a part of a stack as a read


def test_collisions_in_continuous_mode_are_a_read_of_their_own(reader: Rig, rec: Recorder) -> None:
    sim, driver = reader
    four = [A, B, C, "E00401501234567B"]
    sim.place(6, four)
    sim.collide(6, rounds=1, chips=2)
    assert driver.set_mode(True, PERIOD_MS)
    rec.wait_matching(lambda e: isinstance(e, ChipsRead) and e.antenna == 6)
    first = reads(rec, 6)[0]
    assert first.collisions == 1 and len(first.uids) == 2
    wait_read(rec, 6, four)  # the next round read them apart


def test_an_antenna_lost_and_restored_in_continuous_mode(reader: Rig, rec: Recorder) -> None:
    sim, driver = reader
    sim.place(6, [A, B])
    assert driver.set_mode(True, PERIOD_MS)
    wait_read(rec, 6, [A, B])
    sim.lose_antenna(6, wire.AntennaFaultCode.SHORT_CIRCUIT)
    assert rec.wait_kind(ev.DeviceFault)[0].reason == "antenna 6: short_circuit"
    sim.place(6, C)
    rounds = sim.rounds
    wait_until(lambda: sim.rounds >= rounds + 14, WAIT, "two passes without antenna 6")
    assert len(reads(rec, 6)) == 1  # a faulted antenna is not read
    sim.restore_antenna(6)
    rec.wait_kind(ev.DeviceRecovered)
    wait_read(rec, 6, [A, B, C])
    assert [type(e).__name__ for e in rec.events if not isinstance(e, ChipsRead)] == ["DeviceFault",
                                                                                       "DeviceRecovered"]


def test_garbled_frames_are_counted_and_never_a_chip(reader: Rig, rec: Recorder) -> None:
    sim, driver = reader
    assert driver.set_mode(True, PERIOD_MS)
    rec.wait_for(lambda _: len(reads(rec)) >= 8, what="the first pass")
    fake = wire.parse_uid("E0040150DEADBEEF")
    forged = wire.AntennaChanged(1, 999, 1, True, 0, (fake,))
    frame = bytearray(sim.protocol.encode(forged, 240))
    frame[-2] ^= 0x55  # its CRC broken
    sim.inject_garbage(bytes(frame) + b"\x00\xffnoise" + bytes(frame[:12]))  # and a truncated copy
    sim.inject_garbage(encode_frame(241, 0x40, bytes((1, 0, 0, 3, 231, 1, 2, 0, 0))))  # intact, complete=2
    rec.wait_matching(lambda e: isinstance(e, ev.DeviceFault) and e.code == "protocol_error")
    sim.corrupt_next_frames(2)  # the next report: dropped, then resent intact
    sim.place(1, [A, B])
    wait_read(rec, 1, [A, B])
    assert driver.stats.errors_by_kind["bad_crc"] >= 2 and driver.stats.errors_by_kind["truncated"] >= 1
    assert driver.stats.errors_by_kind["bad_payload"] == 1
    assert all(wire.uid_text(fake) not in e.uids for e in reads(rec))


def test_a_restart_in_the_middle_of_a_report_leaves_no_half_stack(reader: Rig, rec: Recorder,
                                                                   clock: SteppedClock) -> None:
    sim, driver = reader
    sim.report_in_parts(10)
    assert driver.set_mode(True, PERIOD_MS)
    rec.wait_for(lambda _: len(reads(rec)) >= 8, what="the first pass")
    assert sim.wait_idle(WAIT)
    delivered = driver.stats.events_delivered
    sim.hold_after(sim.events_queued + 2)  # two parts of the next report go out, the rest waits
    stack = sim.stack(5, 30)
    wait_until(lambda: driver.stats.events_delivered >= delivered + 2, WAIT, "two parts of the stack")
    clock.past_the_boot_window()
    sim.reboot("watchdog reset")  # the held part is lost with the reader's memory
    sim.hold_after(None)
    wait_read(rec, 5, stack)  # the mode sent again: the first pass reports the stack whole
    assert driver.parts.discarded == 1 and [len(e.uids) for e in reads(rec, 5)] == [0, 30]


def test_a_whole_session_from_the_readers_side(reader: Rig, rec: Recorder, clock: SteppedClock) -> None:
    """Power and mode set, chips moved, the cable pulled and a restart, all in continuous mode:
    the reader is sent its power and mode again each time it comes back and after it restarts,
    its antenna list read again, and the station's reads end as the layout is."""
    sim, driver = reader
    assert driver.set_rf_power(70) and driver.set_mode(True, PERIOD_MS)
    sim.place(1, A)
    stack = sim.stack(2, 20)
    wait_read(rec, 1, [A])
    wait_read(rec, 2, stack)

    sim.unplug()
    rec.wait_kind(ev.DeviceFault)
    sim.place(3, [B, C])  # read while the cable is out, and told when it is back
    sim.remove(1)
    sim.replug()
    rec.wait_kind(ev.DeviceRecovered)
    wait_read(rec, 3, [B, C])
    wait_read(rec, 1, [])
    assert driver.wait_synced(WAIT)

    def stack_reads() -> int:
        return len([e for e in reads(rec, 2) if e.uids == tuple(sorted(stack))])

    # The mode sent again starts the reader over: the unchanged stack is reported whole once more
    # (and in full before the restart below, which would lose what the reader had not sent yet).
    rec.wait_for(lambda _: stack_reads() == 2, what="the stack reported again after the outage")
    after_outage = len(sim.commands())

    clock.past_the_boot_window()
    sim.reboot("watchdog reset")
    wait_until(lambda: sim.continuous and sim.rf_power == 70, WAIT, "the mode and power sent again")
    assert driver.wait_synced(WAIT)
    assert sim.commands()[after_outage:] == [wire.SetRfPower(70), wire.SetMode(True, PERIOD_MS), wire.GetAntennas()]
    # Each SetMode (the first, after the outage, after the restart) made the reader report the
    # unchanged stack whole once more.
    rec.wait_for(lambda _: stack_reads() == len(sim.commands(wire.SetMode)) == 3,
                 what="the stack reported again after the restart")

    # What the reader was sent over the whole session, and what the station ends up with.
    assert sim.boots == 1
    assert set(sim.commands(wire.SetMode)) == {wire.SetMode(True, PERIOD_MS)}
    assert set(sim.commands(wire.SetRfPower)) == {wire.SetRfPower(70)}
    assert sim.commands(wire.Inventory) == [] and sim.commands(wire.InventoryPart) == []
    latest = {e.antenna: e.uids for e in reads(rec)}
    assert {n: list(uids) for n, uids in latest.items() if uids} == sim.layout()
    placed = {A, B, C, *stack}
    assert all(set(e.uids) <= placed for e in reads(rec)) and driver.parts.discarded == 0
    assert link_events(rec) == ["DeviceFault", "DeviceRecovered"]


def test_a_mode_set_while_the_reader_is_away_is_sent_when_it_answers(reader: Rig, rec: Recorder) -> None:
    sim, driver = reader
    sim.unplug()
    rec.wait_kind(ev.DeviceFault)
    assert driver.set_mode(True, 100) is False  # kept, not refused
    assert not driver.wait_synced(0.1)
    sim.replug()
    assert driver.wait_synced(WAIT)
    assert (sim.continuous, sim.period_ms) == (True, 100)


# -- putting parts together, on its own ---------------------------------------------------------


def _part(part: int, complete: bool, *uids: int, round_no: int = 5, antenna: int = 1) -> wire.AntennaChanged:
    return wire.AntennaChanged(antenna, round_no, part, complete, 0, uids)


def test_parts_in_order_make_one_read_and_anything_else_none() -> None:
    parts = PartAssembler()
    assert parts.add(_part(1, False, 3, 1)) is None
    read = parts.add(_part(2, True, 2))
    assert read is not None and read.uids == ("0000000000000001", "0000000000000002", "0000000000000003")
    assert read.parts == 2 and parts.discarded == 0
    for broken in ([_part(1, False, 1), _part(3, True, 2)],  # a part missing
                   [_part(1, False, 1), _part(2, True, 2, round_no=6)],  # another round's part
                   [_part(2, True, 2)],  # no beginning
                   [_part(1, False, 1), _part(1, True, 9)]):  # a new round before the last part
        before = parts.discarded
        results = [parts.add(p) for p in broken]
        assert parts.discarded == before + 1
        assert results[-1] is None or results[-1].uids == ("0000000000000009",)  # only a whole new round
    assert parts.add(_part(1, False, 1, antenna=2)) is None and parts.add(_part(1, False, 1, antenna=3)) is None
    parts.drop(None, "the reader restarted")
    assert parts.discarded == 6 and parts.add(_part(2, True, 2, antenna=2)) is None
