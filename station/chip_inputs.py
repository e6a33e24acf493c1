"""The events of a table that knows its chips (docs/chips.md): what the layout holds by a
stable read, the dealer's one tap that makes the chips the bets, a supervisor's word on a chip
or on a wrong payment, and the registry the reads were valued by.

A :class:`ChipsOnPlace` carries each chip with its standing (value and status) as the registry
in force gave it when it was read, so the journal alone says what every chip counted for: a
replay never needs the registry file of that day. The raw reads of the reader
(:class:`~station.chip_events.ChipsRead`) are not journaled; the stable sets they settle into
are, once per change (:mod:`station.chips.stable`).
"""

from __future__ import annotations

from dataclasses import dataclass

from station.chips.registry import ChipStanding
from station.event_base import Actor, Event


@dataclass(frozen=True)
class ChipsOnPlace(Event):
    """The place ``place`` ("spot:3:banker", "payout:3", "tray") holds exactly ``chips`` now, by a
    stable read of the chip reader ``device`` (its round ``read``, ``at_ms`` on its clock)."""

    place: str
    chips: tuple[ChipStanding, ...]
    read: int = 0
    at_ms: int = 0
    device: str = "chipreader"


@dataclass(frozen=True)
class ChipBetsConfirmed(Event):
    """The dealer's one tap: each betting spot's bet becomes what its chips say (of ``boxes``;
    empty: every box)."""

    actor: Actor
    boxes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChipStatusSet(Event):
    """A supervisor flags, retires or puts back in play (``status``) the chip ``uid``, with why."""

    uid: str
    status: str
    reason: str
    actor: Actor


@dataclass(frozen=True)
class ChipPaymentAccepted(Event):
    """A supervisor accepts the payment of round ``round_id`` as the payout zones hold it (a
    wrong payment settled otherwise), with why; the next round may start."""

    round_id: str
    actor: Actor
    note: str = ""


@dataclass(frozen=True)
class ChipRegistryInForce(Event):
    """The station values chips by the registry ``digest`` (sha256 of its canonical form) read
    from ``source``, holding ``chips`` chips; journaled at a start whenever it differs."""

    digest: str
    source: str
    chips: int
