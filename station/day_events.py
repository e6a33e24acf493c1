"""The events of a table's day besides its rounds: its limits changed, its chip tray counted,
its players rated (docs/limits.md, docs/tray.md, docs/ratings.md).

Apart from :mod:`station.events` only to keep each module small; they are events like any
other, registered by their class name and journaled before they are applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from station.event_base import Actor, DeviceEvent, Event


@dataclass(frozen=True)
class LimitsChanged(Event):
    """A supervisor changes the table's limits or chips from the next round to open
    (docs/limits.md): ``changes`` maps limit keys (``min_bet``, ``chips`` ...) to their new
    values, in minor units. Posted by the station itself, with the role ``configuration``,
    when ``station run`` starts with limits its journal was not last given by a
    configuration."""

    changes: dict[str, Any]
    actor: Actor
    reason: str = ""


@dataclass(frozen=True)
class TrayCounted(Event):
    """The chip tray counted by denomination and signed by two people. ``kind``: ``opener``
    (the table opens with this inventory), ``fill`` (chips brought from the cage), ``credit``
    (chips sent back to the cage), ``closer`` (the table closes with this inventory). ``chips``
    are (denomination, count) in minor units; ``actor`` signs (a supervisor) and ``witness``
    is the second signature (the dealer, or the runner who brought a fill); ``slip`` is the fill
    or credit slip's number. ``counted_by``: ``hand`` (people counted ``chips``) or ``reader``
    (an opener or closer whose counts the core takes from the tray antenna's stable read as it
    stands when this is applied, ``chips`` left empty: docs/tray.md); a journal written before
    the tray antenna counted has no such field, and every count in it was by hand."""

    what: str
    chips: tuple[tuple[int, int], ...]
    witness: str
    actor: Actor
    slip: str = ""
    counted_by: str = "hand"


@dataclass(frozen=True)
class DropCounted(Event):
    """The table's drop box counted (``amount``, minor units): entered at the count, or at close."""

    amount: int
    actor: Actor
    note: str = ""


@dataclass(frozen=True)
class TrayCorrected(Event):
    """A supervisor's correction of a tray entry (``entry``, its number in the table's ledger):
    its chips (a count) or its amount (the drop) as they really were, and why."""

    entry: int
    reason: str
    actor: Actor
    chips: tuple[tuple[int, int], ...] = ()
    amount: int = 0


@dataclass(frozen=True)
class PlayerCardRead(DeviceEvent):
    """A player card read by the table's card reader (a magnetic stripe or a barcode): the
    card's number, as its reader typed it."""

    card: str


@dataclass(frozen=True)
class RatingOpened(Event):
    """A player's rating begins: the player at ``box`` (``player``, as their bets name them) is
    the holder of ``card``. ``door`` says how the card was given: ``reader`` (the card just
    read), or ``typed`` (a supervisor typed its number). ``at`` is when (UTC, as the journal
    writes times), stamped by the door: the time played is counted from it."""

    box: str
    player: str
    card: str
    actor: Actor
    at: str
    door: str = "typed"


@dataclass(frozen=True)
class RatingClosed(Event):
    """The rating of the player at ``box`` ends (they left, or changed seats) at ``at``."""

    box: str
    player: str
    actor: Actor
    at: str


@dataclass(frozen=True)
class BuyIn(Event):
    """Cash bought in at the table by the player at ``box`` (``amount``, minor units): it goes
    into the drop box and the player gets chips from the tray."""

    box: str
    player: str
    amount: int
    actor: Actor
