"""A hostile or broken control client never takes the socket (or the table) down.

Real Unix sockets against the real :class:`ControlServer` with the station's real command
table; what the table would receive is collected from ``post``. Every bad request is
refused with the field and what is wrong, and nothing is posted for it.
"""

from __future__ import annotations

import contextlib
import json
import resource
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from station.core.loop import Verdict
from station.events import BetPlaced, Event
from station.service.control import Authenticator, ControlServer, Credential, hash_token, request
from station.service.control_commands import control_commands

from ..waiting import wait_until

DEALER = "dealer-secret"
SUPERVISOR = "super-secret"


class Table:
    def __init__(self, server: ControlServer, posted: list[Event]) -> None:
        self.server = server
        self.posted = posted

    def raw(self, payload: bytes, timeout: float = 5.0) -> dict[str, Any]:
        """Send bytes as they are and read the one-line reply."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(self.server.path))
            sock.sendall(payload)
            with sock.makefile("rb") as reader:
                return dict(json.loads(reader.readline()))


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    posted: list[Event] = []
    auth = Authenticator([Credential("dora", "dealer", hash_token(DEALER)),
                          Credential("sam", "supervisor", hash_token(SUPERVISOR))])
    def post(event: Event, done: Any) -> None:  # the table applies everything at once
        posted.append(event)
        done(Verdict(True))

    commands = control_commands(post, lambda: {"state": "betting"})
    server = ControlServer(tmp_path / "control.sock", auth, commands, max_connections=8, read_timeout_s=1.0)
    server.start()
    try:
        yield Table(server, posted)
    finally:
        server.stop()


def _bet(**args: Any) -> bytes:
    base = {"box": "1", "player": "P1", "region": "banker", "amount": 2000}
    return json.dumps({"token": DEALER, "command": "bet", "args": {**base, **args}}).encode() + b"\n"


BAD_REQUESTS = {
    "a lone surrogate in a box": (b'{"token": "dealer-secret", "command": "action", "args": {"action": "reveal", '
                                  b'"box": "\\udfff"}}\n', "box: text that is not valid Unicode"),
    "a NUL in a player": (_bet(player="P\u00001"), "player: control characters"),
    "bytes that are not UTF-8": (b'{"token": "dealer-secret", "command": "bet\xff"}\n', "request: not valid UTF-8"),
    "deep nesting": (b"[" * 60_000 + b"\n", "request: nested deeper than"),
    "a 5,000-digit integer": (_bet().replace(b"2000", b"9" * 5000), "request: an integer of 5000 digits"),
    "money as text": (_bet(amount="2500"), "amount: input should be a valid integer (whole minor units"),
    "money as a float": (_bet(amount=2500.0), "amount: input should be a valid integer"),
    "money as a boolean": (_bet(amount=True), "amount: input should be a valid integer"),
    "no money": (_bet(amount=0), "amount: input should be greater than 0"),
    "more money than exists": (_bet(amount=10**13), "amount: input should be less than or equal to"),
    "a missing argument": (json.dumps({"token": DEALER, "command": "bet", "args": {"player": "P1", "region": "tie",
                                       "amount": 500}}).encode() + b"\n", "box: missing (the betting box, e.g. 1)"),
    "an unknown argument": (_bet(colour="red"), "colour: not an argument of this command"),
    "an unknown action": (json.dumps({"token": DEALER, "command": "action", "args": {"action": "deal_faster"}})
                          .encode() + b"\n", "action: input should be"),
    "an unknown request field": (b'{"token": "dealer-secret", "command": "status", "sudo": true}\n',
                                 "sudo: not a request field"),
    "args that are not an object": (b'{"token": "dealer-secret", "command": "bet", "args": [1]}\n',
                                    "args: must be an object"),
    "NaN": (b'{"token": "dealer-secret", "command": "bet", "args": {"amount": NaN}}\n', "request: NaN is not a number"),
    "not JSON": (b"bet banker 2000\n", "request: not a JSON object"),
    # A JSON parser keeps the last of two equal keys: the station must not guess which was meant.
    "a second command": (b'{"token": "super-secret", "command": "status", "command": "resume"}\n',
                         "command: given twice"),
    "a second token": (b'{"token": "guess", "command": "status", "token": "dealer-secret"}\n', "token: given twice"),
    "an argument given twice": (b'{"token": "dealer-secret", "command": "bet", "args": {"box": "1", "player": "P1", '
                                b'"region": "tie", "amount": 500, "amount": 50000}}\n', "amount: given twice"),
}


@pytest.mark.parametrize("case", sorted(BAD_REQUESTS))
def test_a_bad_request_is_refused_with_its_field_and_nothing_is_posted(table: Table, case: str) -> None:
    payload, reason = BAD_REQUESTS[case]
    reply = table.raw(payload)
    assert reply["ok"] is False and reply["error"].startswith(reason), reply
    assert table.posted == []
    assert request(table.server.path, DEALER, "status") == {"ok": True, "result": {"state": "betting"}}


def test_a_good_bet_still_goes_through(table: Table) -> None:
    assert table.raw(_bet())["ok"] is True
    assert [type(e) for e in table.posted] == [BetPlaced]
    bet = table.posted[0]
    assert isinstance(bet, BetPlaced) and bet.amount == 2000


def test_a_ten_megabyte_line_is_refused_and_the_socket_serves_on(table: Table) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect(str(table.server.path))
        with contextlib.suppress(OSError):  # the station may close before the client is done sending
            sock.sendall(b'{"token": "' + b"x" * (10 * 1024 * 1024) + b'"}\n')
        reply = sock.makefile("rb").readline()
    assert json.loads(reply)["error"].startswith("request: longer than")
    assert request(table.server.path, SUPERVISOR, "status")["ok"] is True


def test_strangers_learn_nothing_about_the_commands(table: Table) -> None:
    reply = request(table.server.path, "guess", "format-disk")
    assert reply == {"ok": False, "error": "unknown token"}
    known = request(table.server.path, DEALER, "format-disk")["error"]
    assert ("dora may use: action, bet, buy-in, change-bet, chip-bets, confirm-payouts, dealer, rate, status, unrate, "
            "withdraw") in known
    assert "payout-option" not in known


def test_failed_authentications_are_counted_and_logged_once_per_interval(table: Table, capsys: Any) -> None:
    for _ in range(5):
        request(table.server.path, "guess", "status")
    assert table.server.stats.failed_authentications == 5
    logged = [line for line in capsys.readouterr().out.splitlines() if "control_authentication_failed" in line]
    assert len(logged) == 1


def test_role_denials_are_counted_and_reported_to_the_station(tmp_path: Path) -> None:
    denied: list[tuple[str, str]] = []
    auth = Authenticator([Credential("dora", "dealer", hash_token(DEALER))])
    server = ControlServer(tmp_path / "c.sock", auth, control_commands(lambda e, done: None, dict),
                           on_denied=lambda actor, name: denied.append((actor.who, name)))
    server.start()
    try:
        reply = request(server.path, DEALER, "payout-option", {"option": "no_commission"})
    finally:
        server.stop()
    assert reply["ok"] is False and "needs the role supervisor" in reply["error"]
    assert denied == [("dora", "payout-option")] and server.stats.role_denials == 1


def test_a_client_that_sends_half_a_request_is_let_go_without_a_traceback(table: Table, capfd: Any) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect(str(table.server.path))
        sock.sendall(b'{"token": "dealer-sec')
        reply = json.loads(sock.makefile("rb").readline())  # after the 1 s read timeout
    assert reply["error"].startswith("no complete request within 1 s")
    bad_before = table.server.stats.bad_requests
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:  # and one that hangs up mid-way
        sock.connect(str(table.server.path))
        sock.sendall(b'{"token": ')
    # Its half line seen as a bad request, and the connection let go by the server.
    wait_until(lambda: table.server.stats.bad_requests > bad_before and not table.server._pool, 10,
               "the server to let go of the client that hung up mid-way",
               detail=lambda: (table.server.stats.as_dict(), len(table.server._pool)))
    assert request(table.server.path, DEALER, "status")["ok"] is True
    assert "Traceback" not in capfd.readouterr().err
    assert table.server.stats.timed_out >= 1


def test_a_thousand_idle_connections_cannot_lock_a_supervisor_out(table: Table) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 4096:
        pytest.skip(f"the test needs 4,096 file descriptors (both ends in one process); it may have {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 4096), hard))
    idle: list[socket.socket] = []
    try:
        for _ in range(1000):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(str(table.server.path))
            idle.append(sock)
        answered: list[object] = []

        def ask() -> None:
            try:
                answered.append(request(table.server.path, SUPERVISOR, "status", timeout=5))
            except Exception as exc:  # shown by the assertion below
                answered.append(exc)

        asking = threading.Thread(target=ask)
        asking.start()
        asking.join(6)
        assert answered == [{"ok": True, "result": {"state": "betting"}}]
        assert table.server.stats.evicted_idle >= 1
        assert len(table.server._pool) <= table.server.max_connections
    finally:
        for sock in idle:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_when_every_connection_is_busy_a_new_one_hears_busy(tmp_path: Path) -> None:
    release = threading.Event()
    auth = Authenticator([Credential("sam", "supervisor", hash_token(SUPERVISOR))])

    serving: list[int] = []

    def slow_status() -> dict[str, Any]:
        serving.append(threading.get_ident())
        release.wait(5)
        return {"state": "slow"}

    commands = control_commands(lambda e, done: None, slow_status)
    server = ControlServer(tmp_path / "c.sock", auth, commands, max_connections=2)
    server.start()
    try:
        slow = [threading.Thread(target=request, args=(server.path, SUPERVISOR, "status")) for _ in range(2)]
        for thread in slow:
            thread.start()
        # Busy: both connections have read their request and are being served (none idle).
        wait_until(lambda: server.stats.connections >= 2 and len(serving) >= 2, 5,
                   "both slow requests being served", poll=0.01, detail=server.stats.as_dict)
        assert request(server.path, SUPERVISOR, "status")["error"].startswith("busy")
        release.set()
        for thread in slow:
            thread.join(5)
        assert server.stats.refused_busy == 1
    finally:
        release.set()
        server.stop()
