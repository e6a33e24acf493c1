"""The outputs of a table's day besides its rounds: limits changed, the chip tray's ledger,
ratings and cash (docs/limits.md, docs/tray.md, docs/ratings.md).

Apart from :mod:`station.core.outputs` only to keep each module small; :mod:`station.core.outputs`
reaches them all, so readers ask ``out.TrayRecorded`` as they ask ``out.RoundSettled``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from station.core.output_base import Output
from station.core.rounds import RoundId


@dataclass(frozen=True)
class LimitsScheduled(Output):
    """A supervisor (or, at start, the configuration) changed the table's limits; they apply
    from the next round to open. ``limits`` are all of them as they will be (minor units),
    ``changed`` the keys that differ from the limits in force now."""

    limits: dict[str, Any]
    changed: tuple[str, ...]
    applies_from: str  # "next round"
    role: str = ""
    who: str = ""
    reason: str = ""


@dataclass(frozen=True)
class LimitsApplied(Output):
    """New limits took effect: ``from_round`` is the first round played under them (the
    signs, the scoreboard and the console show them from this round)."""

    limits: dict[str, Any]
    changed: tuple[str, ...]
    from_round: RoundId
    role: str = ""
    who: str = ""


@dataclass(frozen=True)
class TrayRecorded(Output):
    """An entry of the chip tray's ledger (docs/tray.md): an opener, fill, credit or closer
    (``chips`` by denomination, ``value`` their sum), or the drop (``value`` the amount); a
    correction repeats the entry with ``corrects`` its number and ``reason`` why. ``ledger``
    numbers the table's openings; ``signed`` is who signed (the supervisor, then the witness);
    ``counted_by``: ``reader`` when the counts were the tray antenna's, ``hand`` otherwise (the
    drop, and a correction, are people's)."""

    ledger: int
    entry: int
    what: str  # opener, fill, credit, closer, drop
    value: int
    chips: tuple[tuple[int, int], ...]
    slip: str
    signed: tuple[str, ...]
    corrects: int = 0
    reason: str = ""
    change: int = 0  # a correction: the value's change
    counted_by: str = "hand"


@dataclass(frozen=True)
class TrayReconciled(Output):
    """A ledger whose closer and drop are both known (again after a correction): the win by
    inventory (closer - opener + credits - fills + drop), the house's result from the rounds
    settled while it was open, and the variance between them (win - house): what a mispay or a
    theft looks like."""

    ledger: int
    opener: int
    fills: int
    credits: int
    closer: int
    drop: int
    win: int
    house: int
    variance: int


@dataclass(frozen=True)
class PlayerCardPresented(Output):
    """The card reader read a player's card: the dealer (or a supervisor) rates its holder at a box."""

    device: str
    card: str


@dataclass(frozen=True)
class RatingStarted(Output):
    """A player's rating began (docs/ratings.md): ``rating`` numbers it in this journal."""

    rating: int
    box: str
    player: str
    card: str
    at: str
    door: str
    role: str = ""
    who: str = ""


@dataclass(frozen=True)
class RatingEnded(Output):
    """A rating ended, with what it rated: the hands the player had a bet in, their bets and
    stakes, the time played (microseconds between its opening and its end) and the theoretical
    win: each bet's stake times the exact house edge of its wager under the table's rules
    (``theo_exact`` as a fraction, ``theo`` rounded to the minor unit, half to even)."""

    rating: int
    box: str
    player: str
    card: str
    opened_at: str
    closed_at: str
    played_us: int
    hands: int
    bets: int
    stakes: int
    theo: int
    theo_exact: str
    role: str = ""
    who: str = ""


@dataclass(frozen=True)
class CashBuyIn(Output):
    """Cash bought in at the table: by whom (``card`` when the player is rated, else empty)."""

    box: str
    player: str
    card: str
    amount: int
    role: str = ""
    who: str = ""
