"""A supervisor's turn on the dealer's screen, over HTTP against the console's real server
(in this process, a stand-in station that records what it is asked): the dealer's cookie and
token, copied to another address or used on the screen itself, cannot act while the turn
lasts; the turn's own token acts once and the turn ends; the ended turn's cookie is given the
dealer's session back and cannot act as the dealer."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from station.console.server import TURN_ENDED
from station.console.sessions import SUPERVISOR_TURN_S
from tests.waiting import wait_until

from .inprocess import RunningConsole, running_console

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="other loopback addresses are Linux's")


@pytest.fixture
def console() -> Iterator[RunningConsole]:
    with running_console() as running:
        running.publish({"state": "betting"})  # a picture, so a view is answered at once
        wait_until(lambda: running.app.hub.version == 1, 10, "the picture")
        yield running


def test_the_dealers_cookie_cannot_act_during_a_turn_and_the_turns_token_acts_once(console: RunningConsole) -> None:
    screen = console.screen()
    assert screen.sign_in("dee")[0] == 200
    dealer_cookie, dealer_csrf, screen_id = screen.cookie, screen.csrf, screen.session["screen"]
    elsewhere, here = screen.copy("127.0.0.2"), screen.copy("127.0.0.1")  # whoever holds the dealer's cookie

    status, body = screen.sign_in("sue")
    assert status == 200 and body["supervisor_turn"] and body["acting"] == "sue"
    assert screen.cookie not in ("", dealer_cookie) and screen.csrf not in ("", dealer_csrf)
    assert (body["screen"], body["turn"]) == (screen_id, 1)
    turn = screen.copy("127.0.0.1")  # the turn's cookie, kept to try once the turn is over

    for holder in (elsewhere, here):
        status, body = holder.command("pause", reason="taken over")
        assert status == 403 and "a supervisor is acting on this screen" in body["error"], body
        status, body = holder.sign_out()
        assert status == 403 and "supervisor" in body["error"], body
        status, body = holder.get("/api/view?since=0")
        assert status == 409 and "csrf" not in str(body), "a read is answered with no session, for the page to retry"
        assert holder.get("/api/session")[0] == 409
        assert holder.sign_in("dee")[0] == 403, "nor a sign-in over the supervisor's turn"
    assert console.station.asked == [], "nothing reached the station"

    status, body = screen.command("pause", reason="fill the float")
    assert status == 200 and body["ok"], body
    assert console.station.asked == [("sue", {"command": "pause", "args": {"reason": "fill the float"}})]
    # The turn ended with its one change: the screen has the dealer's cookie and session again.
    assert screen.cookie == dealer_cookie and screen.csrf == dealer_csrf
    session = body["session"]
    assert (session["acting"], session["supervisor_turn"], session["turn"], session["screen"]) == (
        "dee", False, 2, screen_id)

    status, body = turn.command("resume")
    assert status == 409 and body["error"] == TURN_ENDED, body
    assert len(console.station.asked) == 1, "an ended turn's change is never carried out as the dealer"
    assert turn.cookie == dealer_cookie, "it is given the dealer's cookie back"
    assert body["session"]["acting"] == "dee" and body["session"]["csrf"] == dealer_csrf
    assert console.app.book.counters.ended_turn_refused == 1

    assert elsewhere.command("resume")[0] == 200, "the dealer's cookie acts again once the turn is over"
    assert console.station.asked[-1][0] == "dee"


def test_an_ended_turns_cookie_is_told_the_dealers_session_on_any_read(console: RunningConsole) -> None:
    screen = console.screen()
    screen.sign_in("dee")
    dealer_cookie, dealer_csrf = screen.cookie, screen.csrf
    screen.sign_in("sue")
    turn_cookie, turn_csrf = screen.cookie, screen.csrf
    console.clock.now += SUPERVISOR_TURN_S + 1  # two minutes without a decision
    status, body = screen.get("/api/view?since=0")
    assert status == 200 and body["session"]["acting"] == "dee" and body["session"]["csrf"] == dealer_csrf
    assert body["session"]["turn"] == 2 and screen.cookie == dealer_cookie
    screen.cookie = turn_cookie
    status, body = screen.get("/api/session")
    assert status == 200 and body["acting"] == "dee" and screen.cookie == dealer_cookie
    screen.cookie, screen.csrf = turn_cookie, turn_csrf  # the page had not been told yet
    status, body = screen.sign_out()  # too late: the turn is over, the dealer stays signed in
    assert status == 200 and body["signed_in"] and body["acting"] == "dee" and screen.cookie == dealer_cookie
    assert screen.get("/api/session")[1]["acting"] == "dee"


def test_signing_out_of_a_turn_gives_the_screen_back_to_the_dealer(console: RunningConsole) -> None:
    screen = console.screen()
    screen.sign_in("dee")
    dealer_cookie = screen.cookie
    screen.sign_in("sue")
    status, body = screen.sign_out()
    assert status == 200 and body["signed_in"] and body["acting"] == "dee" and not body["supervisor_turn"]
    assert screen.cookie == dealer_cookie
    assert screen.command("action", action="no_more_bets")[0] == 200
    assert console.station.asked == [("dee", {"command": "action", "args": {"action": "no_more_bets"}})]


def test_a_refused_change_leaves_the_turn_on(console: RunningConsole) -> None:
    screen = console.screen()
    screen.sign_in("dee")
    screen.sign_in("sue")
    turn_cookie = screen.cookie
    console.station.reply = {"ok": False, "error": "refused: no irregularity to decide"}
    status, body = screen.command("decide", decision="void")
    assert status == 200 and not body["ok"] and body["session"]["supervisor_turn"]
    assert screen.cookie == turn_cookie, "the supervisor may try another decision"
    console.station.reply = {"ok": True}
    assert screen.command("pause", reason="x")[1]["ok"]
    assert [who for who, _ in console.station.asked] == ["sue", "sue"]
    assert screen.session["acting"] == "dee"


def test_a_supervisor_on_a_screen_of_their_own_keeps_the_session(console: RunningConsole) -> None:
    tablet = console.screen("127.0.0.3")
    status, body = tablet.sign_in("sue")
    assert status == 200 and not body["supervisor_turn"] and body["acting"] == "sue"
    cookie = tablet.cookie
    assert tablet.command("pause", reason="x")[1]["ok"] and tablet.command("resume")[1]["ok"]
    assert tablet.cookie == cookie and tablet.session["acting"] == "sue"
    assert [who for who, _ in console.station.asked] == ["sue", "sue"]
