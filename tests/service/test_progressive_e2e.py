"""The progressive through the real station (docs/progressive.md): ``station run`` in a
subprocess against simulators over ptys, bets and a supervisor's sign-off through the control
socket, the station killed with SIGKILL between the steps; the meter after each restart is
the journal's, to the minor unit, and the journal verifies by a deep replay."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from typing import Any

import pytest

from station.service.control import ControlError

from .conftest import DEALER_TOKEN, SUPERVISOR_TOKEN
from .test_rule_corners_e2e import action, bet, draw, open_stacked_shoe, recalled
from .test_side_bets_e2e import verified_deep

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

SEED = 5_000_000
PROGRESSIVE = f"""
[table.side_bets.progressive]
min = 100
max = 500
[table.progressive]
pool = "natural-pairs-1"
seed = {SEED}
share_bp = 2000
"""
NOTHING = "KH 2D 6S 2C 3H"      # a Dragon 7: nothing of the progressive
JACKPOT = "4S 9H 4S 9H"         # both hands a natural 8 by a suited pair: the whole meter
ONE_PAIR = "4H 9H 4D KC"        # the Player a natural 8 by a pair (20:1), the Banker a natural 9


def token_file(table: Any) -> Any:
    path = table.directory / "dealer.token"
    path.write_text(DEALER_TOKEN)
    return path


def meter(table: Any) -> dict[str, Any]:
    progressive = table.status()["progressive"]
    assert progressive is not None
    return dict(progressive)


def killed_and_back(table: Any) -> None:
    before = meter(table)
    assert table.stop_station(signal.SIGKILL) == -signal.SIGKILL
    table.start_station()
    assert meter(table) == before


def test_the_meter_its_jackpot_and_its_reset_survive_sigkills(external_table: Any) -> None:
    table = external_table(table_extra=PROGRESSIVE)
    table.start_station()
    assert meter(table)["meter"] == SEED
    open_stacked_shoe(table, "  ".join((NOTHING, ONE_PAIR, JACKPOT)))
    bet(table, "progressive", 500, box="1", player="ann")
    bet(table, "progressive", 300, box="2", player="bob")
    action(table, "no_more_bets")
    draw(table, 5)
    table.wait_for(lambda s: s["state"] == "paying")
    assert meter(table)["meter"] == SEED + 160  # 20% of 800
    killed_and_back(table)
    action(table, "next_round")
    table.wait_for(lambda s: s["state"] == "betting")

    bet(table, "progressive", 500, box="1", player="ann")
    action(table, "no_more_bets")
    draw(table, 4)
    table.wait_for(lambda s: s["state"] == "paying")
    assert meter(table)["meter"] == SEED + 260 and meter(table)["pending"] is None
    action(table, "next_round")
    table.wait_for(lambda s: s["state"] == "betting")

    bet(table, "progressive", 500, box="1", player="ann")
    bet(table, "progressive", 100, box="3", player="cat")
    action(table, "no_more_bets")
    draw(table, 4)
    status = table.wait_for(lambda s: s["state"] == "paying" and s["progressive"]["pending"] is not None)
    pending = status["progressive"]["pending"]
    whole = SEED + 380
    assert [(a["box"], a["hand"], a["amount"]) for a in pending["awards"]] == [
        ("1", "both_suited", whole // 2), ("3", "both_suited", whole // 2)]
    assert "signs the progressive jackpot off" in status["expecting"]
    with pytest.raises(ControlError, match="waits for a supervisor's sign-off"):
        action(table, "next_round")
    with pytest.raises(ControlError):  # a dealer's token may not sign a jackpot off
        table.ctl("progressive-sign-off", {"round_id": pending["round_id"]})
    status_text = subprocess.run([sys.executable, "-m", "station", "ctl", "--socket", str(table.socket),
                                  "--token-file", str(token_file(table)), "status"],
                                 capture_output=True, text=True, timeout=60).stdout
    assert f"progressive: natural-pairs-1 meter {whole // 100:,}.{whole % 100:02d}" in status_text, status_text
    assert f"JACKPOT of round {pending['round_id']}: box 1 ann" in status_text
    killed_and_back(table)  # the jackpot still waits, at the same amounts
    table.ctl("progressive-sign-off", {"round_id": pending["round_id"], "note": "cheque 4411"},
              token=SUPERVISOR_TOKEN)
    after = table.wait_for(lambda s: s["progressive"]["pending"] is None)["progressive"]
    assert (after["meter"], after["paid"], after["jackpots"]) == (SEED, whole, 1)
    killed_and_back(table)
    action(table, "next_round")
    table.wait_for(lambda s: s["state"] == "betting")

    with pytest.raises(ControlError):
        table.ctl("progressive-reset", {"reason": "wrong amount"})  # a dealer's token
    table.ctl("progressive-reset", {"amount": SEED + 12_345, "reason": "casino adds to the meter"},
              token=SUPERVISOR_TOKEN)
    table.wait_for(lambda s: s["progressive"]["meter"] == SEED + 12_345)
    killed_and_back(table)
    assert table.stop_station() == 0
    report = verified_deep(table.journal)
    assert "match" in report
    # The meters count the progressive's money from the journal.
    done = subprocess.run([sys.executable, "-m", "station", "meters", "--day", "all", "--json", "--config",
                           str(table.config)], capture_output=True, text=True, timeout=120, check=True)
    totals = json.loads(done.stdout)["days"][0]["totals"]
    assert totals["progressive"] == {"contributed": 380, "jackpots": 1, "paid": whole, "topped": SEED,
                                     "resets": 1, "removed": -12_345}
    assert totals["regions"]["progressive"]["stakes"] == 1900  # 380 is 20% of it
    text = subprocess.run([sys.executable, "-m", "station", "meters", "--day", "all", "--config", str(table.config)],
                          capture_output=True, text=True, timeout=120, check=True).stdout
    rounds = recalled(table)
    assert rounds[2]["jackpot"]["signed_off"]["total"] == whole and rounds[2]["jackpot"]["awards"][1]["box"] == "3"
    assert "jackpot" not in rounds[0]
    said = subprocess.run([sys.executable, "-m", "station", "recall", "--round", "1-3", "--config", str(table.config)],
                          capture_output=True, text=True, timeout=120, check=True).stdout
    assert "jackpot      box 1 ann Progressive both suited: 100% of the meter, 25,001.90" in said
    assert "signed off by supervisor sam: paid 50,003.80 (cheque 4411)" in said
    assert "progressive: contributed 3.80, 1 jackpot(s) paid 50,003.80 (casino topped 50,000.00), 1 reset(s) " \
           "took -123.45" in text
