"""A real ``station run`` against a continuous shuffler and a shoe simulated in this process
(ptys), played through the control socket: the set is counted before the session, a round
returned one card short is an alarm in ``ctl status``, and a supervisor acknowledges it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.simulators import CardPool, start_simulator
from station.service.control import ControlError, hash_token, request

DEALER, SUPERVISOR = "dealer-token-integrity", "supervisor-token-integrity"


class Station:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.pool = CardPool.of_decks(6, seed=3)
        self.shuffler = start_simulator("shuffler", mode="continuous", decks=6, pool=self.pool,
                                        directory=str(directory))
        self.shoe = start_simulator("shoe", directory=str(directory))
        self.shoe.simulator.attach_pool(self.pool)
        self.socket = directory / "control.sock"
        config = directory / "station.toml"
        config.write_text(f"""
[station]
name = "integrity e2e"
journal = "{directory / 'journal.sqlite3'}"
log_format = "json"
[table]
decks = 6
equipment = "continuous"
min_bet = 500
max_bet = 100000
chips = [100, 500, 1000]
[devices.shoe]
url = "{self.shoe.url}"
[devices.shuffler]
url = "{self.shuffler.url}"
[control]
socket = "{self.socket}"
[[control.users]]
name = "dana"
role = "dealer"
token_sha256 = "{hash_token(DEALER)}"
[[control.users]]
name = "sam"
role = "supervisor"
token_sha256 = "{hash_token(SUPERVISOR)}"
""")
        env = {**os.environ, "XDG_RUNTIME_DIR": str(directory / "run")}
        env.pop("STATION_JOURNAL", None)
        self.log = (directory / "station.log").open("w")
        self.process = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config)],
                                        stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def ctl(self, command: str, args: dict[str, Any] | None = None, token: str = DEALER) -> Any:
        reply = request(self.socket, token, command, args or {})
        if not reply.get("ok"):
            raise ControlError(str(reply.get("error")))
        return reply.get("result")

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        status: dict[str, Any] = {}
        while time.monotonic() < deadline:
            try:
                status = self.ctl("status")
                if predicate(status):
                    return status
            except ControlError:
                pass
            time.sleep(0.02)
        raise AssertionError(f"not reached; last status {status}")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.log.close()
        self.shoe.stop()
        self.shuffler.stop()


@pytest.fixture
def station(tmp_path: Path) -> Iterator[Station]:
    running = Station(tmp_path)
    yield running
    running.close()


def test_a_round_returned_one_card_short_is_an_alarm_a_supervisor_acknowledges(station: Station) -> None:
    # The station asked the shuffler's state at start and had the set counted: the session is open.
    station.wait_for(lambda s: s["state"] == "betting")
    station.ctl("bet", {"box": "1", "player": "P1", "region": "banker", "amount": 2000})
    station.ctl("action", {"action": "no_more_bets"})
    station.wait_for(lambda s: s["state"] == "dealing")
    dealt = []
    while True:
        before = station.ctl("status")
        if before["state"] != "dealing":
            break
        dealt.append(station.shoe.simulator.draw())
        seen = (before["state"], before["expecting"])

        def moved(s: dict[str, Any], seen: tuple[str, str] = seen) -> bool:
            return (s["state"], s["expecting"]) != seen

        station.wait_for(moved)
    assert station.ctl("status")["state"] == "paying" and 4 <= len(dealt) <= 6
    station.ctl("action", {"action": "next_round"})
    station.wait_for(lambda s: s["state"] == "betting")
    station.shuffler.simulator.return_cards(dealt[:-1])  # one card is not put back
    status = station.wait_for(lambda s: s["state"] == "irregularity")
    assert status["irregularity"]["reason"] == "cards_returned_mismatch"
    integrity = status["integrity"]
    [alarm] = integrity["alerts"]
    assert alarm["code"] == "cards_returned_mismatch" and alarm["severity"] == "alarm"
    assert f"counted {len(dealt) - 1} cards back; {len(dealt)} were dealt" in alarm["detail"]
    assert integrity["raised"] == {"alarm:cards_returned_mismatch": 1}
    with pytest.raises(ControlError, match="supervisor"):
        station.ctl("ack", {"ident": alarm["ident"]})
    assert "applied: AlertAcknowledged" in station.ctl("ack", {"ident": alarm["ident"], "note": "card found"},
                                                       token=SUPERVISOR)
    station.ctl("decide", {"decision": "resume", "detail": ""}, token=SUPERVISOR)
    status = station.wait_for(lambda s: s["state"] == "betting")
    assert status["integrity"]["alerts_open"] == 0
    log = (station.directory / "station.log").read_text()
    assert '"event": "integrity_alert"' in log and '"level": "warning"' in log
