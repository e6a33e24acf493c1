"""The console's server against a flood, in this process, with rules short enough to watch.

The address that keeps being refused stops being heard (its SYNs are dropped by the kernel),
another is served, and when its time is up the timer lets it in again although no connection
of it could come to ask. One address holds a quarter of the places at most: the rest stay for
the dealer's screen, and its answers past that share count as refusals, so it is shut out
as soon. (tests/console/test_console_security.py does the same against a real station.)
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from station.console.server import ConsoleApp
from station.web.guard import Limits
from station.web.shutout import ShutoutRules
from tests.waiting import wait_until

from .asking import ask_from

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="socket filters are Linux's")

async def _no_station(user: str, line: bytes) -> dict[str, Any]:
    raise AssertionError("a refused request never reaches the station")


class _Console:
    """A :class:`ConsoleApp` on a loop of its own thread."""

    def __init__(self, rules: ShutoutRules, limits: Limits | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.app = ConsoleApp("127.0.0.1", 0, [], _no_station, shutout=rules, limits=limits)
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.app.start())
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.wait(30), "the console did not start"
        self.port = self.app.address[1]

    def ask(self, source: str, path: str) -> int | None:
        return ask_from(source, self.port, path)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.app.close_now)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@contextlib.contextmanager
def console(rules: ShutoutRules, limits: Limits | None = None) -> Iterator[_Console]:
    running = _Console(rules, limits)
    try:
        yield running
    finally:
        running.stop()


def test_the_console_stops_hearing_an_address_it_shut_out_until_its_time_is_up() -> None:
    with console(ShutoutRules(after=3, window_s=10.0, shut_s=1.0)) as table:
        assert [table.ask("127.0.0.2", "/api/view") for _ in range(3)] == [401, 401, 401]
        door = table.app.source_filter
        assert door is not None and door.dropping == {"127.0.0.2"}
        assert table.ask("127.0.0.2", "/healthz") is None, "no longer heard"
        assert table.app.shutout.closed == 0, "nothing of it reached the server to be closed"
        assert table.ask("127.0.0.3", "/healthz") == 200, "another address is"
        wait_until(lambda: door.dropping == frozenset(), 30, "the timer to end the shut-out")
        assert table.ask("127.0.0.2", "/healthz") == 200, "let in again"
        assert table.app.shutout.shut_outs == 1


def test_one_address_holds_its_share_of_the_places_and_no_more() -> None:
    limits = Limits(max_connections=8, max_per_address=2, header_timeout=120.0)
    with console(ShutoutRules(after=4, window_s=60.0, shut_s=60.0), limits) as table:
        silent = []
        for _ in range(limits.max_per_address):  # connected, and never a byte sent: each holds a place
            sock = socket.socket()
            sock.settimeout(30)
            sock.bind(("127.0.0.2", 0))
            sock.connect(("127.0.0.1", table.port))
            silent.append(sock)
        wait_until(lambda: table.app.counters.by_address["127.0.0.2"] == 2, 30, "both places taken")
        assert table.ask("127.0.0.2", "/healthz") == 503, "past its share"
        assert table.ask("127.0.0.3", "/healthz") == 200, "the others' places are free"
        assert [table.ask("127.0.0.2", "/healthz") for _ in range(3)] == [503, 503, 503]
        assert table.app.shutout.is_shut("127.0.0.2"), "four answers past its share shut it out"
        wait_until(lambda: all(s.recv(1) == b"" for s in silent), 30, "its open connections closed")
        assert table.app.counters.by_address["127.0.0.2"] == 0
        assert table.ask("127.0.0.2", "/healthz") is None
        for sock in silent:
            sock.close()
