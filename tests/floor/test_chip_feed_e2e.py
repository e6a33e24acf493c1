"""The floor feed of a table that knows its chips, end to end: a real ``station run`` whose chip
reader is a simulator in this process (as tests/service/test_chips_e2e.py has it), publishing
through a real mosquitto. The test puts and takes chips as a dealer and players would: a chip
past-posted, a wrong payment held, a chip in the payout zone flagged by a supervisor, the
payment accepted, a chip pinched. The subscriber receives the ``chips_moved``,
``wrong_payment``, ``chip_status`` and ``payment_accepted`` events, exactly what the journal
gives offline, every message valid against the schemas. And the shipped chip table's demo
publishes a feed that validates, its dealer paying every box right: no chip event."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from drivers.simulators import start_simulator
from station.service.control import ControlError

from ..chip_rig import CHIP_TABLE, chip_reader_sections, write_registry
from ..service.conftest import SUPERVISOR_TOKEN, ExternalTable
from ..service.test_chips_e2e import ANTENNAS, BANKER, FIVES, ONES, PAYOUT, PLAYER, TENS, believed
from ..service.test_rule_corners_e2e import action, draw, open_stacked_shoe
from .helpers import (
    ROOT,
    Broker,
    Subscriber,
    check_schemas,
    expected_feed,
    floor_config,
    sequenced,
    station,
    station_env,
)

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

BANKER_WINS = "KH 2D 6S 2C 3H"  # player 6, banker 4 draws a 3: banker 7 wins


def supervisor(table: ExternalTable, command: str, args: dict[str, Any]) -> Any:
    return table.ctl(command, args, token=SUPERVISOR_TOKEN)


def play(table: ExternalTable, layout: Any) -> str:
    """A past-post, a wrong payment held, a chip of it flagged, the payment accepted, a pinch;
    the round whose payment was wrong."""
    table.ctl("dealer", {"name": "dana"})
    open_stacked_shoe(table, "  ".join([BANKER_WINS] * 2))
    layout.place(BANKER, TENS[0:2])
    believed(table, "spot:1:banker", 2000)
    table.ctl("chip-bets")
    action(table, "no_more_bets")
    draw(table, 2)
    layout.place(BANKER, FIVES[0:1])  # after no more bets: past-posting
    table.wait_for(lambda s: s["state"] == "irregularity")
    layout.remove(BANKER, FIVES[0:1])
    supervisor(table, "decide", {"decision": "resume", "detail": "the late chip given back"})
    draw(table, 3)
    table.wait_for(lambda s: s["state"] == "paying")
    layout.place(PAYOUT, TENS[2:3])  # 10.00 of the 19.00 owed
    table.wait_for(lambda s: [(p["paid"], p["verdict"]) for p in s["chips"]["payment"]] == [(1000, "under")])
    with pytest.raises(ControlError, match="a wrong payment of round"):
        action(table, "next_round")
    round_id = str(table.status()["round"])
    supervisor(table, "chip-status", {"uid": TENS[2], "status": "flagged", "reason": "reported stolen"})
    table.wait_for(lambda s: [p["paid"] for p in s["chips"]["payment"]] == [0])  # a flagged chip counts for nothing
    supervisor(table, "accept-payment", {"round_id": round_id, "note": "paid 19.00 in cash"})
    layout.remove(PAYOUT)
    layout.remove(BANKER)
    believed(table, "spot:1:banker", 0)
    action(table, "next_round")
    table.wait_for(lambda s: s["state"] == "betting")
    layout.place(PLAYER, TENS[4:6])
    believed(table, "spot:1:player", 2000)
    table.ctl("chip-bets")
    action(table, "no_more_bets")
    layout.remove(PLAYER, TENS[5:6])  # after no more bets: pinching
    table.wait_for(lambda s: s["state"] == "irregularity")
    supervisor(table, "decide", {"decision": "void", "detail": "a pinch"})
    table.wait_for(lambda s: s["state"] == "paying")
    return round_id


def test_chips_moved_and_wrong_payments_reach_the_floor_as_the_journal_says(tmp_path: Path, broker: Broker) -> None:
    subscriber = Subscriber(broker.port, "dealing-station/#")
    reader = start_simulator("chipreader", {"directory": str(tmp_path)}, antennas=len(ANTENNAS))
    registry = write_registry(tmp_path / "chips.csv", {"10.00": TENS, "5.00": FIVES, "1.00": ONES})
    folder = tmp_path / "table"
    folder.mkdir()
    table = ExternalTable(folder, table_extra=CHIP_TABLE,
                          config_extra=chip_reader_sections(reader.url, registry, ANTENNAS)
                          + f'\n[floor]\nenabled = true\nbroker = "{broker.url}"\ntable = "BAC-01"\n')
    try:
        table.start_station()
        paid_round = play(table, reader.simulator)
        assert table.stop_station() == 0  # an orderly stop drains the feed
    finally:
        table.close()
        reader.stop()
    expected = expected_feed(table.journal, "BAC-01")
    subscriber.wait_for(lambda s: len(sequenced(s)) >= len(expected), 30, "every round and event")
    subscriber.close()
    assert sequenced(subscriber) == expected  # exactly once each, in journal order
    check_schemas(subscriber.messages)

    events: dict[str, list[dict[str, Any]]] = {}
    for message in expected:
        if message["kind"] == "event":
            events.setdefault(message["type"], []).append(message)
    past, pinch = events["chips_moved"]
    assert (past["found"], past["moved_round"], past["place"], past["place_words"], past["chips"], past["amount"],
            past["currency"], past["dealer"]) == ("past_posting", paid_round, "spot:1:banker", "Box 1 · Banker",
                                                  [FIVES[0]], 500, "EUR", "dana")
    assert (pinch["found"], pinch["place_words"], pinch["chips"], pinch["amount"]) == (
        "pinching", "Box 1 · Player", [TENS[5]], 1000)
    [wrong] = events["wrong_payment"]
    assert (wrong["paid_round"], wrong["over"], wrong["under"], wrong["difference"], wrong["currency"]) == (
        paid_round, 0, 900, -900, "EUR")
    assert [(b["place_words"], b["owed"], b["paid"], b["verdict"]) for b in wrong["boxes"]] == [
        ("Box 1 payout zone", 1900, 1000, "under")]
    [flagged] = events["chip_status"]
    assert (flagged["uid"], flagged["status"], flagged["reason"], flagged["who"], flagged["value"],
            flagged["places"]) == (TENS[2], "flagged", "reported stolen", "sam", 1000,
                                   [{"place": "payout:1", "place_words": "Box 1 payout zone"}])
    [accepted] = events["payment_accepted"]
    assert (accepted["paid_round"], accepted["under"], accepted["note"], accepted["role"], accepted["who"]) == (
        paid_round, 1900, "paid 19.00 in cash", "supervisor", "sam")  # as the zone lay: the flagged chip not counted
    assert {a["code"] for a in events["integrity_alert"]} >= {"chip_flagged"}


def test_the_shipped_chip_table_s_demo_publishes_a_valid_feed_without_a_chip_event(tmp_path: Path,
                                                                                   broker: Broker) -> None:
    subscriber = Subscriber(broker.port, "dealing-station/#")
    config = floor_config(tmp_path / "station.toml", broker.url, base="examples/baccarat-chips.toml")
    registry = ROOT / "config" / "examples" / "baccarat-chips.csv"
    config.with_name(registry.name).write_bytes(registry.read_bytes())  # the chip maker's file, beside it
    journal = tmp_path / "journal.sqlite3"
    demo = station("demo", "--rounds", "3", "--fast", "--floor", "-c", str(config), "--journal", str(journal),
                   env=station_env(tmp_path))
    assert demo.returncode == 0, demo.stderr[-3000:]
    expected = expected_feed(journal, "BAC-01-demo")
    subscriber.wait_for(lambda s: len(sequenced(s)) >= len(expected), 30, "every round and event")
    subscriber.close()
    assert sequenced(subscriber) == expected
    check_schemas(subscriber.messages)
    assert len([m for m in expected if m["kind"] == "round"]) == 3
    assert not [m for m in expected if m["kind"] == "event" and m["type"] in (
        "chips_moved", "wrong_payment", "payment_accepted", "chip_status")]
