"""An external table for end-to-end tests: simulators in the test process, ``station run`` in
a real subprocess.

The simulated shoe, display board and serial button box run here, each on its own
pseudo-terminal; the station is started as a separate process with a configuration that
names those pty paths, exactly as a technician would point a station at simulators it did
not start (``station simulate``). The test then plays the dealer: it slides cards out of the
simulated shoe, presses the simulated buttons, and places bets and screen actions through
the control socket with a dealer's token. What the display received is read from the display
simulator; what happened is read from the journal.
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.simulators import CUT_CARD, RunningSimulator, shuffled_shoe, start_simulator
from station.service.control import ControlError, request

from ..small_disk import small_disk_in
from ..station_run import control_section, start_station_run
from ..waiting import tail, wait_until

DEALER_TOKEN = "dealer-token-for-tests"
SUPERVISOR_TOKEN = "supervisor-token-for-tests"
BUTTONS = {"deal": 1, "confirm": 2, "cancel": 3, "call": 4}
WAR_DECISION = re.compile(r"^box (\d+): (\S+) goes to war")


class StationStalled(AssertionError):
    """The station did not move when the test expected it to."""


class ExternalTable:
    def __init__(self, directory: Path, *, game: str = "baccarat", variant: str = "mini", decks: int = 8,
                 dealing_style: str = "A", boxes: int = 7, seed: int = 7,
                 bets: dict[str, int] | None = None, players_per_box: int = 3, web_port: int = 0,
                 table_extra: str = "", protocol_version: int | None = None,
                 display_options: dict[str, Any] | None = None, config_extra: str = "") -> None:
        self.directory = directory
        self.game = game
        self.decks = decks
        self.seed = seed
        default_bets = {"war": 1000, "tie": 500} if game == "war" else {"banker": 2000, "player": 1000}
        self.bets = bets if bets is not None else default_bets
        # Every device speaks protocol_version (the current one when None), as devices built to
        # that version of their documents do.
        version = {"directory": str(directory), "protocol_version": protocol_version}
        self.shoe: RunningSimulator = start_simulator("shoe", version)
        self.display: RunningSimulator = start_simulator("display", version, **(display_options or {}))
        self.buttons: RunningSimulator = start_simulator("buttonbox", version)
        self.socket = directory / "control.sock"
        self.journal = directory / "journal.sqlite3"
        self.config = directory / "station.toml"
        self.web_port = web_port
        self.table_extra = table_extra  # more [table] keys, one per line
        self.config_extra = config_extra  # more sections, at the end
        self.config.write_text(self._config_text(variant, dealing_style, boxes, players_per_box))
        self.process: subprocess.Popen[bytes] | None = None
        self.shoes_loaded = 0
        self.steps = 0
        self.log = directory / "station.log"

    def _config_text(self, variant: str, style: str, boxes: int, players_per_box: int) -> str:
        return f"""
[station]
name = "E2E {self.game} {variant}"
journal = "{self.journal}"
log_format = "json"

[table]
game = "{self.game}"
variant = "{variant}"
boxes = {boxes}
players_per_box = {players_per_box}
decks = {self.decks}
dealing_style = "{style}"
min_bet = 500
max_bet = 100000
chips = [100, 500, 1000, 2500]
{self.table_extra}

[devices.shoe]
url = "{self.shoe.url}"
[devices.display]
url = "{self.display.url}"
[devices.buttonbox]
url = "{self.buttons.url}"

[dealer]
simulated = false
[dealer.buttons]
deal = "no_more_bets"
confirm = "reveal"
cancel = "next_round"
call = "call_supervisor"

[web]
enabled = {"true" if self.web_port else "false"}
port = {self.web_port or 8080}

