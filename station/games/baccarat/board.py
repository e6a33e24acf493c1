"""Baccarat's results board: the roads of the shoe and the last round's hands.

Built from what the table says of each round (:class:`~station.games.board.BoardRound`: the
hands, totals, outcome, natural and pairs it settled), or after a restart from the shoe's
results the table keeps (the game's own record of each result, :meth:`BaccaratPlay.result`).
Nothing here decides a hand again: the result shown is the one the table settled. A Dragon 7
or Panda 8 round is read from that result's cards (:attr:`BaccaratResult.dragon_7`), so a
record kept before the marks existed shows them too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from station.cards import Card, parse_card
from station.games.baccarat.rules import BaccaratResult, Outcome
from station.games.board import BoardRound, HandsShown
from station.roads.cells import Roads
from station.roads.results import ResultRecord
from station.roads.scoreboard import Scoreboard

#: The results the display board and the web page show at most: the latest, their roads laid out afresh
#: from the first of them. A shoe never holds that many (about 80 rounds), but a continuous
#: shuffler's never ends, and a result costs up to 12 bytes of ``ShowRoads`` (a bead cell, a big
#: road cell, three marks): after about 340 rounds the whole shoe's roads no longer fit a frame
#: (4,092 bytes), and the board was sent nothing more. 240 results fit with room to spare, and
#: are more columns than any board shows.
DISPLAY_ROUNDS = 240


class RoadsBoard:
    """Baccarat: the roads of the shoe and the last round's hands."""

    def __init__(self) -> None:
        self.scoreboard = Scoreboard()
        self.last_result: BaccaratResult | None = None
        self.last_round_no = 0

    def reset(self) -> None:
        self.scoreboard.reset()
        self.last_result = None
        self.last_round_no = 0

    def _add(self, result: BaccaratResult, round_no: int) -> None:
        self.scoreboard.add(ResultRecord.from_round(result))
        if len(self.scoreboard) > DISPLAY_ROUNDS:  # a continuous shuffler: the table keeps no more
            self.scoreboard = Scoreboard(self.scoreboard.records[-DISPLAY_ROUNDS:])
        self.last_result = result
        self.last_round_no = round_no

    def add_round(self, round_: BoardRound) -> HandsShown | None:
        hands, totals = dict(round_.hands), dict(round_.totals)
        self._add(_result(hands.get("player", ()), hands.get("banker", ()), totals.get("player", 0),
                          totals.get("banker", 0), round_.outcome, round_.natural, round_.player_pair,
                          round_.banker_pair), round_.round_no)
        return self.last_shown()

    def add_record(self, round_no: int, record: Mapping[str, Any]) -> None:
        self._add(_result([parse_card(c) for c in record.get("player", ())],
                          [parse_card(c) for c in record.get("banker", ())], record.get("player_total") or 0,
                          record.get("banker_total") or 0, str(record["outcome"]), bool(record.get("natural")),
                          bool(record.get("player_pair")), bool(record.get("banker_pair"))), round_no)

    def last_shown(self) -> HandsShown | None:
        r = self.last_result
        if r is None:
            return None
        return HandsShown(self.last_round_no, r.outcome.letter, r.player_total, r.banker_total, tuple(r.player),
                          tuple(r.banker), r.natural, r.player_pair, r.banker_pair, r.dragon_7, r.panda_8)

    def display_roads(self) -> Roads:
        """The roads for the board: the shoe's, or of its latest :data:`DISPLAY_ROUNDS` results."""
        return self.scoreboard.roads()

    def snapshot_parts(self) -> dict[str, Any]:
        return {"roads": self.scoreboard.roads(), "last_result": self.last_result,
                "last_round_no": self.last_round_no}


def _result(player: Iterable[Card], banker: Iterable[Card], player_total: int, banker_total: int, outcome: str,
            natural: bool, player_pair: bool, banker_pair: bool) -> BaccaratResult:
    """The round's result as the table settled it (its totals and outcome, not worked out again)."""
    return BaccaratResult(tuple(player), tuple(banker), player_total, banker_total, Outcome(outcome), natural,
                          player_pair, banker_pair)
