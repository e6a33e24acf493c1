"""A real ``station run`` against a continuous shuffler and a shoe simulated in this process
(ptys), played through the control socket: the set is counted before the session, a round
returned one card short is an alarm in ``ctl status``, and a supervisor acknowledges it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from station.service.control import ControlError

from .external import SUPERVISOR, Station

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


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
