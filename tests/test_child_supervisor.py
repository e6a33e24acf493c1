"""The one supervisor of the station's children, with real child processes over a real socket
pair: the hello, a refusal, a slow start, the newest state, a child that ends on its own and is
started again with the newest state, and a child that will not stop.

The child here is a small Python program that speaks the children's wire
(:mod:`station.child_process`); its behaviour is chosen on its command line. The web scoreboard,
the console and the floor outbox are tested on the same supervisor in their own packages.
"""

from __future__ import annotations

import errno
import sys
import threading
from typing import Any

import pytest

from station.child_links import FramedSocket, Launched, spawn_with_socket
from station.child_supervisor import ChildSpec, ChildStartError, ChildSupervisor, Restarts, Words

from .waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

#: The child: ``fd mode``. Modes: ``serve`` (hello, echo each state as ``E``, ``X`` ends it
#: with status 3, quit ends it), ``refuse`` (a hello that says the port is in use), ``mute``
#: (never says hello), ``stubborn`` (serves, but ignores quit and the end of its feed).
CHILD = r"""
import json, os, signal, socket, struct, sys
HEADER = struct.Struct(">cI")
sock = socket.socket(fileno=int(sys.argv[1]))
mode = sys.argv[2]
def send(kind, data):
    sock.sendall(HEADER.pack(kind, len(data)) + data)
if mode == "mute":  # says nothing until it is stopped
    signal.pause()
    sys.exit(0)
if mode == "refuse":
    send(b"H", json.dumps({"error": "port 8080 in use", "errno": 98}).encode())
    sys.exit(1)
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
send(b"H", json.dumps({"ready": f"http://127.0.0.1/{os.getpid()}"}).encode())
buffer = b""
while True:
    chunk = sock.recv(65536)
    if not chunk:
        if mode == "stubborn":  # deaf to SIGTERM: only a SIGKILL ends it
            signal.pause()
        sys.exit(0)
    buffer += chunk
    while len(buffer) >= HEADER.size:
        kind, size = HEADER.unpack_from(buffer)
        if len(buffer) < HEADER.size + size:
            break
        data, buffer = buffer[HEADER.size:HEADER.size + size], buffer[HEADER.size + size:]
        if kind == b"Q" and mode != "stubborn":
            sys.exit(0)
        if kind == b"X":
            sys.exit(3)
        if kind == b"S":
            send(b"E", data)
"""


class Recorded:
    """A log that keeps every line (event, level, fields), as the supervisor writes them."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def _keep(self, level: str, event: str, fields: dict[str, Any]) -> None:
        with self._lock:
            self.lines.append((level, event, fields))

    def info(self, event: str, **fields: Any) -> None:
        self._keep("info", event, fields)

    def warning(self, event: str, **fields: Any) -> None:
        self._keep("warning", event, fields)

    def error(self, event: str, **fields: Any) -> None:
        self._keep("error", event, fields)

    def exception(self, event: str, **fields: Any) -> None:
        self._keep("exception", event, fields)

    def events(self, name: str) -> list[dict[str, Any]]:
        with self._lock:
            return [fields for _, event, fields in self.lines if event == name]


WORDS = Words(started="child_started", ended="child_ended", start_failed="child_start_failed",
              restarted="child_restarted", slow_to_start="child_slow_to_start", killed="child_killed")


def supervisor(modes: str, log: Recorded, echoed: list[bytes], **spec: Any) -> ChildSupervisor[FramedSocket]:
    """A supervisor of the test child; ``modes`` (comma-separated) are the modes of its first
    launches, the last one for every launch after."""
    chosen = modes.split(",")
    launches = 0

    def launch() -> Launched[FramedSocket]:
        nonlocal launches
        mode = chosen[min(launches, len(chosen) - 1)]
        launches += 1
        return spawn_with_socket(lambda fd: [sys.executable, "-c", CHILD, str(fd), mode])

    def heard(kind: bytes, data: bytes) -> None:
        if kind == b"E":
            echoed.append(data)

    return ChildSupervisor(ChildSpec(name="test-child", title="the test child", launch=launch, log=log,
                                     words=WORDS, state_kind=b"S", on_message=heard,
                                     restarts=Restarts(every_s=0.2), **spec))


def test_a_child_is_started_fed_its_newest_state_and_stopped_in_order() -> None:
    log, echoed = Recorded(), list[bytes]()
    child = supervisor("serve", log, echoed).start(wait=True)
    try:
        assert child.running and child.url.startswith("http://127.0.0.1/") and child.pid is not None
        assert log.events("child_started")[0]["pid"] == child.pid
        for n in range(50):  # offered faster than sent: only states not yet overtaken go out
            child.offer(b"state %d" % n)
        wait_until(lambda: echoed and echoed[-1] == b"state 49", 30, "the newest state at the child")
        assert len(echoed) <= 50 and echoed == sorted(echoed, key=lambda data: int(data.split()[1]))
        pid = child.pid
    finally:
        child.stop(timeout=10)
    assert not child.running and child.pid is None
    assert log.events("child_ended") == [] and log.events("child_killed") == []  # it left when told
    assert pid is not None


def test_a_child_that_ends_on_its_own_is_started_again_and_given_the_newest_state() -> None:
    log, echoed = Recorded(), list[bytes]()
    child = supervisor("serve", log, echoed).start(wait=True)
    try:
        child.offer(b"state 1")
        wait_until(lambda: b"state 1" in echoed, 30, "the first state at the child")
        first = child.pid
        assert child.send(b"X", b"")  # the child ends with status 3
        wait_until(lambda: log.events("child_restarted"), 60, "the child started again")
        ended = log.events("child_ended")
        assert len(ended) == 1 and ended[0]["pid"] == first and ended[0]["status"] == 3
        assert child.restarts == 1 and child.pid != first
        wait_until(lambda: echoed.count(b"state 1") == 2, 30, "the newest state at the new child")
    finally:
        child.stop(timeout=10)


def test_a_child_that_refuses_to_start_is_an_error_with_its_errno_and_leaves_nothing_running() -> None:
    log, echoed = Recorded(), list[bytes]()
    child = supervisor("refuse", log, echoed)
    with pytest.raises(ChildStartError) as refused:
        child.start(wait=True)
    assert refused.value.errno == errno.EADDRINUSE and "port 8080 in use" in str(refused.value)
    assert not child.running and child.pid is None
    child.stop(timeout=5)


def test_a_child_slow_to_answer_does_not_hold_the_start_up_and_is_started_again() -> None:
    log, echoed = Recorded(), list[bytes]()
    child = supervisor("mute,serve", log, echoed, start_timeout_s=1.0).start(wait=True)
    try:
        slow = log.events("child_slow_to_start")
        assert len(slow) == 1 and "no answer within 1 s" in slow[0]["error"]
        assert child.wait_up(60), "the child was started again in the background"
        assert child.running and log.events("child_restarted")
    finally:
        child.stop(timeout=10)


def test_a_child_that_will_not_stop_is_killed_and_that_is_logged() -> None:
    log, echoed = Recorded(), list[bytes]()
    child = supervisor("stubborn", log, echoed, stop_timeout_s=0.5).start(wait=True)
    pid = child.pid
    child.stop()
    killed = log.events("child_killed")
    assert len(killed) == 1 and killed[0]["pid"] == pid
    assert not child.running
