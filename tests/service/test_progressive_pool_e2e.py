"""Two tables sharing one progressive meter through a real mosquitto (docs/progressive.md,
"Tables sharing a meter"): two ``station run`` processes against their own simulators, each
with its floor feed on; the broker stopped while both take wagers and one pays the jackpot;
then both show the same meter, the wagers the jackpot did not know of carried into it; the
progressive sign over the first table followed from the other side of its wire; a SIGKILL
that changes nothing; both journals verified by a deep replay."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.simulators import RunningSimulator, start_simulator

from ..floor.helpers import Broker, Subscriber, check_schemas
from .conftest import SUPERVISOR_TOKEN
from .test_progressive_e2e import JACKPOT, NOTHING
from .test_rule_corners_e2e import action, bet, draw, open_stacked_shoe
from .test_side_bets_e2e import verified_deep

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

SEED = 2_000_000
PROGRESSIVE = f"""
[table.side_bets.progressive]
min = 100
max = 1000
[table.progressive]
pool = "natural-pairs-east"
seed = {SEED}
share_bp = 1500
"""


def floor_section(broker: Broker, table: str) -> str:
    return f"""
[floor]
enabled = true
broker = "{broker.url}"
table = "{table}"
topic_prefix = "casino-test"
"""


@pytest.fixture
def sign(tmp_path: Path) -> Iterator[RunningSimulator]:
    running = start_simulator("sign", {"directory": str(tmp_path)})
    try:
        yield running
    finally:
        running.stop()


def meter(table: Any) -> int:
    return int(table.status()["progressive"]["meter"])


def play(table: Any, amount: int, cards: str) -> None:
    bet(table, "progressive", amount, box="1", player="ann")
    action(table, "no_more_bets")
    draw(table, len(cards.split()))
    table.wait_for(lambda s: s["state"] == "paying")


def next_round(table: Any) -> None:
    action(table, "next_round")
    table.wait_for(lambda s: s["state"] == "betting")


def test_two_tables_share_one_meter_through_the_broker_and_an_outage(
        external_table: Any, broker: Broker, sign: RunningSimulator, tmp_path: Path) -> None:
    east = external_table(table_extra=PROGRESSIVE, config_extra=floor_section(broker, "BAC-01")
                          + f'[devices.sign]\nurl = "{sign.url}"\n')
    west = external_table(table_extra=PROGRESSIVE, config_extra=floor_section(broker, "BAC-02"))
    floor = Subscriber(broker.port, "casino-test/#", client_id="pool-test-subscriber")
    east.start_station()
    west.start_station()
    for table in (east, west):
        open_stacked_shoe(table, "  ".join((NOTHING, NOTHING, JACKPOT)))
    shown = sign.simulator

    play(east, 500, NOTHING)   # 75 to the meter
    play(west, 1000, NOTHING)  # 150
    for table in (east, west):
        table.wait_for(lambda s: s["progressive"]["meter"] == SEED + 225, timeout=30)
    for table in (east, west):
        next_round(table)

    broker.stop()  # neither hears the other now
    play(east, 500, NOTHING)   # east: 150 of its own, 150 heard of west
    play(west, 1000, NOTHING)  # west: 300 of its own, 75 heard of east
    assert (meter(east), meter(west)) == (SEED + 300, SEED + 375)
    next_round(east)
    play(east, 500, JACKPOT)   # 75 more: east's sign shows 2,000,375 and the jackpot is that
    pending = east.wait_for(lambda s: s["progressive"]["pending"] is not None)["progressive"]["pending"]
    assert [a["amount"] for a in pending["awards"]] == [SEED + 375]
    east.wait_for(lambda s: shown.face.hit is not None and shown.face.hit.amount == SEED + 375, timeout=15)
    east.ctl("progressive-sign-off", {"round_id": pending["round_id"]}, token=SUPERVISOR_TOKEN)
    east.wait_for(lambda s: s["progressive"]["pending"] is None)
    assert meter(east) == SEED

    broker.start()  # each hears the other again: west's 150 the jackpot did not count stays
    for table in (east, west):
        table.wait_for(lambda s: s["progressive"]["meter"] == SEED + 150, timeout=30)
    east.wait_for(lambda s: shown.face.hit is None and shown.face.meter is not None
                  and shown.face.meter.amount == SEED + 150, timeout=15)
    assert west.status()["progressive"]["latest"]["table"] == "BAC-01"

    assert west.stop_station(signal.SIGKILL) == -signal.SIGKILL
    west.start_station()
    assert meter(west) == SEED + 150  # the journal's, what it heard included
    for table in (east, west):
        assert table.stop_station() == 0
        verified_deep(table.journal)
    # The floor heard the jackpot, its sign-off, and each table's share, every message valid.
    floor.wait_for(lambda s: any(e["type"] == "progressive_paid" for e in s.kind("event")), 30, "the sign-off")
    floor.close()
    events = {e["type"]: e for e in floor.kind("event") if e["type"].startswith("progressive")}
    assert events["progressive_jackpot"]["awards"][0]["amount"] == SEED + 375
    assert (events["progressive_paid"]["total"], events["progressive_paid"]["who"]) == (SEED + 375, "sam")
    assert {s["progressive"]["member"] for s in floor.kind("state")} == {"BAC-01", "BAC-02"}
    check_schemas(floor.messages)
