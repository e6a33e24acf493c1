"""The simulated table yields to a person: signed in at the console as the dealer, they take
every decision, and the simulated dealer only handles the equipment until they sign out.

``station run`` on the shipped default configuration (the simulated dealer on, at a quick
pace), its console on a free port, a person signing in with the PIN the configuration gives
its simulated table (dana, 1234), over HTTP as the console's page does. Waiting for "nothing
happens" is waiting on the console's own long poll (each answer is a change of the table), for
longer than the simulated dealer ever takes to close betting or to go on after a payout.
"""

from __future__ import annotations

import getpass
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from station.journal import JournalReader

from ..console.conftest import ConsoleClient
from ..shipped import runnable_copy, shipped
from ..waiting import tail, wait_until

pytestmark = pytest.mark.e2e

#: Longer than the simulated dealer ever waits before closing betting (1.5 to 3 s at the
#: shipped pace; 0.1 s here) or going on after the payouts.
STILL_S = 4.0


def _states_while(client: ConsoleClient, seconds: float, version: int) -> list[str]:
    """Every state the console shows for ``seconds`` after picture ``version``."""
    seen: list[str] = []
    until = time.monotonic() + seconds
    while (left := until - time.monotonic()) > 0:
        status, body = client.call(f"/api/view?since={version}", timeout=left + 25)
        assert status == 200, body
        view = body["view"]
        if view["version"] != version:
            version = view["version"]
            seen.append(view["state"])
    return seen


def _still(client: ConsoleClient, quiet_s: float = 3.0, timeout: float = 90.0) -> dict[str, Any]:
    """The view once the table has not changed for ``quiet_s`` (in a state a person decides)."""
    deadline = time.monotonic() + timeout
    view = client.view()
    while time.monotonic() < deadline:
        if not _states_while(client, quiet_s, view["version"]) and view["state"] in (
                "betting", "revealing", "paying"):
            return view
        view = client.view()
    raise AssertionError(f"the table never stood still for {quiet_s} s: {view['state']}")


def _view_when(client: ConsoleClient, states: tuple[str, ...], timeout: float = 60.0) -> dict[str, Any]:
    found: dict[str, Any] = {}

    def there() -> bool:
        found.update(client.view())
        return found["state"] in states

    wait_until(there, timeout, f"the table in {states}", poll=0.1)
    return found


@pytest.mark.parametrize("still_s", [STILL_S, pytest.param(60.0, marks=pytest.mark.soak, id="a-minute")])
def test_a_dealer_signed_in_at_the_console_takes_the_decisions_and_signing_out_gives_them_back(
        tmp_path: Path, still_s: float) -> None:
    """The table waits for the person in betting and in payouts: watched ``still_s`` each (the
    suite's share; ``-m soak`` watches a minute each)."""
    # The PC's administrator (here, whoever runs the test) reads the status with no token.
    copy = runnable_copy(shipped("station"), tmp_path, pace_ms=100,
                         extra={"control": {"local_technicians": [getpass.getuser()]}})
    log = tmp_path / "station.log"
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path / "run"), "PYTHONUNBUFFERED": "1"}
    env.pop("STATION_JOURNAL", None)
    with log.open("ab") as out:
        station = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(copy.config)],
                                   stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        client = ConsoleClient(copy.console_url)
        wait_until(lambda: urllib.request.urlopen(copy.console_url + "healthz", timeout=2).status == 200, 60,
                   "the console", poll=0.1, ignoring=(OSError,), detail=lambda: tail(log))
        status, body = client.call("/api/sign-in", {"name": "dana", "pin": "1234"})
        assert status == 200, body
        client.csrf = body["csrf"]
        wait_until(lambda: _signed_in(copy.journal) == ["dana"], 30, "dana at the table, in the journal", poll=0.1)
        ctl = subprocess.run([sys.executable, "-m", "station", "ctl", "--socket", str(copy.control_socket), "status"],
                             capture_output=True, text=True, timeout=60,
                             env={k: v for k, v in env.items() if k != "STATION_TOKEN"})
        assert ctl.returncode == 0 and "dealer:   dana" in ctl.stdout, ctl.stdout + ctl.stderr

        # What the simulated dealer had already sent before it heard of the sign-in (a whole
        # round ahead, at this pace) is applied first; then the table stands still, waiting.
        view = _still(client)
        if view["state"] == "betting":
            assert client.command("action", action="no_more_bets")[1]["ok"]
            view = _view_when(client, ("revealing", "paying"))
        if view["state"] == "revealing":
            assert client.command("action", action="reveal")[1]["ok"]
            view = _view_when(client, ("paying",))
        assert view["state"] == "paying", view
        if (view.get("payouts") or {}).get("pending"):  # the dealer may have confirmed before it yielded
            assert client.command("confirm-payouts")[1]["ok"]
        assert client.command("action", action="next_round")[1]["ok"]
        view = _view_when(client, ("betting",))  # a round the person opened: nothing of the dealer's in flight
        assert set(_states_while(client, still_s, view["version"])) <= {"betting"}, (
            "the simulated dealer closed betting over the dealer's head")
        status, body = client.command("bet", box="1", player="a", region="player", amount=1000)
        assert status == 200 and body["ok"], body
        status, body = client.command("action", action="no_more_bets")
        assert status == 200 and body["ok"], body
        view = _view_when(client, ("revealing", "paying", "war_decision"))
        if view["state"] == "revealing":
            assert client.command("action", action="reveal")[1]["ok"]
            view = _view_when(client, ("paying",))
        assert view["state"] == "paying", view
        assert set(_states_while(client, still_s, view["version"])) <= {"paying"}, (
            "the simulated dealer confirmed the payouts or opened the next round over the dealer's head")
        assert client.command("confirm-payouts")[1]["ok"]
        assert client.command("action", action="next_round")[1]["ok"]
        _view_when(client, ("betting",))

        status, body = client.call("/api/sign-out", {})
        assert status == 200, body
        # Nobody at the table: the simulated dealer plays again (a round settles and a next opens).
        wait_until(lambda: client.call("/api/session")[0] == 200, 10, "signed out", poll=0.1)
        station_rounds = _recall(copy.journal)
        wait_until(lambda: len(_recall(copy.journal)) >= len(station_rounds) + 2, 60,
                   "rounds of the simulated dealer", poll=0.2)
    finally:
        station.send_signal(signal.SIGTERM)
        assert station.wait(60) == 0, tail(log)
    rounds = _recall(copy.journal)
    theirs = [r for r in rounds if r["dealer"] == "dana"]
    assert theirs and any(b["player"] == "a" for r in theirs for b in r["bets"]), "the person's round, with their bet"
    assert any(c["who"] == "dana" for r in theirs for c in r.get("confirmations", [])), "confirmed by the person"
    assert rounds[-1]["dealer"] == "", "the simulated dealer's rounds are no person's"
    assert [c["who"] for c in rounds[-1]["confirmations"]] == ["simulated dealer"], "recall says who confirmed"
    events = subprocess.run([sys.executable, "-m", "station", "events", "--code", "dealer_change", "--json",
                             "--journal", str(copy.journal)], capture_output=True, text=True, timeout=60)
    assert events.returncode == 0, events.stderr
    texts = [e["text"] for e in json.loads(events.stdout)]
    assert "dana took the table" in texts[0] and "dana left the table" in texts[-1], texts


