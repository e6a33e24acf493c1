"""Card to board: from the write of a round's last card frame to the board's read of its result.

Run: ``.venv/bin/python bench/card_to_board.py [--rounds 1000]``

The whole path of a result, as at a table:

* the shoe (a simulator in this process) writes each card frame to its pseudo-terminal in
  one write; the clock starts just before the write of the round's last card;
* ``station run`` (a real subprocess, its journal durable: WAL, ``synchronous=FULL``, one
  fsync per batch) reads it, journals it, applies it, and its publisher sends ``ShowResult``;
* the results board (the display simulator, in a process of its own as a board is another
  machine) reads the frame from its pseudo-terminal and decodes it; the clock stops there
  (``perf_counter_ns`` is CLOCK_MONOTONIC, the same clock in every process).

The dealer (this script) plays Dealing Style A with no bets: it presses "no more bets" on the
serial button box, slides out exactly the cards the third-card rules call for (worked out
from the stacked shoe with the real engine), one every few milliseconds, waits for the result
on the board, and presses "next round". Shoes are loaded, cut and burned as the station asks.
The rounds of the first shoe's first 5 are not counted (warm-up).

Prints p50/p99/max over ``--rounds`` rounds. Asserts nothing (target: p99 < 5 ms on the 2-core
machine; the wire time of a 30-byte frame at 115,200 baud is 2.6 ms on a real line, 0 on a
pty, and one fsync about 0.5 ms).
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import structlog

REPO = Path(__file__).resolve().parents[1]
DEALER_TOKEN = "card-to-board-dealer"
BUTTONS = {"deal": 1, "confirm": 2, "cancel": 3}
WARM_UP = 5


def _board_process(conn: Connection, directory: str) -> None:
    """The results board: reports (round number, read time) for every ShowResult it reads."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    from drivers.codec import display as wire
    from drivers.simulators import start_simulator

    running = start_simulator("display", directory=directory)
    board = running.simulator

    def shown(message: Any) -> None:
        if isinstance(message, wire.ShowResult):
            conn.send((message.round_no, time.perf_counter_ns()))

    board.on_shown = shown
    conn.send(running.url)
    conn.recv()  # told to stop
    running.stop()


def _config(directory: Path, shoe: str, display: str, buttons: str) -> Path:
    from station.service.control import hash_token

    config = directory / "station.toml"
    config.write_text(f"""
[station]
name = "Card to board"
journal = "{directory / 'journal.sqlite3'}"
log_format = "json"
log_level = "warning"

[table]
decks = 8
dealing_style = "A"

[devices.shoe]
url = "{shoe}"
[devices.display]
url = "{display}"
[devices.buttonbox]
url = "{buttons}"

[dealer]
simulated = false
[dealer.buttons]
deal = "no_more_bets"
confirm = "reveal"
cancel = "next_round"

[control]
socket = "{directory / 'control.sock'}"
[[control.users]]
name = "bench"
role = "dealer"
token_sha256 = "{hash_token(DEALER_TOKEN)}"
""")
    return config


