"""The console's door, from the other side of the wire: a real ``station run`` with its
console process, asked over HTTP as a browser (or an attacker) would. No change without a
session; a dealer cannot decide, correct or acknowledge; no change without the CSRF token;
the sixth wrong PIN in a minute waits; an idle session is gone; the console killed mid-round
leaves the table dealing, and the next one shows the same table."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from station.web.shutout import ShutoutRules

from ..waiting import tail, wait_for_line, wait_until
from .asking import ask_from
from .conftest import ConsoleClient

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def journal_kinds(table: Any, kind: str) -> list[dict[str, Any]]:
    return [r for r in table.journal_records() if r["kind"] == kind]


def test_no_change_without_a_session_nor_without_its_token(console_table: Any) -> None:
    table = console_table()
    table.start_station()
    stranger = ConsoleClient(table.url)
    assert stranger.command("action", action="shuffle_done")[0] == 401
    assert stranger.call("/api/view")[0] == 401
    dealer = table.client()
    assert dealer.sign_in("dee")[0] == 200
    dealer.csrf, token = "", dealer.csrf
    status, body = dealer.command("action", action="shuffle_done")
    assert status == 403 and "token" in body["error"]
    dealer.csrf = "x" * len(token)
    assert dealer.command("action", action="shuffle_done")[0] == 403
    dealer.csrf = token
    # A form posted from another site: refused whatever it carries.
    status, _ = dealer.call("/api/command", {"command": "action", "args": {"action": "shuffle_done"}},
                            headers={"Origin": "http://evil.example"})
    assert status == 403
    assert table.status()["state"] == "shuffling", "nothing reached the table"
    status, body = dealer.command("action", action="shuffle_done")
    assert status == 200 and body["ok"], body
    assert table.wait_for(lambda s: s["state"] == "cutting")
    action = journal_kinds(table, "DealerAction")[-1]
    assert action["payload"]["actor"] == {"role": "dealer", "who": "dee"}
    table.stop_station()


def test_a_dealer_cannot_decide_correct_or_acknowledge(console_table: Any) -> None:
    table = console_table()
    table.start_station()
    dealer = table.client()
    dealer.sign_in("dee")
    for command, args in (("decide", {"decision": "void"}), ("ack", {"ident": 1}), ("pause", {}),
                          ("correct", {"round_id": "1-1", "box": "1", "player": "P1", "region": "banker",
                                       "new_box": "1", "new_player": "P1", "new_region": "player",
                                       "new_amount": 1000, "reason": "x"})):
        status, body = dealer.command(command, **args)
        assert status == 200 and not body["ok"], body
        assert body["error"] == f"'{command}' needs the role supervisor; dee is dealer"
    denied = journal_kinds(table, "AccessDenied")
    assert [d["payload"]["command"] for d in denied] == ["decide", "ack", "pause", "correct"]
    assert {d["payload"]["actor"]["who"] for d in denied} == {"dee"}
    table.stop_station()


def test_the_sixth_wrong_pin_in_a_minute_waits(console_table: Any) -> None:
    table = console_table()
    table.start_station()
    screen = table.client()
    for _ in range(5):
        status, body = screen.sign_in("sue", pin="0000")
        assert (status, body["error"]) == (401, "wrong name or PIN")
    status, body = screen.sign_in("sue")  # the right PIN, but too late
    assert status == 429 and body["error"].startswith("too many wrong PINs for sue: wait ")
    # Another user is not held up, and an unknown name is answered like a wrong PIN.
    assert screen.sign_in("dee")[0] == 200
    assert ConsoleClient(table.url).sign_in("dee", pin="99999")[0] == 401
    status, body = ConsoleClient(table.url).call("/api/sign-in", {"name": "nobody", "pin": "1234"})
    assert (status, body["error"]) == (401, "wrong name or PIN")
    assert "console sign-in refused: 5 wrong PINs for 'sue'" in table.log.read_text()
    table.stop_station()


def test_a_session_idle_past_its_limit_is_gone(console_table: Any) -> None:
    table = console_table(console_extra="idle_seconds = 5")
    table.start_station()
    screen = table.client()
    screen.sign_in("dee")
    assert screen.command("action", action="shuffle_done")[1]["ok"]
    # Watching the table is not a tap: polling does not keep the session.
    wait_until(lambda: screen.call("/api/view?since=0")[0] == 401, 20, "idle sign-out")
    status, body = screen.command("action", action="confirm_cut")
    assert status == 401 and "sign in" in body["error"]
    assert table.status()["state"] == "cutting"
    table.stop_station()


def test_the_console_killed_mid_round_leaves_the_table_dealing(console_table: Any) -> None:
    table = console_table()
    table.start_station()
    screen = table.client()
    screen.sign_in("dee")
    table.play_until(lambda s: s["state"] == "betting")
    assert screen.command("bet", box="2", player="ann", region="player", amount=1000)[1]["ok"]
    assert screen.command("action", action="no_more_bets")[1]["ok"]
    table.draw()
    before = wait_until(lambda: (v := screen.view()) and v["cards"] and v, 15, "the first card shown")
    pid = wait_until(lambda: _console_pid(table), 15, "the console's process", detail=lambda: tail(table.log))
    os.kill(pid, signal.SIGKILL)
    table.draw()  # the table deals on without its console
    table.wait_for(lambda s: s["expecting"] == "deal Player second card")
    # The station starts a new console; the screen signs in again and sees the same round.
    screen = table.client()
    wait_until(lambda: _console_pid(table) not in (None, pid), 20, "a new console", detail=lambda: tail(table.log))
    wait_until(lambda: _signed_in(screen, "dee"), 15, "sign-in at the new console", detail=lambda: tail(table.log))
    after = wait_until(lambda: (v := screen.view()) and len(v["cards"]) == 2 and v, 15, "both cards shown")
    assert after["round"] == before["round"]
    assert after["bets"] == before["bets"] == [
        {"box": "2", "player": "ann", "region": "player", "amount": 1000, "text": "Player 10.00"}]
    assert after["cards"][0] == before["cards"][0]
    assert table.stop_station() == 0


def _signed_in(screen: ConsoleClient, name: str) -> bool:
    try:
        return screen.sign_in(name)[0] == 200
    except OSError:  # the new console is not listening yet
        return False


def _console_pid(table: Any) -> int | None:
    """The console process of this table's station (its name says whose it is)."""
    assert table.process is not None
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        joined = b" ".join(cmdline)
        if parent == table.process.pid and (b"station-console" in joined or b"station.console.process" in joined):
            return int(entry)
    return None