def _signed_in(journal: Path) -> list[str]:
    """Who signed in as the dealer, as the journal says (read-only)."""
    with JournalReader(journal) as reader:
        return [r.payload["dealer"] for r in reader.records() if r.kind == "DealerSignedIn"]


def _recall(journal: Path) -> list[dict[str, Any]]:
    done = subprocess.run([sys.executable, "-m", "station", "recall", "--last", "0", "--json", "--journal",
                           str(journal)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [r for r in json.loads(done.stdout) if not r["in_progress"]]


def _start(copy: Any, tmp_path: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path / "run"), "PYTHONUNBUFFERED": "1"}
    env.pop("STATION_JOURNAL", None)
    with log.open("ab") as out:
        station = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(copy.config)],
                                   stdout=out, stderr=subprocess.STDOUT, env=env)
    wait_until(lambda: urllib.request.urlopen(copy.console_url + "healthz", timeout=2).status == 200, 60,
               "the console", poll=0.1, ignoring=(OSError,), detail=lambda: tail(log))
    return station


def _sign_in(copy: Any) -> None:
    client = ConsoleClient(copy.console_url)
    status, body = client.call("/api/sign-in", {"name": "dana", "pin": "1234"})
    assert status == 200, body


def _dealer_records(journal: Path) -> list[tuple[str, str, str]]:
    with JournalReader(journal) as reader:
        return [(r.kind, r.payload["dealer"], r.payload.get("door", "")) for r in reader.records()
                if r.kind in ("DealerSignedIn", "DealerSignedOut")]


def test_a_restart_ends_the_console_s_sessions_and_the_dealer_takes_the_table_again_by_signing_in(
        tmp_path: Path) -> None:
    """Sessions at the console do not outlive the station: the dealer who took the table there is
    signed out by the next start (the rounds until they are back are nobody's, so the simulated
    dealer plays them), and their next sign-in takes the table again (so it yields again)."""
    copy = runnable_copy(shipped("station"), tmp_path, pace_ms=100)
    log = tmp_path / "station.log"
    station = _start(copy, tmp_path, log)
    try:
        _sign_in(copy)
        wait_until(lambda: _dealer_records(copy.journal) == [("DealerSignedIn", "dana", "console")], 30,
                   "dana at the table", poll=0.1)
    finally:
        station.send_signal(signal.SIGTERM)
        assert station.wait(60) == 0, tail(log)
    station = _start(copy, tmp_path, log)
    try:
        wait_until(lambda: _dealer_records(copy.journal)[1:] == [("DealerSignedOut", "dana", "console")], 30,
                   "dana signed out by the restart", poll=0.1, detail=lambda: _dealer_records(copy.journal))
        _sign_in(copy)
        wait_until(lambda: _dealer_records(copy.journal)[2:] == [("DealerSignedIn", "dana", "console")], 30,
                   "dana at the table again", poll=0.1, detail=lambda: _dealer_records(copy.journal))
    finally:
        station.send_signal(signal.SIGTERM)
        assert station.wait(60) == 0, tail(log)
