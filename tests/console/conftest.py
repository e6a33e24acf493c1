"""A station with its dealer's console, for the console's tests: ``station run`` in a real
subprocess against simulators in the test's process (tests/service/conftest.py's external
table), with the console enabled on a free port and three people who sign in with PINs: dee
and dan (dealers), sue (supervisor); the control socket's dana and sam keep their tokens. The
test plays the shoe (it slides the cards out of the simulated shoe), so it sets the pace;
people act through the console, over HTTP or in a real browser."""

from __future__ import annotations

import http.cookiejar
import json
import socket
import ssl
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from station.config.pins import hash_pin

from ..service.conftest import ExternalTable
from ..waiting import tail, wait_until

PINS = {"dee": "1234", "dan": "2222", "sue": "5678"}
ROLES = {"dee": "dealer", "dan": "dealer", "sue": "supervisor"}
_HASHES: dict[str, str] = {}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def users_section() -> str:
    if not _HASHES:
        _HASHES.update({name: hash_pin(pin) for name, pin in PINS.items()})
    return "".join(f'\n[[control.users]]\nname = "{name}"\nrole = "{ROLES[name]}"\npin_scrypt = "{_HASHES[name]}"\n'
                   for name in PINS)


class ConsoleTable(ExternalTable):
    """The external table with its console (``url``) and console users."""

    def __init__(self, directory: Path, *, console_extra: str = "", **options: Any) -> None:
        self.console_port = free_port()
        self.console_extra = console_extra
        self.console_scheme = "http"
        super().__init__(directory, **options)

    def _config_text(self, variant: str, style: str, boxes: int, players_per_box: int) -> str:
        text = super()._config_text(variant, style, boxes, players_per_box)
        # A 20.00 chip: under commission a Banker bet is a multiple of 20 smallest chips (5.12).
        text = text.replace("chips = [100, 500, 1000, 2500]", "chips = [100, 500, 1000, 2000, 2500]")
        return text + users_section() + f"""
[console]
enabled = true
port = {self.console_port}
{self.console_extra}
"""

    def start_station(self, timeout: float = 30.0) -> None:
        """Start, and wait until the console answers too (it starts after the control socket)."""
        super().start_station(timeout)

        def healthy() -> bool:
            context = ssl._create_unverified_context()  # the console's own test certificate
            with urllib.request.urlopen(self.url + "healthz", timeout=2, context=context) as response:
                return bool(response.status == 200)

        wait_until(healthy, timeout, f"the console to answer at {self.url}healthz", poll=0.05, ignoring=(OSError,),
                   detail=lambda: tail(self.log))

    @property
    def url(self) -> str:
        return f"{self.console_scheme}://127.0.0.1:{self.console_port}/"

    def client(self) -> ConsoleClient:
        return ConsoleClient(self.url)


class ConsoleClient:
    """One screen's HTTP client: its own cookies, the CSRF token it was given."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = ""

    def call(self, path: str, body: Any = None, *, csrf: bool = True, headers: dict[str, str] | None = None,
             timeout: float = 30.0) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url.rstrip("/") + path, data=data, method="POST" if data else "GET")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if csrf and self.csrf:
            request.add_header("X-CSRF-Token", self.csrf)
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with self.opener.open(request, timeout=timeout) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def sign_in(self, name: str, pin: str | None = None) -> tuple[int, Any]:
        status, body = self.call("/api/sign-in", {"name": name, "pin": PINS[name] if pin is None else pin})
        if status == 200:
            self.csrf = body["csrf"]
        return status, body

    def command(self, command: str, **args: Any) -> tuple[int, Any]:
        return self.call("/api/command", {"command": command, "args": args})

    def view(self, since: int = 0) -> dict[str, Any]:
        status, body = self.call(f"/api/view?since={since}")
        assert status == 200, body
        return dict(body["view"])


@pytest.fixture
def console_table(tmp_path: Path) -> Iterator[Callable[..., ConsoleTable]]:
    tables: list[ConsoleTable] = []

    def make(**options: Any) -> ConsoleTable:
        directory = tmp_path / f"table{len(tables)}"
        directory.mkdir()
        table = ConsoleTable(directory, **options)
        tables.append(table)
        return table

    yield make
    for table in tables:
        table.close()
