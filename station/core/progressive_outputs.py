"""What the table's progressive says: its meter, a jackpot waiting for a supervisor, a jackpot
paid and a reset (docs/progressive.md). :mod:`station.core.outputs` reaches them all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from station.core.output_base import Output


@dataclass(frozen=True)
class ProgressiveMeter(Output):
    """The meter now (minor units), after ``why``: ``start`` (the table's first input or the
    pool configured), ``round`` (a round's wagers added ``added``), ``correction``, ``paid``,
    ``reset`` or ``linked`` (another table of the pool); ``pending`` says a jackpot waits."""

    pool: str
    meter: int
    why: str
    added: int = 0
    round_id: str = ""
    pending: bool = False


@dataclass(frozen=True)
class ProgressiveHit(Output):
    """Round ``round_id`` won a share of the meter: each award (box, player, region, hand,
    percent, and ``amount`` as the meter gives it now) waits for a supervisor's sign-off, and
    the next round waits with it."""

    round_id: str
    pool: str
    meter: int
    awards: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class ProgressivePaid(Output):
    """A supervisor signed the jackpot of ``round_id`` off: each award with its ``amount``,
    their ``total``, what the casino put in (``topped``) and the meter after."""

    round_id: str
    pool: str
    awards: tuple[dict[str, Any], ...]
    total: int
    topped: int
    meter: int
    role: str
    who: str
    note: str = ""


@dataclass(frozen=True)
class ProgressiveWasReset(Output):
    """A supervisor set the meter from ``before`` to ``meter``, and why."""

    pool: str
    before: int
    meter: int
    reason: str
    role: str
    who: str