class Dealer:
    def __init__(self, directory: Path, shoe: Any, buttons: Any) -> None:
        self.socket = directory / "control.sock"
        self.shoe = shoe
        self.buttons = buttons
        self.shoes = 0
        self.stack: list[Any] = []  # the cards still in the shoe, in order (no cut card)

    def status(self) -> dict[str, Any]:
        from station.service.control import request

        reply = request(self.socket, DEALER_TOKEN, "status", {})
        return dict(reply["result"])

    def action(self, name: str) -> None:
        from station.service.control import request

        request(self.socket, DEALER_TOKEN, "action", {"action": name})

    def wait_change(self, before: tuple[str, str], timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.status()
            if (status["state"], status["expecting"]) != before:
                return status
            time.sleep(0.002)
        raise SystemExit(f"the station stayed at {before}")

    def draw(self, on_sent: Any = None) -> Any:
        from drivers.simulators import CUT_CARD

        item = self.shoe.draw(on_sent=on_sent)
        if item is CUT_CARD:
            item = self.shoe.draw(on_sent=on_sent)
        self.stack.pop(0)
        return item

    def load(self) -> None:
        from drivers.simulators import CUT_CARD, shuffled_shoe

        self.shoes += 1
        items = shuffled_shoe(8, 1000 + self.shoes, 8 * 52 - 15)
        self.shoe.load(items)
        self.stack = [item for item in items if item is not CUT_CARD]

    def round_cards(self) -> int:
        """How many cards the next round takes, by the real third-card rules."""
        from station.games.baccarat.rules import play_round

        cards = iter(self.stack)
        result = play_round(lambda: next(cards))
        return len(result.player) + len(result.banker)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--gap-ms", type=float, default=5.0, help="the dealer's pause between two cards")
    parser.add_argument("--dir", default=None,
                        help="where the journal goes (default: the temporary folder; /dev/shm leaves the disk out)")
    parser.add_argument("--nice", type=int, default=0,
                        help="the station's scheduling priority (the unit's Nice=; negative needs root)")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    from drivers.simulators import start_simulator

    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    context = multiprocessing.get_context("spawn")
    latencies: list[float] = []
    print(f"fsync of the journal's disk now: {_fsync_ms(args.dir)}")
    with tempfile.TemporaryDirectory(prefix="card-to-board-", dir=args.dir) as scratch:
        directory = Path(scratch)
        ours, theirs = context.Pipe()
        board_process = context.Process(target=_board_process, args=(theirs, str(directory)), daemon=True)
        board_process.start()
        display_url = ours.recv()
        shoe = start_simulator("shoe", directory=str(directory))
        buttons = start_simulator("buttonbox", directory=str(directory))
        config = _config(directory, shoe.url, display_url, buttons.url)
        env = {**os.environ, "XDG_RUNTIME_DIR": str(directory / "run"), "PYTHONUNBUFFERED": "1"}
        env.pop("STATION_JOURNAL", None)
        log = (directory / "station.log").open("w")
        nice = ["nice", "-n", str(args.nice)] if args.nice else []
        station = subprocess.Popen([*nice, sys.executable, "-m", "station", "run", "-c", str(config)],
                                   stdout=log, stderr=subprocess.STDOUT, env=env, cwd=REPO)
        dealer = Dealer(directory, shoe.simulator, buttons.simulator)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    status = dealer.status()
                    if status["state"] != "starting":
                        break
                except Exception:
                    pass
                if time.monotonic() > deadline or station.poll() is not None:
                    raise SystemExit("the station did not start:\n" + (directory / "station.log").read_text()[-3000:])
                time.sleep(0.05)
            latencies = _play(dealer, ours, args.rounds + WARM_UP, args.gap_ms / 1000, status)[WARM_UP:]
        finally:
            station.terminate()
            station.wait(30)
            ours.send("stop")
            board_process.join(10)
            shoe.stop()
            buttons.stop()
            log.close()
    ms = sorted(latencies)

    def pct(p: float) -> float:
        return ms[min(len(ms) - 1, int(p / 100 * len(ms)))]

    print(f"card to board over {len(ms)} rounds (journal synchronous=FULL, Dealing Style A, nice {args.nice}): "
          f"p50 {statistics.median(ms):.2f} ms, p99 {pct(99):.2f} ms, max {ms[-1]:.2f} ms")
    return 0


def _fsync_ms(directory: str | None, count: int = 200) -> str:
    """p50/p99 of a small write and fsync in ``directory``: what the disk costs the journal now."""
    handle, path = tempfile.mkstemp(dir=directory)
    times = []
    try:
        for _ in range(count):
            os.write(handle, b"x" * 200)
            started = time.perf_counter()
            os.fsync(handle)
            times.append((time.perf_counter() - started) * 1000)
            time.sleep(0.002)
    finally:
        os.close(handle)
        os.unlink(path)
    times.sort()
    return f"p50 {statistics.median(times):.2f} ms, p99 {times[int(0.99 * len(times))]:.2f} ms"


def _play(dealer: Dealer, board: Connection, rounds: int, gap: float, start: dict[str, Any]) -> list[float]:
    """Deal ``rounds`` rounds; each round's last-card-to-board time in ms."""
    latencies: list[float] = []
    for status in _states(dealer, start):
        state = status["state"]
        if state == "betting":
            dealer.buttons.press(BUTTONS["deal"])
            status = dealer.wait_change((state, status["expecting"]))
            cards = dealer.round_cards()
            sent: list[int] = []
            for i in range(cards):
                dealer.draw(on_sent=sent.append if i == cards - 1 else None)
                if not dealer.shoe.wait_idle(5):
                    raise SystemExit("the station did not acknowledge a card")
                if i < cards - 1:
                    time.sleep(gap)
            expected = int(status["round"].split("-")[1])
            while True:
                if not board.poll(10):
                    raise SystemExit(f"no result on the board for round {status['round']}")
                round_no, read_at = board.recv()
                if round_no == expected:
                    break
            latencies.append((read_at - sent[0]) / 1e6)
            if len(latencies) >= rounds:
                return latencies
            if len(latencies) % 100 == 0:
                print(f"  {len(latencies)} rounds", flush=True)
    return latencies


def _states(dealer: Dealer, status: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Walk the station through everything but the rounds themselves; yield when betting."""
    while True:
        state, expecting = status["state"], status["expecting"]
        if state == "betting":
            yield status
            status = dealer.status()
            while status["state"] not in ("paying", "betting", "shuffling"):
                time.sleep(0.001)
                status = dealer.status()
            if status["state"] == "paying":
                dealer.buttons.press(BUTTONS["cancel"])
                status = dealer.wait_change(("paying", status["expecting"]))
            continue
        if state == "shuffling":
            dealer.load()
            dealer.action("shuffle_done")
        elif state == "cutting":
            dealer.action("confirm_cut")
        elif state == "burning":
            dealer.draw()
        elif state == "paying":
            dealer.buttons.press(BUTTONS["cancel"])
        else:
            raise SystemExit(f"the bench dealer has nothing to do in {state!r}: {expecting}")
        status = dealer.wait_change((state, expecting))


if __name__ == "__main__":
    sys.exit(main())
