"""What the players should see, kept whole: the picture of the results display board.

A display board shows only what it was told since it last powered up, and misses whatever was
sent while its link was down. So the station does not treat the board as a stream of
commands: it keeps the board's whole picture (:class:`BoardPicture`: limits, roads, the last
result, the banner, what the dealer is expected to do next) and what it believes the board
shows. Every change updates the picture; the picture's differences from what the board shows
are sent; a board that comes back or reboots is cleared and painted again in full
(docs/protocols/display.md, "What the board is sent and when").

Banners (:class:`Banners`) have a life: each is raised by an event the players must know of
("Round paused — please wait", "Table paused — please wait", "Shoe offline", "Round void") and
taken down by the event that ends it (the supervisor's decision or resume, the device's return,
the next round). The supervisor's detail stays in ``station ctl status`` and the logs.

What a round's result looks like is the game's (its board, :mod:`station.games.board`), in no
device's words; :func:`result_command` and :func:`roads_command` put it in the board's wire types
(docs/protocols/display.md), so a game imports nothing of a device and a board of another
protocol maps the same pictures anew.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from drivers.codec import Message
from drivers.codec import display as wire
from station.games.board import BoxesShown, Shown
from station.money import Money
from station.roads.cells import Roads

#: The banners players see, in their words, most urgent first (docs/protocols/display.md).
PAUSED = "Round paused \u2014 please wait"
TABLE_PAUSED = "Table paused \u2014 please wait"
VOID = "Round void"
#: Devices whose loss players are told of: those that deal the cards.
ANNOUNCED_DEVICES = ("shoe", "shuffler")


def offline_text(device: str) -> str:
    return f"{device.capitalize()} offline"


@dataclass
class Banners:
    """The banners up now; :meth:`text` is the one shown (the most urgent)."""

    offline: set[str] = field(default_factory=set)
    paused: bool = False  # the round stopped for a supervisor's decision
    table_paused: bool = False  # a supervisor paused the table between rounds
    voided: bool = False

    def text(self) -> str:
        for device in ANNOUNCED_DEVICES:
            if device in self.offline:
                return offline_text(device)
        if self.paused:
            return PAUSED
        if self.table_paused:
            return TABLE_PAUSED
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

    def commands(self) -> list[Message]:
        """The commands that paint this picture on a blank board, result first."""
        commands: list[Message] = []
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


def limits_sign(limits: Mapping[str, Any], money: Money) -> wire.ShowLimits:
    """The board's limits sign: the limits in force (docs/limits.md), in minor units, with the
    table's digits and currency."""
    return wire.ShowLimits(limits["min_bet"], limits["max_bet"], limits.get("tie_min", 0), limits.get("tie_max", 0),
                           limits.get("pair_min", 0), limits.get("pair_max", 0), money.currency, money.digits)


def web_limits(limits: Mapping[str, Any], game_lines: Iterable[tuple[str, int, int]] = ()) -> tuple[Any, ...]:
    """The web page's limits sign: the table's limits in force, what the game adds
    (``game_lines``: baccarat's smallest Banker bet rule 5.12 accepts), then Tie and Pairs
    where set."""
    from station.web.snapshot import Limit

    lines = [Limit("Table", limits["min_bet"], limits["max_bet"])]
    lines += [Limit(name, low, high) for name, low, high in game_lines]
    if limits.get("tie_max"):
        lines.append(Limit("Tie", limits["tie_min"], limits["tie_max"]))
    if limits.get("pair_max"):
        lines.append(Limit("Pairs", limits["pair_min"], limits["pair_max"]))
    return tuple(lines)


# --- a game's picture in the board's wire types ------------------------------------------------

_OUTCOME = {"B": wire.WireOutcome.BANKER, "P": wire.WireOutcome.PLAYER, "T": wire.WireOutcome.TIE}
_MARK = {"red": wire.Mark.RED, "blue": wire.Mark.BLUE, None: wire.Mark.NONE}
_BOX_OUTCOME = {
    "win": wire.WarBoxOutcome.WIN, "lose": wire.WarBoxOutcome.LOSE, "tie": wire.WarBoxOutcome.TIE,
    "war-win": wire.WarBoxOutcome.WAR_WIN, "war-lose": wire.WarBoxOutcome.WAR_LOSE,
    "surrender": wire.WarBoxOutcome.SURRENDER,
}


def wire_roads(roads: Roads) -> dict[str, Any]:
    """The roads as the arguments of ``ShowRoads`` (and of the display driver's ``show_roads``)."""
    bead = [wire.BeadCell(_OUTCOME[c.result], c.player_pair, c.banker_pair, c.natural) for c in roads.bead_plate]
    big = [wire.BigRoadCell(c.col, c.row, _OUTCOME[c.result], min(c.ties, 255)) for c in roads.big_road]

    def marks(name: str) -> list[wire.Mark]:
        return [_MARK[c.colour] for c in roads.derived(name)]

    def prediction(side: str) -> wire.Prediction:
        p = roads.predictions[side]
        return wire.Prediction(_MARK[p.big_eye_boy], _MARK[p.small_road], _MARK[p.cockroach_pig])

    return {
        "bead_plate": bead, "big_road": big, "big_eye_boy": marks("big_eye_boy"),
        "small_road": marks("small_road"), "cockroach_pig": marks("cockroach_pig"),
        "if_banker": prediction("B"), "if_player": prediction("P"),
    }


def roads_command(roads: Roads) -> wire.ShowRoads:
    parts = wire_roads(roads)
    return wire.ShowRoads(
        tuple(parts["bead_plate"]), tuple(parts["big_road"]), tuple(parts["big_eye_boy"]),
        tuple(parts["small_road"]), tuple(parts["cockroach_pig"]), parts["if_banker"], parts["if_player"],
    )


def result_command(shown: Shown) -> wire.ShowResult | wire.ShowWarResult:
    """The board's command that shows a game's last result."""
    if isinstance(shown, BoxesShown):
        return wire.ShowWarResult(
            shown.round_no, shown.dealer,
            tuple(wire.WarBox(b.box, b.card, _BOX_OUTCOME[b.outcome], (b.war_card,) if b.war_card else ())
                  for b in shown.boxes),
            (shown.dealer_war,) if shown.dealer_war else (),
        )
    return wire.ShowResult(shown.round_no, _OUTCOME[shown.outcome], shown.player_total, shown.banker_total,
                           shown.player, shown.banker, shown.natural, shown.player_pair, shown.banker_pair)
