"""A real ``station run`` with its shoe and shuffler simulated in the test's process (ptys),
played from the dealer's side through the control socket: what the integrity tests of the
shuffler's side of the wire share."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drivers.simulators import CardPool, start_simulator
from station.cards import Card
from station.journal import JournalReader
from station.service.control import ControlError, request

from ..station_run import control_section, start_station_run
from ..waiting import tail, wait_until

DEALER, SUPERVISOR = "dealer-token-integrity", "supervisor-token-integrity"


class Station:
    """A real ``station run`` whose shoe and shuffler are simulated in this process on ptys,
    driven from the dealer's side through the control socket. ``equipment`` is the shuffler's
    mode: ``continuous`` (the shoe deals from its pool) or ``batch`` (the set is loaded by the
    test: :meth:`shuffle_set`, :meth:`fill_shoe`). ``extra`` is appended to its configuration
    (a [floor] section, more users)."""

    def __init__(self, directory: Path, equipment: str = "continuous", extra: str = "") -> None:
        self.directory = directory
        self.pool = CardPool.of_decks(6, seed=3)
        self.shuffler = start_simulator("shuffler", mode=equipment, decks=6,
                                        pool=self.pool if equipment == "continuous" else None,
                                        directory=str(directory))
        self.shoe = start_simulator("shoe", directory=str(directory))
        if equipment == "continuous":
            self.shoe.simulator.attach_pool(self.pool)
        self.socket = directory / "control.sock"
        config = directory / "station.toml"
        config.write_text(f"""
[station]
name = "integrity e2e"
journal = "{directory / 'journal.sqlite3'}"
log_format = "json"
[table]
decks = 6
equipment = "{equipment}"
min_bet = 500
max_bet = 100000
chips = [100, 500, 1000]
[devices.shoe]
url = "{self.shoe.url}"
[devices.shuffler]
url = "{self.shuffler.url}"
""" + control_section(self.socket, DEALER, SUPERVISOR) + extra)
        self.log = directory / "station.log"
        self.process = start_station_run(config, directory, self.log)

    def ctl(self, command: str, args: dict[str, Any] | None = None, token: str = DEALER) -> Any:
        reply = request(self.socket, token, command, args or {})
        if not reply.get("ok"):
            raise ControlError(str(reply.get("error")))
        return reply.get("result")

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 30.0) -> dict[str, Any]:
        last: list[dict[str, Any]] = []

        def reached() -> dict[str, Any] | None:
            last[:] = [self.ctl("status")]
            return last[0] if predicate(last[0]) else None

        return wait_until(reached, timeout, "the station's status to meet the condition", ignoring=(ControlError,),
                          detail=lambda: f"last status {last[0] if last else {}}\n{tail(self.log)}")

    def play_round(self) -> list[Any]:
        """No more bets, then slide out cards until the round is dealt; returns what came out
        of the shoe (the cut card included, which the dealer sets aside)."""
        self.ctl("action", {"action": "no_more_bets"})
        self.wait_for(lambda s: s["state"] == "dealing")
        return self.deal_while(("dealing",))

    def cards_journaled(self, kind: str = "CardDrawn") -> int:
        """The cards the station has journaled so far (each card it was sent, taken or not);
        ``kind="CutCardSeen"``: the cut cards."""
        with JournalReader(self.directory / "journal.sqlite3") as reader:
            return sum(1 for record in reader.records() if record.kind == kind)

    def deal_while(self, states: tuple[str, ...]) -> list[Any]:
        """Slide cards out of the shoe, one at a time, while the table is in ``states``,
        waiting for the station to take each card before the next: the card itself in the
        journal, and then the table moved on from it (a change of the table for another
        reason, a shuffler's report say, is not taken for the card)."""
        out: list[Any] = []
        while True:
            before = self.ctl("status")
            if before["state"] not in states:
                return out
            seen = (before["state"], before["expecting"], before.get("round"))
            journaled = self.cards_journaled()
            cuts = self.cards_journaled("CutCardSeen")
            item = self.shoe.simulator.draw()
            out.append(item)
            if not isinstance(item, Card):
                # The cut card: the dealer sets it aside, the station takes it, the next card follows.
                def cut_taken(cuts: int = cuts) -> bool:
                    return self.cards_journaled("CutCardSeen") > cuts

                wait_until(cut_taken, 30, "the cut card journaled", detail=lambda: tail(self.log))
                continue

            def taken(journaled: int = journaled) -> bool:
                return self.cards_journaled() > journaled

            wait_until(taken, 30, "the card journaled", detail=lambda: tail(self.log))

            def moved(s: dict[str, Any], seen: tuple[Any, ...] = seen) -> bool:
                return (s["state"], s["expecting"], s.get("round")) != seen

            self.wait_for(moved)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.shoe.stop()
        self.shuffler.stop()