def test_a_supervisors_own_screen_pauses_resumes_and_switches_the_payout_option(console_table: Any) -> None:
    table = console_table()
    table.start_station()
    supervisor = table.client()
    supervisor.sign_in("sue")  # on a screen of their own: the session stays theirs after a change
    assert supervisor.command("pause", reason="fill the float")[1]["ok"]
    table.wait_for(lambda s: s["state"] == "paused")
    assert supervisor.command("resume")[1]["ok"]
    table.wait_for(lambda s: s["state"] == "shuffling")
    assert supervisor.command("payout-option", option="no_commission")[1]["ok"]
    _status, body = supervisor.command("ack", ident=7, note="counted by hand")
    assert not body["ok"] and body["error"].startswith("refused:"), body
    view = wait_until(lambda: (v := supervisor.view()) and v["pending_option"] == "no_commission" and v, 15,
                      "the payout option on the console")
    assert view["payout_option"] == "commission"
    kinds = [r["kind"] for r in table.journal_records()]
    assert {"PauseRequested", "ResumeRequested", "PayoutOptionChanged", "AlertAcknowledged"} <= set(kinds)
    pause = next(r for r in table.journal_records() if r["kind"] == "PauseRequested")
    assert pause["payload"]["actor"] == {"role": "supervisor", "who": "sue"}
    table.stop_station()


def test_an_address_that_keeps_being_refused_is_shut_out_and_the_dealer_is_not(console_table: Any) -> None:
    table = console_table()
    table.start_station()
    dealer = table.client()
    assert dealer.sign_in("dee")[0] == 200
    rules = ShutoutRules()
    answers = [ask_from("127.0.0.2", table.console_port, "/api/view") for _ in range(rules.after)]
    assert answers == [401] * rules.after, "each is answered until the last of them"
    assert ask_from("127.0.0.2", table.console_port, "/healthz") is None, "then no longer heard"
    assert ask_from("127.0.0.3", table.console_port, "/healthz") == 200, "another address is not"
    assert dealer.view()["state"], "the dealer's own screen goes on"
    wait_for_line(table.log, "console shut out 127.0.0.2 for 30 s", 15)
    table.stop_station()
