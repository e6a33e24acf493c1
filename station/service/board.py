"""What the players should see, kept whole: the picture of the results display board.

A display board shows only what it was told since it last powered up, and misses whatever was
sent while its link was down. So the station does not treat the board as a stream of
commands: it keeps the board's whole picture (:class:`BoardPicture`: limits, roads, the last
result, the banner, what the dealer is expected to do next) and what it believes the board
shows. Every change updates the picture; the picture's differences from what the board shows
are sent; a board that comes back or reboots is cleared and painted again in full
(docs/protocols/display.md, "What the board is sent and when").

Banners (:class:`Banners`) have a life: each is raised by an event the players must know of
("Round paused — please wait", "Shoe offline", "Round void") and taken down by the event that
ends it (the supervisor's decision, the device's return, the next round). The supervisor's
detail stays in ``station ctl status`` and the logs.

Casino War results (:class:`WarRoundView`) are built the same way from the core's live
outputs and from the shoe's results it keeps, so a station restarted mid-shoe shows what it
showed before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from drivers.codec import display as wire
from station.cards import Card, parse_card

#: The banners players see, in their words, most urgent first (docs/protocols/display.md).
PAUSED = "Round paused \u2014 please wait"
VOID = "Round void"
#: Devices whose loss players are told of: those that deal the cards.
ANNOUNCED_DEVICES = ("shoe", "shuffler")


def offline_text(device: str) -> str:
    return f"{device.capitalize()} offline"


@dataclass
class Banners:
    """The banners up now; :meth:`text` is the one shown (the most urgent)."""

    offline: set[str] = field(default_factory=set)
    paused: bool = False
    voided: bool = False

    def text(self) -> str:
        for device in ANNOUNCED_DEVICES:
            if device in self.offline:
                return offline_text(device)
        if self.paused:
            return PAUSED
        if self.voided:
            return VOID
        return ""

    @property
    def urgent(self) -> bool:
        """A banner that means the round is held (not a notice like a void round)."""
        return bool(self.offline) or self.paused


@dataclass(frozen=True)
class BoardPicture:
    """Everything the board should show; ``None``/empty parts are not shown."""

    limits: wire.ShowLimits | None = None
    roads: wire.ShowRoads | None = None
    result: wire.ShowResult | wire.ShowWarResult | None = None
    message: str = ""
    expected: str = ""

    def commands(self) -> list[wire.Message]:
        """The commands that paint this picture on a blank board, result first."""
        commands: list[wire.Message] = []
        if self.result is not None:
            commands.append(self.result)
        if self.message:
            commands.append(wire.ShowMessage(self.message))
        if self.expected:
            commands.append(wire.ShowExpected(self.expected))
        if self.limits is not None:
            commands.append(self.limits)
        if self.roads is not None:
            commands.append(self.roads)
        return commands


BLANK = BoardPicture()


def round_number(round_id: str) -> int:
    """The round's number in its shoe, from its id ("3-14" -> 14)."""
    try:
        return int(str(round_id).rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return 0


# --- Casino War --------------------------------------------------------------------------------

_WAR_OUTCOMES = {
    "win": wire.WarBoxOutcome.WIN, "lose": wire.WarBoxOutcome.LOSE, "tie": wire.WarBoxOutcome.TIE,
    "war-win": wire.WarBoxOutcome.WAR_WIN, "war-lose": wire.WarBoxOutcome.WAR_LOSE,
    "surrender": wire.WarBoxOutcome.SURRENDER,
}


@dataclass(frozen=True)
class WarBoxView:
    box: int
    card: Card
    outcome: str  # a WarOutcome value: win, lose, tie, war-win, war-lose, surrender
    war_card: Card | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"box": self.box, "card": self.card.code, "outcome": self.outcome,
                "war_card": self.war_card.code if self.war_card else None}


@dataclass(frozen=True)
class WarRoundView:
    """One Casino War round as players see it: the dealer's cards and each box's end."""

    round_no: int
    dealer: Card
    boxes: tuple[WarBoxView, ...]
    dealer_war: Card | None = None

    def to_wire(self) -> wire.ShowWarResult:
        return wire.ShowWarResult(
            self.round_no, self.dealer,
            tuple(wire.WarBox(b.box, b.card, _WAR_OUTCOMES[b.outcome], (b.war_card,) if b.war_card else ())
                  for b in self.boxes),
            (self.dealer_war,) if self.dealer_war else (),
        )

    def to_dict(self) -> dict[str, Any]:
        return {"round_no": self.round_no, "dealer": self.dealer.code,
                "dealer_war": self.dealer_war.code if self.dealer_war else None,
                "boxes": [b.to_dict() for b in self.boxes]}

    def outcomes(self) -> dict[int, str]:
        return {b.box: b.outcome for b in self.boxes}


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
        boxes.append(WarBoxView(box, card, outcome, war.get(box)))
    return WarRoundView(round_no, dealer, tuple(boxes), dealer_war)


def war_view_of_record(record: Mapping[str, Any]) -> WarRoundView | None:
    """A War round as the core keeps it (``shoe_results``)."""
    dealt = [(str(p), parse_card(str(c))) for p, c in record.get("dealt", ())]
    return war_round_view(round_number(str(record.get("round_id", ""))), dealt, record.get("surrendered", ()))


def war_view_of_settled(output: Any) -> WarRoundView | None:
    """A War round from the core's ``RoundSettled``: its cards and the surrendered wagers."""
    dealt = [(position, card) for position, cards in output.hands for card in cards]
    surrendered = {b.box for b in output.bets if b.outcome == "surrender"}
    return war_round_view(round_number(output.round_id), dealt, surrendered)


def without_result(picture: BoardPicture) -> BoardPicture:
    return replace(picture, result=None)


def limits_sign(table: Any) -> wire.ShowLimits:
    """The board's limits sign from the ``[table]`` section: minor units, digits, currency."""
    return wire.ShowLimits(table.min_bet, table.max_bet, table.tie_min, table.tie_max, table.pair_min,
                           table.pair_max, table.currency, table.minor_digits)


def web_limits(table: Any, game_lines: Iterable[tuple[str, int, int]] = ()) -> tuple[Any, ...]:
    """The web page's limits sign: the table's, what the game adds (``game_lines``: baccarat's
    smallest Banker bet rule 5.12 accepts), then Tie and Pairs where configured."""
    from station.web.snapshot import Limit

    limits = [Limit("Table", table.min_bet, table.max_bet)]
    limits += [Limit(name, low, high) for name, low, high in game_lines]
    if table.tie_max:
        limits.append(Limit("Tie", table.tie_min, table.tie_max))
    if table.pair_max:
        limits.append(Limit("Pairs", table.pair_min, table.pair_max))
    return tuple(limits)
