"""Casino War's results board: each box's latest results, and the shoe's rounds for the page.

Each round as players see it (:class:`WarRoundView`: the dealer's cards and each box's end) is
built the same way from what the table settled (:class:`~station.games.board.BoardRound`) and
from the shoe's results it keeps, so a station restarted mid-shoe shows what it showed before.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from station.cards import Card, parse_card
from station.games.board import BoardRound, BoxesShown, BoxShown
from station.roads.war_board import WarBoard


@dataclass(frozen=True)
class WarBoxView:
    box: int
    card: Card
    outcome: str  # a WarOutcome value: win, lose, tie, war-win, war-lose, surrender
    war_card: Card | None = None
    #: On a box that went to war, some of its players surrendered instead: the box's outcome is
    #: the war's, and the board says that not all of the box went.
    some_surrendered: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"box": self.box, "card": self.card.code, "outcome": self.outcome,
                "war_card": self.war_card.code if self.war_card else None,
                "some_surrendered": self.some_surrendered}


@dataclass(frozen=True)
class WarRoundView:
    """One Casino War round as players see it: the dealer's cards and each box's end."""

    round_no: int
    dealer: Card
    boxes: tuple[WarBoxView, ...]
    dealer_war: Card | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"round_no": self.round_no, "dealer": self.dealer.code,
                "dealer_war": self.dealer_war.code if self.dealer_war else None,
                "boxes": [b.to_dict() for b in self.boxes]}

    def outcomes(self) -> dict[int, str]:
        return {b.box: b.outcome for b in self.boxes}

    def shown(self) -> BoxesShown:
        return BoxesShown(self.round_no, self.dealer, tuple(BoxShown(b.box, b.card, b.outcome, b.war_card)
                                                            for b in self.boxes), self.dealer_war)


def war_round_view(round_no: int, dealt: Iterable[tuple[str, Card]], surrendered: Iterable[str | int] = ()
                   ) -> WarRoundView | None:
    """The round from its cards by position ("box 3", "dealer", "war box 3", "war dealer") and
    the boxes whose players surrendered; None if the dealer has no card (nothing to show)."""
    first: dict[int, Card] = {}
    war: dict[int, Card] = {}
    dealer: Card | None = None
    dealer_war: Card | None = None
    for position, card in dealt:
        if position == "dealer":
            dealer = card
        elif position == "war dealer":
            dealer_war = card
        elif position.startswith("war box "):
            war[int(position[8:])] = card
        elif position.startswith("box "):
            first[int(position[4:])] = card
    if dealer is None:
        return None
    gave_up = {int(b) for b in surrendered}
    boxes = []
    for box in sorted(first):
        card = first[box]
        mine, theirs = card.rank.war_rank, dealer.rank.war_rank
        if mine != theirs:
            outcome = "win" if mine > theirs else "lose"
        elif box in war and dealer_war is not None:
            # A tie in the war goes to the player (with or without the tie-after-tie bonus).
            outcome = "war-lose" if war[box].rank.war_rank < dealer_war.rank.war_rank else "war-win"
        elif box in gave_up:
            outcome = "surrender"
        else:
            outcome = "tie"
        went_to_war = outcome in ("war-win", "war-lose")
        boxes.append(WarBoxView(box, card, outcome, war.get(box), some_surrendered=went_to_war and box in gave_up))
    return WarRoundView(round_no, dealer, tuple(boxes), dealer_war)


def war_view_of_record(round_no: int, record: Mapping[str, Any]) -> WarRoundView | None:
    """A War round as the table keeps it (the game's result record)."""
    dealt = [(str(p), parse_card(str(c))) for p, c in record.get("dealt", ())]
    return war_round_view(round_no, dealt, record.get("surrendered", ()))


def war_view_of_round(round_: BoardRound) -> WarRoundView | None:
    """A War round as the table settled it: its cards and the boxes that surrendered."""
    dealt = [(position, card) for position, cards in round_.hands for card in cards]
    return war_round_view(round_.round_no, dealt, round_.surrendered)


#: Casino War rounds kept for the web page's history strip (a shoe has about 50).
WAR_STRIP = 60


class BoxesBoard:
    """Casino War: each box's latest results, and the shoe's rounds for the history strip."""

    def __init__(self) -> None:
        self.war_board = WarBoard()
        self.history: deque[WarRoundView] = deque(maxlen=WAR_STRIP)

    def reset(self) -> None:
        self.war_board.reset()
        self.history.clear()

    def _add(self, view: WarRoundView | None) -> BoxesShown | None:
        if view is None:
            return None
        self.war_board.add(view.outcomes())
        self.history.append(view)
        return view.shown()

    def add_record(self, round_no: int, record: Mapping[str, Any]) -> None:
        self._add(war_view_of_record(round_no, record))

    def add_round(self, round_: BoardRound) -> BoxesShown | None:
        return self._add(war_view_of_round(round_))

    def last_shown(self) -> BoxesShown | None:
        return self.history[-1].shown() if self.history else None

    def display_roads(self) -> None:
        return None

    def snapshot_parts(self) -> dict[str, Any]:
        war = self.war_board.to_dict()
        war["history"] = [view.to_dict() for view in self.history]
        return {"war": war, "last_round_no": self.history[-1].round_no if self.history else 0}