""" + control_section(self.socket, DEALER_TOKEN, SUPERVISOR_TOKEN) + self.config_extra

    # --- the station process -----------------------------------------------------------------

    def start_station(self, timeout: float = 30.0) -> None:
        process = self.process = start_station_run(self.config, self.directory, self.log)

        def started() -> bool:
            if process.poll() is not None:  # an AssertionError ends the wait at once
                raise AssertionError(f"station exited with {process.returncode}:\n{tail(self.log)}")
            return bool(self.status()["state"] != "starting")

        wait_until(started, timeout, "the station to answer on its control socket, past starting", poll=0.05,
                   ignoring=(ControlError,),
                   detail=lambda: tail(self.log) or f"({self.log.name} is empty: the station has written nothing yet)")

    def stop_station(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int:
        assert self.process is not None
        self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            dumped_from = self.log.stat().st_size
            self.process.send_signal(signal.SIGUSR1)  # the station dumps its threads' stacks
            self._wait_for_stack_dump(dumped_from)
            self.process.kill()
            self.process.wait(10)
            raise AssertionError(f"station did not stop:\n{self.log.read_text()[-6000:]}") from None
        self.process = None
        return code

    def _wait_for_stack_dump(self, offset: int, timeout: float = 10.0) -> None:
        """Until the stacks a SIGUSR1 asked for are in the log past ``offset`` and the log has
        stopped growing (the whole dump written), or the station has gone; a station too stuck
        to dump within ``timeout`` is killed all the same, its log saying so."""
        process, sizes = self.process, []

        def dumped() -> bool:
            if process is None or process.poll() is not None:
                return True
            written = self.log.read_bytes()[offset:]
            sizes.append(len(written))
            return b"(most recent call first)" in written and sizes[-2:] == [len(written)] * 2

        with contextlib.suppress(AssertionError):
            wait_until(dumped, timeout, "the station's stack dump", poll=0.1)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        for sim in (self.shoe, self.display, self.buttons):
            sim.stop()

    # --- control socket ----------------------------------------------------------------------

    def ctl(self, command: str, args: dict[str, Any] | None = None, token: str = DEALER_TOKEN) -> Any:
        reply = request(self.socket, token, command, args or {})
        if not reply.get("ok"):
            raise ControlError(str(reply.get("error")))
        return reply.get("result")

    def status(self) -> dict[str, Any]:
        return dict(self.ctl("status"))

    def wait_change(self, before: tuple[str, str], timeout: float = 15.0) -> dict[str, Any]:
        def changed() -> dict[str, Any] | None:
            status = self.status()
            return status if (status["state"], status["expecting"]) != before else None

        return self._wait_status(changed, timeout, f"the station to move on from {before}",
                                 detail=lambda: tail(self.log))

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15.0) -> dict[str, Any]:
        last: list[dict[str, Any]] = []

        def met() -> dict[str, Any] | None:
            last[:] = [self.status()]
            return last[0] if predicate(last[0]) else None

        return self._wait_status(met, timeout, "the station's status to meet the condition", poll=0.01,
                                 detail=lambda: f"last status {last[0] if last else None}")

    @staticmethod
    def _wait_status(until: Callable[[], dict[str, Any] | None], timeout: float, what: str, *, poll: float = 0.003,
                     detail: Callable[[], object]) -> dict[str, Any]:
        """:func:`wait_until` for a status, a station that does not get there raised as
        :class:`StationStalled`."""
        try:
            return wait_until(until, timeout, what, poll=poll, detail=detail)
        except AssertionError as exc:
            raise StationStalled(str(exc)) from None

    # --- the dealer --------------------------------------------------------------------------

    def press(self, button: str) -> None:
        self.buttons.simulator.press(BUTTONS[button])

    def draw(self) -> int:
        """Slide the next card out of the simulated shoe (the cutting card and the card behind
        it, when the cutting card comes): how many frames the shoe sent."""
        if self.shoe.simulator.draw() is CUT_CARD:
            self.shoe.simulator.draw()
            return 2
        return 1

    def act(self, status: dict[str, Any]) -> None:
        """One dealer action for the state the station reports."""
        state, expecting = status["state"], status["expecting"]
        self.steps += 1
        if state == "shuffling":
            self.shoes_loaded += 1
            size = 52 * self.decks
            self.shoe.simulator.load(shuffled_shoe(self.decks, self.seed * 100 + self.shoes_loaded, size - 15))
            self.ctl("action", {"action": "shuffle_done"})
        elif state == "cutting":
            self.ctl("action", {"action": "confirm_cut"})
        elif state in ("burning", "dealing", "war_burning", "war_dealing"):
            self.draw()
        elif state == "betting":
            self.place_bets()
            self.press("deal")
        elif state == "revealing":
            self.press("confirm")
        elif state == "war_decision":
            match = WAR_DECISION.match(expecting)
            assert match, expecting
            self.ctl("action", {"action": "war", "box": match[1], "player": match[2]})
        elif state == "paying":
            self.press("cancel")
        else:
            raise AssertionError(f"the test dealer has nothing to do in {state!r}: {expecting}")

    def place_bets(self) -> None:
        for region, amount in self.bets.items():
            try:
                self.ctl("bet", {"box": "1", "player": "P1", "region": region, "amount": amount})
            except ControlError:
                raise

    def step(self) -> dict[str, Any]:
        status = self.status()
        self.act(status)
        return self.wait_change((status["state"], status["expecting"]))

    def play_until(self, done: Callable[[dict[str, Any]], bool], max_steps: int = 5000) -> dict[str, Any]:
        status = self.status()
        for _ in range(max_steps):
            if done(status):
                return status
            self.act(status)
            status = self.wait_change((status["state"], status["expecting"]))
        raise AssertionError(f"not done after {max_steps} steps; status {status}")

    # --- what happened -----------------------------------------------------------------------

    def journal_records(self) -> list[dict[str, Any]]:
        out = subprocess.run(
            [sys.executable, "-m", "station", "journal", "export", "--format", "jsonl", "--journal", str(self.journal)],
            capture_output=True, text=True, check=True, timeout=60,
        ).stdout
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    def display_received(self, kind: str) -> list[Any]:
        return [m for m in self.display.simulator.received if type(m).__name__ == kind]


@pytest.fixture
def external_table(tmp_path: Path) -> Iterator[Callable[..., ExternalTable]]:
    tables: list[ExternalTable] = []

    def make(**options: Any) -> ExternalTable:
        directory = tmp_path / f"table{len(tables)}"
        directory.mkdir()
        table = ExternalTable(directory, **options)
        tables.append(table)
        return table

    yield make
    for table in tables:
        table.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB file system for a journal to fill (root only: skipped elsewhere)."""
    with small_disk_in(tmp_path) as mount:
        yield mount
