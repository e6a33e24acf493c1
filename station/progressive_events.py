"""The events of a table's progressive: a supervisor signs a jackpot off or resets the meter
(docs/progressive.md). Journaled before they are applied, like every event; the meter is
derived from them and from the rounds' progressive wagers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from station.event_base import Actor, Event


@dataclass(frozen=True)
class ProgressiveSignOff(Event):
    """A supervisor signs off the jackpot of round ``round_id``: its awards are paid from the
    meter at the amounts the meter gives now, and the meter goes back to its seed."""

    round_id: str
    actor: Actor
    note: str = ""


@dataclass(frozen=True)
class ProgressiveReset(Event):
    """A supervisor sets the meter to ``amount`` (minor units; below 0: to the seed), with why."""

    amount: int
    reason: str
    actor: Actor


@dataclass(frozen=True)
class ProgressivePoolHeard(Event):
    """Another table of the pool (``table``) said, through the floor broker, what it gave the
    meter in all (``contributed``) and its latest jackpot or reset (``rebase``: {"epoch",
    "table", "kind", "base", "counted"}, or None)."""

    pool: str
    table: str
    contributed: int
    rebase: dict[str, Any] | None = None
