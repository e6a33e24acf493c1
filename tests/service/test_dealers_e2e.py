"""Dealer sessions end to end (docs/dealers.md): real ``station run`` processes.

- With ``[table] burn_on_dealer_change`` the simulated dealer who takes over burns one card
  before their first round: the card is in ``station recall`` and in the floor feed's round
  message (a real mosquitto), and every round names its dealer; without the option nothing
  is burned.
- The three doors: a dealer signing in at the console with their PIN (its HTTP API), on the
  button box with their dealer id (a simulated box on a pseudo-terminal), and ``station ctl
  dealer``; each refusal (a wrong PIN, an id nobody has, an unknown token, a dealer signing
  in someone else) is refused, and the journal's significant events say both.
"""

from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from drivers.simulators import start_simulator
from station.service.control import hash_token, request

from ..floor.helpers import (
    Broker,
    Subscriber,
    check_schemas,
    first_occurrences,
    floor_config,
    free_port,
    run_station,
    station,
    station_env,
)
from ..waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

SUE, BEN = "supervisor-token-for-dealers", "dealer-token-of-ben"


def with_people(text: str, socket: Path, console_port: int) -> str:
    """The default configuration's users (dana, dealer, PIN 1234; sam) with ids on the button
    box, ben (a dealer) and sue (a supervisor) with tokens, the socket and a console port of
    the test's own."""
    text = text.replace('socket = ""', f'socket = "{socket}"').replace("port = 8081", f"port = {console_port}")
    text = text.replace('name = "dana"\nrole = "dealer"\n', 'name = "dana"\nrole = "dealer"\ndealer_id = "12"\n')
    return text + f"""
[[control.users]]
name = "ben"
role = "dealer"
token_sha256 = "{hash_token(BEN)}"
dealer_id = "34"
[[control.users]]
name = "sue"
role = "supervisor"
token_sha256 = "{hash_token(SUE)}"
"""


def ctl(socket: Path, command: str, args: dict[str, Any] | None = None, token: str = SUE) -> dict[str, Any]:
    return request(socket, token, command, args or {})


def status(socket: Path) -> dict[str, Any]:
    reply = ctl(socket, "status") if socket.exists() else {}
    return dict(reply["result"]) if reply.get("ok") else {}


def rounds_closed(socket: Path, seen: set[str]) -> int:
    """Rounds the table has gone past, as ``status`` shows them one after the other."""
    current = status(socket).get("round")
    if current:
        seen.add(current)
    return len(seen) - 1


@pytest.mark.parametrize("burn", [True, False], ids=["burn", "no-burn"])
def test_the_dealer_who_takes_over_burns_one_card_only_with_the_option(tmp_path: Path, broker: Broker,
                                                                       burn: bool) -> None:
    subscriber = Subscriber(broker.port, "dealing-station/#", client_id=f"dealers-{burn}")
    socket = tmp_path / "control.sock"
    config = floor_config(tmp_path / "station.toml", broker.url, pace_ms=30)
    text = with_people(config.read_text(), socket, free_port())
    config.write_text(text.replace("burn_on_dealer_change = false", f"burn_on_dealer_change = {str(burn).lower()}"))
    journal, log, env = tmp_path / "journal.sqlite3", tmp_path / "station.log", station_env(tmp_path)
    process = run_station(config, journal, env, log)
    seen: set[str] = set()
    try:
        wait_until(lambda: status(socket).get("round"), 90, "the table dealing")
        assert "applied: DealerSignedIn" in ctl(socket, "dealer", {"name": "dana"})["result"]
        wait_until(lambda: rounds_closed(socket, seen) >= 2, 90, "two rounds of dana's")
        assert "applied: DealerSignedIn" in ctl(socket, "dealer", {"name": "ben"})["result"]
        assert status(socket)["dealer"] == "ben"
        at_change = rounds_closed(socket, seen)
        wait_until(lambda: rounds_closed(socket, seen) >= at_change + 3, 90, "three rounds of ben's")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0, log.read_text()[-3000:]
    recalled = station("recall", "--last", "0", "--json", "--journal", str(journal), env=env)
    rounds = [r for r in json.loads(recalled.stdout) if not r["in_progress"]]
    dealers = [r["dealer"] for r in rounds]
    first_of_ben = dealers.index("ben")
    assert set(dealers[:first_of_ben]) <= {"", "dana"} and "dana" in dealers and set(dealers[first_of_ben:]) == {"ben"}
    burned = [r["dealer_burned"] for r in rounds]
    if burn:
        card = burned[first_of_ben]
        assert card is not None and card in rounds[first_of_ben]["burned"]
        assert burned[:first_of_ben] + burned[first_of_ben + 1:] == [None] * (len(rounds) - 1)
    else:
        assert burned == [None] * len(rounds) and all(not r["burned"] for r in rounds)
    text_recall = station("recall", "--round", rounds[first_of_ben]["round_id"], "--journal", str(journal), env=env)
    assert "dealer       ben" in text_recall.stdout
    if burn:
        assert f"burned       {burned[first_of_ben]}" in text_recall.stdout

    subscriber.wait_for(lambda s: len(first_occurrences(s.kind("round"))[0]) >= len(rounds), 30,
                        "every round on the feed")
    changes = subscriber.kind("significant")
    subscriber.close()
    feed_rounds = first_occurrences(subscriber.kind("round"))[0]
    by_id = {m["round_id"]: m for m in feed_rounds}
    message = by_id[rounds[first_of_ben]["round_id"]]
    assert message["dealer"] == "ben" and message["dealer_burned"] == burned[first_of_ben]
    if burn:
        assert message["burned"] == [burned[first_of_ben]]
    assert [(m["data"]["dealer"], m["data"]["relieved"], m["data"]["burn"]) for m in changes
            if m["code"] == "dealer_change"] == [("dana", "", False), ("ben", "dana", burn)]
    check_schemas(subscriber.messages)


