"""Every refusal comes back to whoever asked, with the rule's reason, and stays in the record.

The real ``station run`` in a subprocess (tests/service/conftest.py): bets and decisions go
through the control socket as a dealer's terminal and a supervisor's ``station ctl`` send
them; the reply must say *applied* or *refused: <why>*, the log must say it at info, and
``station recall`` must list the refused inputs of the round they were made in.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from station.service.control import ControlError

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

SUPERVISOR_TOKEN = "supervisor-token-for-tests"  # tests/service/conftest.py's supervisor


def _bet(table: Any, region: str, amount: int, **kw: Any) -> str:
    return str(table.ctl("bet", {"box": "1", "player": "P1", "region": region, "amount": amount}, **kw))


def test_each_rule_refuses_with_its_reason_and_recall_keeps_it(external_table: Any) -> None:
    table = external_table()
    table.start_station()
    status = table.status()
    assert status["state"] == "shuffling"
    with pytest.raises(ControlError, match=r"^refused: bets are closed"):
        _bet(table, "banker", 1000)  # no round is open while the cards are shuffled
    table.play_until(lambda s: s["state"] == "betting")
    with pytest.raises(ControlError, match=r"^refused: .*(exactly|chip)"):
        _bet(table, "banker", 550)  # 550 less 5% is 522.50: chips of 100 cannot pay it (5.12)
    with pytest.raises(ControlError, match=r"^refused: .*minimum"):
        _bet(table, "tie", 400)  # below the table minimum of 500
    with pytest.raises(ControlError, match=r"^refused: .*maximum"):
        _bet(table, "player", 100_100)
    assert _bet(table, "banker", 2000).startswith("applied: BetPlaced")
    with pytest.raises(ControlError, match=r"^refused: there is no irregularity to decide"):
        table.ctl("decide", {"decision": "void"}, token=SUPERVISOR_TOKEN)
    table.press("deal")
    table.wait_for(lambda s: s["state"] == "dealing")
    with pytest.raises(ControlError, match=r"^refused: "):
        _bet(table, "player", 1000)  # after no more bets, without a supervisor's override (5.14)
    round_id = table.status()["round"]
    table.play_until(lambda s: s["state"] == "paying")
    table.stop_station()
    recalled = subprocess.run([sys.executable, "-m", "station", "recall", "--round", round_id, "--json",
                               "--config", str(table.config)], capture_output=True, text=True, timeout=60)
    assert recalled.returncode == 0, recalled.stderr
    (round_,) = json.loads(recalled.stdout)
    refused = [(r["input"], r["who"]) for r in round_["refused"]]
    assert ("BetPlaced", "dana") in refused and ("SupervisorDecision", "sam") in refused
    assert len([r for r in refused if r[0] == "BetPlaced"]) == 4
    assert all(r["reason"] for r in round_["refused"])
    logged = [json.loads(line) for line in table.log.read_text().splitlines() if '"input_refused"' in line]
    assert len(logged) >= 6 and all(entry["level"] == "info" for entry in logged)


def test_a_request_the_journal_could_not_store_is_refused_and_the_table_deals_on(external_table: Any) -> None:
    """The request that used to take the station down: a dealer's action with a lone surrogate."""
    import socket

    table = external_table()
    table.start_station()
    table.play_until(lambda s: s["state"] == "betting")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect(str(table.socket))
        sock.sendall(b'{"token": "dealer-token-for-tests", "command": "action", '
                     b'"args": {"action": "reveal", "box": "\\udfff"}}\n')
        reply = json.loads(sock.makefile("rb").readline())
    assert reply["ok"] is False and reply["error"].startswith("box: text that is not valid Unicode")
    table.play_until(lambda s: s["round"] != table.status()["round"] or s["state"] == "paying")
    table.play_until(lambda s: s["state"] == "betting" and s["round"].endswith("-2"))
    assert table.process is not None and table.process.poll() is None
    table.stop_station()
