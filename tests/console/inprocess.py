"""The console's server in the test's own process (no station, no subprocess): a
:class:`ConsoleApp` on an asyncio loop of its own thread, with console users, a stand-in
station that records each request line it is sent and answers as told, and a stand-in
recall; and :class:`Screen`, one screen's HTTP client whose cookie and token the test holds
in its hands (to hand a copy to someone else, or send from another address)."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any

from station.config.pins import hash_pin
from station.console.server import COOKIE, ConsoleApp
from station.console.sessions import User
from station.web.shutout import ShutoutRules

PINS = {"dee": "1234", "sue": "5678", "sam": "2468"}
ROLES = {"dee": "dealer", "sue": "supervisor", "sam": "supervisor"}
_HASHES: dict[str, str] = {}


class Clock:
    """The console's clock, turned by the test (its sessions and turns run on it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Station:
    """What the console sends on: (who, request line) for each request; answers ``reply``."""

    reply: dict[str, Any] = field(default_factory=lambda: {"ok": True})
    asked: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    recalled: list[tuple[int, str]] = field(default_factory=list)

    async def ask(self, who: str, line: bytes) -> dict[str, Any]:
        self.asked.append((who, json.loads(line)))
        return dict(self.reply)

    async def recall(self, last: int, round_id: str) -> dict[str, Any]:
        self.recalled.append((last, round_id))
        return {"ok": True, "rounds": [], "message": "no rounds yet"}


class RunningConsole:
    """A :class:`ConsoleApp` serving on 127.0.0.1 (a free port) from a thread of its own."""

    def __init__(self, rules: ShutoutRules | None = None) -> None:
        if not _HASHES:
            _HASHES.update({name: hash_pin(pin) for name, pin in PINS.items()})
        self.clock = Clock()
        self.station = Station()
        self.loop = asyncio.new_event_loop()
        users = [User(name, ROLES[name], _HASHES[name]) for name in PINS]
        self.app = ConsoleApp("127.0.0.1", 0, users, self.station.ask, recall=self.station.recall,
                              clock=self.clock, shutout=rules or ShutoutRules(after=1000))
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

    def publish(self, picture: dict[str, Any]) -> None:
        """A new picture of the table, as the station would send it."""
        self.loop.call_soon_threadsafe(self.app.publish, json.dumps(picture).encode())

    def screen(self, source: str = "127.0.0.1") -> Screen:
        return Screen(self.port, source)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.app.close_now)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@contextlib.contextmanager
def running_console(rules: ShutoutRules | None = None) -> Iterator[RunningConsole]:
    console = RunningConsole(rules)
    try:
        yield console
    finally:
        console.stop()


class Screen:
    """One screen (or whoever copied its cookie): keeps the cookie the console sets and the
    CSRF token of the last session it was told of, and sends them as a browser would."""

    def __init__(self, port: int, source: str = "127.0.0.1", cookie: str = "", csrf: str = "") -> None:
        self.port, self.source = port, source
        self.cookie, self.csrf = cookie, csrf
        self.session: dict[str, Any] = {}

    def copy(self, source: str) -> Screen:
        """Someone else holding this screen's cookie and token, asking from ``source``."""
        return Screen(self.port, source, self.cookie, self.csrf)

    def raw(self, method: str, path: str, body: bytes | None = None, *, csrf: bool = True,
            headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """One request; the status and the answer's JSON (None when it is not JSON)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30,
                                                source_address=(self.source, 0))
        sent = dict(headers or {})
        if self.cookie:
            sent["Cookie"] = f"{COOKIE}={self.cookie}"
        if body is not None:
            sent.setdefault("Content-Type", "application/json")
        if csrf and self.csrf:
            sent["X-CSRF-Token"] = self.csrf
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            data = response.read()
            for header in response.headers.get_all("Set-Cookie") or []:
                morsel = SimpleCookie(header).get(COOKIE)
                if morsel is not None:
                    self.cookie = morsel.value
        finally:
            connection.close()
        try:
            answer = json.loads(data)
        except ValueError:
            answer = None
        session = answer.get("session", answer) if isinstance(answer, dict) else None
        if isinstance(session, dict) and session.get("signed_in"):
            self.session, self.csrf = session, str(session["csrf"])
        return response.status, answer

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        return self.raw("POST", path, json.dumps(body).encode())

    def get(self, path: str) -> tuple[int, Any]:
        return self.raw("GET", path)

    def sign_in(self, name: str, pin: str | None = None) -> tuple[int, Any]:
        return self.post("/api/sign-in", {"name": name, "pin": PINS[name] if pin is None else pin})

    def command(self, command: str, **args: Any) -> tuple[int, Any]:
        return self.post("/api/command", {"command": command, "args": args})

    def sign_out(self) -> tuple[int, Any]:
        return self.post("/api/sign-out", {})