def test_a_dealer_signs_in_at_the_console_on_the_button_box_or_by_ctl_and_refusals_are_journaled(
        tmp_path: Path) -> None:
    box = start_simulator("buttonbox", directory=str(tmp_path))
    socket, console_port = tmp_path / "control.sock", free_port()
    config = tmp_path / "station.toml"
    text = with_people((Path(__file__).resolve().parents[2] / "config" / "station.toml").read_text(), socket,
                       console_port)
    text = text.replace("simulated = true ", "simulated = false ")
    text = text.replace("[dealer]\n", f'[devices.buttonbox]\nurl = "{box.url}"\n\n[dealer]\nsign_in_button = "call"\n')
    config.write_text(text)
    journal, log, env = tmp_path / "journal.sqlite3", tmp_path / "station.log", station_env(tmp_path)
    process = run_station(config, journal, env, log)
    try:
        wait_until(lambda: status(socket).get("state"), 90, "the station answering")
        console = f"http://127.0.0.1:{console_port}/api/sign-in"
        wait_until(lambda: _console_up(console_port), 60, "the console listening")
        assert _sign_in(console, "dana", "0000") == 401
        assert _sign_in(console, "dana", "1234") == 200
        wait_until(lambda: status(socket).get("dealer") == "dana", 30, "dana at the table")

        box.simulator.long_press(4)  # "call", held: a sign-in, not a call for the supervisor
        box.simulator.press(3)
        box.simulator.press(4)  # ben's id, 34
        wait_until(lambda: status(socket).get("dealer") == "ben", 30, "ben at the table")
        box.simulator.long_press(4)
        box.simulator.press(4)  # no id begins with 4: refused
        wait_until(lambda: len(_events(journal, env, "access_denied")) == 2, 30, "the box's refusal journaled")

        refused = ctl(socket, "dealer", {"name": "dana"}, token=BEN)
        assert refused == {"ok": False, "error": "refused: a dealer signs in only themselves; ben may not sign "
                                                 "in dana (a supervisor may)"}
        assert ctl(socket, "dealer", {"name": "zed"})["error"].startswith("refused: zed is not a dealer")
        assert ctl(socket, "status", token="nobody's token") == {"ok": False, "error": "unknown token"}
        assert "applied: DealerSignedIn" in ctl(socket, "dealer", {"name": "dana"})["result"]
        assert ctl(socket, "dealer", {"name": "dana"})["error"] == "refused: dana is already the dealer at this table"
        wait_until(lambda: len(_events(journal, env, "access_denied")) == 3, 30, "three refusals journaled")
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(60)
        box.stop()
    assert code == 0, log.read_text()[-3000:]
    changes = _events(journal, env, "dealer_change")
    assert [(e["data"]["dealer"], e["data"]["relieved"], e["device"]) for e in changes] == [
        ("dana", "", "console"), ("ben", "dana", "buttonbox"), ("dana", "ben", "control")]
    denied = _events(journal, env, "access_denied")
    assert [(e["device"], e["data"]["reason"]) for e in denied] == [
        ("console", "wrong name or PIN"), ("buttonbox", "no dealer has the id entered on the button box"),
        ("control", "unknown token")]
    assert denied[0]["data"]["claimed"] == "dana"
    from station.journal import JournalReader

    with JournalReader(journal) as reader:
        kinds = {record.kind for record in reader.records()}
    assert "ButtonPressed" not in kinds  # the sign-in's presses were never the table's


def _events(journal: Path, env: dict[str, str], code: str) -> list[dict[str, Any]]:
    shown = station("events", "--journal", str(journal), "--code", code, "--json", env=env)
    assert shown.returncode == 0, shown.stderr
    rows: list[dict[str, Any]] = json.loads(shown.stdout)
    return rows


def _console_up(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def _sign_in(url: str, name: str, pin: str) -> int:
    body = json.dumps({"name": name, "pin": pin}).encode()
    asked = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(asked, timeout=10) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
