"""What a table that knows its chips says (docs/chips.md): the chips on a place, the bets they
propose against the keyed ones, a chip moved after no more bets, each box's payment checked,
a wrong payment holding the table or accepted, and a chip's status changed.
:mod:`station.core.outputs` reaches them all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from station.core.output_base import Output


@dataclass(frozen=True)
class ChipsSeen(Output):
    """``place`` holds ``chips`` (each {"uid", "status", "value"}), worth ``amount`` counted."""

    place: str
    words: str
    chips: tuple[dict[str, Any], ...]
    amount: int


@dataclass(frozen=True)
class ChipBetsProposed(Output):
    """Each betting spot with chips or a keyed bet: {"place", "box", "region", "chips" (the
    amount the chips say), "keyed" (what is bet), "player", "agrees"}; ``confirm`` says how the
    table takes them (``tap`` or ``as_read``)."""

    round_id: str
    spots: tuple[dict[str, Any], ...]
    confirm: str


@dataclass(frozen=True)
class ChipsMoved(Output):
    """A chip added to (``past_posting``) or taken from (``pinching``) a spot after no more bets,
    or left on a losing spot (``left_on_losing_spot``): what was ``found``, the place, the
    chips, their value, and the reader's round and clock of the read that showed it."""

    found: str
    place: str
    text: str
    amount: int
    chips: tuple[str, ...]
    round_id: str
    read: int
    at_ms: int


@dataclass(frozen=True)
class ChipPaymentChecked(Output):
    """Box ``box`` of round ``round_id`` was paid ``paid`` in its payout zone and is owed
    ``owed``: ``verdict`` right, over or under; ``text`` for a person."""

    round_id: str
    box: str
    owed: int
    paid: int
    verdict: str
    text: str


@dataclass(frozen=True)
class ChipPaymentHeld(Output):
    """A wrong payment of round ``round_id``, found when the next round was called (once a
    round): each wrong box's text, the boxes paid over and under (minor units, each 0 or more)
    and their sum with its sign (``difference``: paid less owed); ``held`` says it holds the
    next round (a table told not to hold only counts it)."""

    round_id: str
    wrong: tuple[str, ...]
    difference: int
    over: int = 0
    under: int = 0
    held: bool = True


@dataclass(frozen=True)
class ChipPaymentWasAccepted(Output):
    """A supervisor accepted the payment of round ``round_id`` as it lay, and why."""

    round_id: str
    role: str
    who: str
    note: str


@dataclass(frozen=True)
class ChipStatusChanged(Output):
    """A supervisor set chip ``uid`` to ``status`` (active, flagged, retired), with why."""

    uid: str
    status: str
    reason: str
    role: str
    who: str
