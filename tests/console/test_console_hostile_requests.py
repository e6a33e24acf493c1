"""What a request carries, against the console's real server in this process: a body nested
far too deep is refused (400) before anything parses it, with no traceback in the log, and
counts towards its address's shut-out; a key given twice is refused, not taken as the last;
a handler's fault is one log line and a 500 that counts too; query parameters out of their
range or form are refused (400) and never reach recall."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from station.web.shutout import ShutoutRules
from tests.waiting import wait_until

from .inprocess import RunningConsole, Screen, running_console

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="other loopback addresses are Linux's")

#: Refusals that shut an address out in these tests.
AFTER = 6


@pytest.fixture
def console() -> Iterator[RunningConsole]:
    with running_console(ShutoutRules(after=AFTER, window_s=60.0, shut_s=60.0)) as running:
        running.publish({"state": "betting"})
        wait_until(lambda: running.app.hub.version == 1, 10, "the picture")
        yield running


def no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert all(record.exc_info is None and record.stack_info is None for record in caplog.records), caplog.text
    assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text, caplog.text


@pytest.mark.parametrize("depth", [100_000, 8_000])  # past the size limit, and within it (the parser's recursion)
def test_a_deeply_nested_body_is_refused_before_parsing_and_counts_towards_the_shut_out(
        console: RunningConsole, caplog: pytest.LogCaptureFixture, depth: int) -> None:
    caplog.set_level(logging.INFO)
    sender = console.screen("127.0.0.4")
    assert sender.sign_in("dee")[0] == 200  # the command's door is a signed-in one
    answers = []
    for path in ("/api/sign-in", "/api/command") * (AFTER // 2):
        answers.append(sender.raw("POST", path, b"[" * depth + b"]" * depth))
    assert [status for status, _ in answers] == [400] * AFTER, answers
    assert {body["error"] for _, body in answers} == {"body: nested deeper than 4 levels"}
    assert console.app.shutout.is_shut("127.0.0.4"), "each counted as a refusal of its address"
    assert console.station.asked == []
    no_traceback(caplog)
    assert console.screen("127.0.0.5").get("/healthz")[0] == 200


def test_a_key_given_twice_is_refused_not_taken_as_the_last(console: RunningConsole) -> None:
    screen = console.screen()
    screen.sign_in("dee")
    status, body = screen.raw("POST", "/api/command", b'{"command": "status", "command": "pause"}')
    assert status == 400 and body["error"] == "body: 'command' given twice (name each field once)", body
    status, body = screen.raw("POST", "/api/command", b'{"command": "bet", "args": {"amount": 5, "amount": 500}}')
    assert status == 400 and "'amount' given twice" in body["error"], body
    status, body = screen.raw("POST", "/api/sign-in", b'{"name": "sue", "name": "dee", "pin": "1234"}')
    assert status == 400 and "'name' given twice" in body["error"], body
    assert console.station.asked == []


@pytest.mark.parametrize(("body", "error"), [
    (b'{"command": "bet", "args": {"amount": ' + b"9" * 40 + b"}}", "body: an integer of 40 digits (at most 18)"),
    (b'{"command": "bet", "args": {"amount": NaN}}', "body: NaN is not a number"),
    (b'{"command": "bet"', "body: not a JSON object"),
    (b'["command", "bet"]', "body: not a JSON object"),
    (b'{"command": "bet\xff"}', "body: not valid UTF-8 text"),
])
def test_a_body_that_is_not_strict_json_is_refused(console: RunningConsole, body: bytes, error: str) -> None:
    screen = console.screen()
    screen.sign_in("dee")
    status, answer = screen.raw("POST", "/api/command", body)
    assert (status, answer["error"]) == (400, error)
    assert console.station.asked == []


def test_a_body_too_long_is_refused(console: RunningConsole) -> None:
    screen = console.screen()
    screen.sign_in("dee")
    status, answer = screen.raw("POST", "/api/command", b'{"command": "' + b"x" * 20_000 + b'"}')
    assert status == 413 and answer["error"] == "body: longer than 16 KB"


def test_a_handlers_fault_is_one_log_line_and_a_500_that_counts(
        console: RunningConsole, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.INFO)

    async def broken(who: str, line: bytes) -> dict[str, Any]:
        raise RuntimeError("the station's answer was\nnot what anyone expected")

    monkeypatch.setattr(console.app, "ask", broken)
    sender = console.screen("127.0.0.6")
    sender.sign_in("dee")
    for _ in range(AFTER):
        status, body = sender.command("status")
        assert status == 500 and body["error"] == "the console could not answer this request"
    assert console.app.shutout.is_shut("127.0.0.6")
    no_traceback(caplog)
    failures = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert len(failures) == AFTER and all("\n" not in line for line in failures), failures
    assert failures[0].startswith("console POST /api/command failed: RuntimeError: ")


@pytest.mark.parametrize(("query", "error"), [
    ("last=-5", "last: a whole number of rounds from 1 to 50"),
    ("last=abc", "last: a whole number of rounds from 1 to 50"),
    ("last=51", "last: a whole number of rounds from 1 to 50"),
    ("last=0", "last: a whole number of rounds from 1 to 50"),
    ("last=5&last=6", "last: given twice"),
    ("round=garbage", "round: a round id such as 3-41 (shoe, then round)"),
    ("round=3-41-2", "round: a round id such as 3-41 (shoe, then round)"),
    ("round=%2E%2E%2F", "round: a round id such as 3-41 (shoe, then round)"),
])
def test_recall_takes_only_a_number_of_rounds_or_a_round_id(console: RunningConsole, query: str, error: str) -> None:
    screen = console.screen()
    screen.sign_in("dee")
    status, body = screen.get(f"/api/recall?{query}")
    assert (status, body["error"]) == (400, error)
    assert console.station.recalled == []


def test_recall_as_asked(console: RunningConsole) -> None:
    screen = console.screen()
    assert screen.get("/api/recall?last=5")[0] == 401, "not signed in"
    screen.sign_in("dee")
    for query in ("last=5", "last=50", "", "round=3-41", "round=03-041", "last=7&round=12-1"):
        assert screen.get(f"/api/recall?{query}")[0] == 200
    assert console.station.recalled == [(5, ""), (50, ""), (10, ""), (10, "3-41"), (10, "3-41"), (7, "12-1")]


@pytest.mark.parametrize("since", ["-1", "abc", "1.5", "1e3", "99999999999999999999"])
def test_a_view_since_anything_but_a_pictures_number_is_refused(console: RunningConsole, since: str) -> None:
    screen = console.screen()
    screen.sign_in("dee")
    status, body = screen.get(f"/api/view?since={since}")
    assert status == 400 and body["error"] == "since: the number of a picture (a whole number, 0 or more)"


def test_a_view_since_a_number_is_answered(console: RunningConsole) -> None:
    screen: Screen = console.screen()
    screen.sign_in("dee")
    status, body = screen.get("/api/view?since=0")
    assert status == 200 and body["version"] == 1 and body["view"] == {"state": "betting"}
