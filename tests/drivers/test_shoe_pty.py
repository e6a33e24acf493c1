"""The card shoe over a real pseudo-terminal: transport, codec, link and driver, with faults."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from drivers.codec import shoe as wire
from drivers.codec.protocol import Boot, Kind, Message
from drivers.devices import DeviceTimeout, ShoeDriver
from drivers.simulators import CUT_CARD, CardPool, EmptyShoeError, ShoeSimulator, start_simulator
from drivers.simulators.pool import ShoeItem
from drivers.transport import SerialTransport, TransportError
from station import events as ev
from station.cards import parse_card, parse_cards

from ..waiting import wait_until
from .helpers import FAST, WAIT, Recorder


@pytest.fixture
def sim() -> Iterator[ShoeSimulator]:
    running = start_simulator("shoe", ack_timeout=0.05)
    yield running.simulator
    running.stop()


@pytest.fixture
def shoe(sim: ShoeSimulator, rec: Recorder) -> Iterator[ShoeDriver]:
    driver = ShoeDriver("shoe", sim.url, rec, settings=FAST)
    assert driver.start(WAIT)
    assert sim.wait_idle(WAIT)  # the power-on notice has been delivered
    yield driver
    driver.stop()


def cards_of(rec: Recorder) -> list[str]:
    return [e.card.code for e in rec.of(ev.CardDrawn)]


def test_identify_status_and_self_test(sim: ShoeSimulator, shoe: ShoeDriver) -> None:
    identity = shoe.identify()
    assert (identity.model, identity.serial, identity.firmware) == ("SIM-SHOE-1", "SIM-0001", "1.0.0")
    state = shoe.status()
    assert not state.lid_open and not state.cards_present and state.cards_read == 0 and state.error == ""
    assert shoe.self_test().passed
    sim.sensor_fault = True
    report = shoe.self_test()
    assert not report.passed and report.code == wire.ReaderErrorCode.SENSOR_FAULT


def test_stacked_shoe_is_reported_card_by_card_with_the_cut_card(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    order: list[ShoeItem] = [*parse_cards("AS 9H TD"), CUT_CARD, *parse_cards("KC 5D")]
    sim.load(order)
    drawn = [sim.draw() for _ in range(len(order))]
    assert drawn == order
    rec.wait_kind(ev.ShoeEmpty)
    kinds = [type(e).__name__ if not isinstance(e, ev.CardDrawn) else e.card.code for e in rec.events]
    assert kinds == ["CardsPresent", "AS", "9H", "TD", "CutCardSeen", "KC", "5D", "ShoeEmpty"]
    assert all(isinstance(e, ev.DeviceEvent) and e.device == "shoe" for e in rec.events)
    assert shoe.status().cards_read == 5
    with pytest.raises(EmptyShoeError):
        sim.draw()


def test_seeded_shuffle_is_reproducible_and_remaining_counts_down(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    order = sim.load_shuffled(decks=4, seed=42, cut_position=190)
    assert sim.remaining() == 208
    for _ in range(20):
        sim.draw()
    rec.wait_kind(ev.CardDrawn, 20)
    assert sim.remaining() == 188
    assert cards_of(rec) == [c.code for c in order[:20]]  # type: ignore[union-attr]  # cut card at 190: all cards
    from drivers.simulators import shuffled_shoe

    assert shuffled_shoe(4, 42, 190) == order


def test_lid_sensor_events_and_status(sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder) -> None:
    sim.open_lid()
    rec.wait_kind(ev.LidOpened)
    assert shoe.status().lid_open
    sim.close_lid()
    rec.wait_kind(ev.LidClosed)
    assert not shoe.status().lid_open


def test_garbage_on_the_line_is_counted_and_the_next_card_arrives(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    sim.load(parse_cards("2C 3C"))
    sim.inject_garbage(b"\x00\xffnoise\x02\x40\x91")  # ends inside a half frame
    sim.draw()
    sim.inject_garbage(bytes(range(256)))
    sim.draw()
    rec.wait_kind(ev.CardDrawn, 2)
    assert cards_of(rec) == ["2C", "3C"]
    assert shoe.stats.bad_frames + shoe.stats.noise_bytes > 0


def test_card_frame_with_bad_crc_is_dropped_then_retransmitted_once(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    sim.load(parse_cards("7H 8H"))
    rec.wait_kind(ev.CardsPresent)
    sim.corrupt_next_frames(2)
    sim.draw()
    sim.draw()
    rec.wait_kind(ev.CardDrawn, 2)
    assert sim.wait_idle(WAIT)
    assert cards_of(rec) == ["7H", "8H"]
    assert shoe.stats.errors_by_kind.get("bad_crc", 0) == 2
    assert sim.stats.retransmissions >= 2


def test_lost_acks_make_the_shoe_retransmit_but_each_card_is_delivered_once(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    sim.load(parse_cards("QS JS TS"))
    sim.ignore_acks(3)
    for _ in range(3):
        sim.draw()
    assert sim.wait_idle(WAIT)
    rec.wait_kind(ev.ShoeEmpty)
    assert cards_of(rec) == ["QS", "JS", "TS"]
    assert shoe.stats.duplicates >= 3  # more if the machine is slow enough for extra resends
    assert sim.stats.ignored_acks == 3


def test_lost_reply_is_retransmitted_and_the_command_runs_once(sim: ShoeSimulator, shoe: ShoeDriver) -> None:
    sim.drop_replies(2)
    # A second per attempt rather than the fast 0.2 s: on a loaded machine the third attempt's
    # answer may take longer than that to be read, and the test is of the resend, not the wait.
    answer = shoe.link.request(wire.ShoeGetStatus(), timeout=1.0)
    assert isinstance(answer, wire.ShoeStatus) and answer.cards_read == 0
    assert len([m for m in sim.received if isinstance(m, wire.ShoeGetStatus)]) == 1  # executed once
    assert sim.stats.duplicate_commands >= 2 and shoe.stats.retransmissions >= 2


def test_slow_replies_within_the_timeout_work_and_a_silent_device_times_out(
    sim: ShoeSimulator, shoe: ShoeDriver
) -> None:
    sim.reply_delay = 0.05
    assert shoe.identify().model == "SIM-SHOE-1"
    sim.reply_delay = 0.0
    sim.drop_replies(10)
    with pytest.raises(DeviceTimeout):
        shoe.status()


def test_unplug_mid_stream_reconnects_without_losing_or_duplicating_cards(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    sim.load(parse_cards("AH 2H 3H 4H"))
    sim.draw()
    rec.wait_kind(ev.CardDrawn, 1)
    # The host gets 2H but its ACK is lost; the cable is pulled before the shoe resends.
    sim.ignore_acks(1)
    sim.draw()
    rec.wait_kind(ev.CardDrawn, 2)
    sim.unplug()
    rec.wait_kind(ev.DeviceFault)
    sim.draw()  # 3H is drawn while unplugged: the shoe keeps it until the host is back
    sim.replug()
    rec.wait_kind(ev.DeviceRecovered)
    rec.wait_kind(ev.CardDrawn, 3)
    sim.draw()
    rec.wait_kind(ev.CardDrawn, 4)
    assert sim.wait_idle(WAIT)
    assert cards_of(rec) == ["AH", "2H", "3H", "4H"]
    names = [e.card.code if isinstance(e, ev.CardDrawn) else type(e).__name__ for e in rec.events]
    # 3H was drawn while unplugged: it can only arrive after the recovery
    assert names == ["CardsPresent", "AH", "2H", "DeviceFault", "DeviceRecovered", "3H", "4H", "ShoeEmpty"]
    fault = rec.of(ev.DeviceFault)[0]
    assert fault.code == "link_lost"
    assert shoe.stats.duplicates >= 1 and shoe.stats.reconnections == 1


def test_device_absent_at_start_is_a_fault_until_it_appears(rec: Recorder, tmp_path) -> None:
    sim = ShoeSimulator(directory=str(tmp_path), ack_timeout=0.05)
    driver = ShoeDriver("shoe", sim.url, rec, settings=FAST)
    try:
        assert not driver.start(0.3)
        fault = rec.wait_kind(ev.DeviceFault)[0]
        assert fault.code == "open_failed"
        sim.start()
        rec.wait_kind(ev.DeviceRecovered)
        assert driver.wait_connected(WAIT)
        sim.load(parse_cards("9D"))
        sim.draw()
        rec.wait_kind(ev.CardDrawn)
    finally:
        driver.stop()
        sim.stop()


def test_a_hung_device_is_noticed_by_the_heartbeat_and_recovers(sim: ShoeSimulator, rec: Recorder) -> None:
    shoe = ShoeDriver("shoe", sim.url, rec, settings=dataclasses.replace(FAST, heartbeat=0.5))
    try:
        assert shoe.start(WAIT)
        sim.mute(True)
        fault = rec.wait_kind(ev.DeviceFault)[0]
        assert fault.code == "not_responding"
        sim.mute(False)
        rec.wait_kind(ev.DeviceRecovered)
        assert shoe.status().cards_read == 0
    finally:
        shoe.stop()


def test_duplicate_foreign_and_unreadable_cards_are_reported_not_hidden(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    sim.load(parse_cards("5S 6S"))
    sim.draw()
    sim.repeat_last_card()  # a second, genuine read of 5S: the station must see it and decide
    sim.report_card(parse_card("AD"))  # a card that was never in the shoe
    sim.draw_unreadable()
    rec.wait_kind(ev.DeviceFault)
    assert cards_of(rec) == ["5S", "5S", "AD"]
    fault = rec.of(ev.DeviceFault)[0]
    assert fault.code == "unreadable_card"
    assert sim.remaining() == 0


def test_emptying_the_shoe_by_hand(sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder) -> None:
    sim.load(parse_cards("2D 3D 4D"))
    sim.empty()
    rec.wait_kind(ev.ShoeEmpty)
    assert sim.remaining() == 0 and not shoe.status().cards_present


def test_shoe_fed_by_a_continuous_shuffler_pool(sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder) -> None:
    pool = CardPool(parse_cards("AC 2C"), seed=1)
    sim.attach_pool(pool)
    assert sim.draw() == parse_card("AC")
    pool.put_back([parse_card("AC")])
    assert sim.remaining() == 2
    sim.draw()
    sim.draw()
    rec.wait_kind(ev.ShoeEmpty)
    assert sorted(cards_of(rec)) == ["2C", "AC", "AC"]


def test_frame_tap_sees_raw_and_decoded_frames(sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder) -> None:
    seen: list[tuple[str, bytes, object]] = []
    shoe.add_tap(lambda d, raw, decoded: seen.append((d, raw, decoded)))
    sim.load(parse_cards("8C"))
    sim.draw()
    rec.wait_kind(ev.CardDrawn)
    assert sim.wait_idle(WAIT)
    rx = [decoded for d, _, decoded in seen if d == "rx"]
    assert wire.CardRead(parse_card("8C")) in rx
    assert any(d == "tx" and raw[0] == 0x02 for d, raw, _ in seen)
    assert shoe.recent_frames()


def test_port_is_opened_exclusively(sim: ShoeSimulator, shoe: ShoeDriver) -> None:
    second = SerialTransport(sim.url)
    with pytest.raises(TransportError):
        second.open()


def test_shoe_over_a_tcp_socket() -> None:
    rec = Recorder()
    with start_simulator("shoe", transport="socket", ack_timeout=0.05) as running:
        assert running.url.startswith("socket://")
        driver = ShoeDriver("shoe", running.url, rec, settings=FAST)
        try:
            assert driver.start(WAIT)
            running.simulator.load(parse_cards("TH"))
            running.simulator.draw()
            rec.wait_kind(ev.CardDrawn)
            running.simulator.unplug()
            rec.wait_kind(ev.DeviceFault)
            running.simulator.replug()
            rec.wait_kind(ev.DeviceRecovered)
        finally:
            driver.stop()


def test_a_restarted_shoe_reusing_sequence_numbers_is_not_mistaken_for_duplicates(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    sim.load(parse_cards("AS"))
    sim.draw()  # events so far: Boot, CardsPresent, CardRead, ShoeEmpty
    assert sim.wait_idle(WAIT)
    sim.power_cycle()
    rec.wait_kind(ev.DeviceRecovered)
    sim.load(parse_cards("KD"))
    sim.draw()  # after the restart these reuse the very same sequence numbers
    assert sim.wait_idle(WAIT)
    rec.wait_kind(ev.ShoeEmpty, 2)
    assert cards_of(rec) == ["AS", "KD"]
    assert shoe.status().cards_read == 1


def test_boot_is_the_first_event_even_when_cards_were_loaded_before_power_on(rec: Recorder) -> None:
    sim = ShoeSimulator(ack_timeout=0.05)
    sim.load(parse_cards("3S"))
    sim.start()
    seen: list[object] = []
    driver = ShoeDriver("shoe", sim.url, rec, settings=FAST)
    driver.add_tap(lambda d, raw, decoded: seen.append(decoded) if d == "rx" else None)
    try:
        assert driver.start(WAIT)
        assert sim.wait_idle(WAIT)
        events = [m for m in seen if isinstance(m, Message) and m.kind() is Kind.EVENT]
        assert isinstance(events[0], Boot) and isinstance(events[-1], wire.CardsPresentNotice)
        assert [type(e).__name__ for e in rec.events] == ["CardsPresent"]
    finally:
        driver.stop()
        sim.stop()


def test_an_event_the_station_could_not_take_is_not_acknowledged_and_comes_again(sim: ShoeSimulator) -> None:
    accepted: list[ev.Event] = []
    refusals = [1]

    def flaky_sink(event: ev.Event) -> None:
        if isinstance(event, ev.CardDrawn) and refusals:
            refusals.pop()
            raise RuntimeError("core queue full")
        accepted.append(event)

    driver = ShoeDriver("shoe", sim.url, flaky_sink, settings=FAST)
    try:
        assert driver.start(WAIT)
        sim.load(parse_cards("6C"))
        sim.draw()
        assert sim.wait_idle(WAIT)
        assert [e.card.code for e in accepted if isinstance(e, ev.CardDrawn)] == ["6C"]
        assert driver.stats.errors_by_kind["handler_failed"] == 1 and sim.stats.retransmissions >= 1
    finally:
        driver.stop()


def test_an_intact_event_that_cannot_be_decoded_is_a_fault_never_a_card(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    from drivers.codec.framing import encode_frame

    sim.inject_garbage(encode_frame(200, wire.CardRead.TYPE, b"\xe0"))  # 0xE0 is no card
    fault = rec.wait_kind(ev.DeviceFault)[0]
    assert fault.code == "protocol_error" and "not a card" in fault.reason
    sim.inject_garbage(encode_frame(200, wire.CardRead.TYPE, b"\xe0"))  # resent: same seq, one fault
    sim.inject_garbage(encode_frame(201, 0x7E, b""))  # an event type the shoe does not have
    rec.wait_kind(ev.DeviceFault, 2)
    assert rec.of(ev.CardDrawn) == []
    assert len(rec.of(ev.DeviceFault)) == 2


def test_reconnection_backs_off_exponentially_up_to_the_cap_and_logs_each_attempt(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    from structlog.testing import capture_logs

    with capture_logs() as logs:
        sim.unplug()
        wait_until(lambda: len([e for e in logs if e["event"] == "reconnect_attempt"]) >= 6, WAIT,
                   "six reconnection attempts logged", detail=lambda: [e["event"] for e in logs])
        sim.replug()
        rec.wait_kind(ev.DeviceRecovered)
    attempts = [e for e in logs if e["event"] == "reconnect_attempt"]
    delays = [e["retry_in"] for e in attempts[:6]]
    assert delays == [0.02, 0.04, 0.08, 0.16, 0.2, 0.2]  # FAST: from 0.02 s doubling, capped at 0.2 s
    assert [e["attempt"] for e in attempts[:6]] == [1, 2, 3, 4, 5, 6]
    faults = [e for e in logs if e["event"] == "device_link_fault"]
    assert len(faults) == 1 and faults[0]["recent_frames"]  # the fault log carries the last frames
    assert len(rec.of(ev.DeviceFault)) == 1


def test_the_link_counts_each_device_event_handed_over_once(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    """What the simulated table orders the dealer's screen by: after the host has handed over
    every event the device queued, the two counts agree, resends not counted twice."""
    counts: list[int] = []
    shoe.observe_deliveries(counts.append)
    sim.load(parse_cards("AS 9H TD KC"))
    sim.ignore_acks(1)  # the first card is resent: handed over once all the same
    for _ in range(4):
        sim.draw()
    assert sim.wait_idle(WAIT)
    assert shoe.stats.events_delivered == sim.events_queued  # Boot, CardsPresent, 4 cards, ShoeEmpty
    assert counts == list(range(counts[0], sim.events_queued + 1))
    assert cards_of(rec) == ["AS", "9H", "TD", "KC"]


def test_held_events_wait_in_order_and_the_ones_before_the_mark_still_go(
    sim: ShoeSimulator, shoe: ShoeDriver, rec: Recorder
) -> None:
    """What keeps a card behind the dealer's screen actions in the simulated table: events
    queued after the mark stay in the outbox until released, then go out in order."""
    sim.load(parse_cards("AS 9H TD KC"))
    sim.draw()
    sim.hold_after(sim.events_queued)  # AS is before the mark
    sim.draw()
    sim.draw()
    rec.wait_kind(ev.CardDrawn, 1)
    assert not sim.wait_idle(0.3)  # 9H and TD are held, however long
    assert cards_of(rec) == ["AS"]
    sim.hold_after(sim.events_queued - 1)  # a later mark frees 9H only
    rec.wait_kind(ev.CardDrawn, 2)
    assert not sim.wait_idle(0.3)
    assert cards_of(rec) == ["AS", "9H"]
    sim.hold_after(None)
    sim.draw()
    assert sim.wait_idle(WAIT)
    assert cards_of(rec) == ["AS", "9H", "TD", "KC"]
