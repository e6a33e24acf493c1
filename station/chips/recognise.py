"""Bets from chips: each betting spot's bet from its stable chips and the registry, the chips
that must not count, and the bets the dealer keyed set beside them (docs/chips.md).

A spot's proposed bet is the sum of the values of its **active** chips. A chip the registry
does not hold (unknown), or holds as flagged or retired, is not counted: it is an
**integrity alarm** naming the place and the chip. Only betting spots are proposed; the
alarms of a payout zone are :mod:`station.chips.payout_check`'s.

The proposal is compared with the keyed bets spot by spot (a spot is a box's region; the
keyed bets of the players of one box on one region are added up, as the chips of a spot do
not say whose they are): the two amounts side by side, and whether they agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from station.chips.places import ChipPlace, PlaceKind
from station.chips.registry import ChipRegistry, ChipStanding, ChipStatus
from station.money import Money


@dataclass(frozen=True)
class ChipAlarm:
    """A chip read at ``place`` that must not count: unknown, flagged or retired."""

    place: ChipPlace
    chip: ChipStanding

    def text(self, money: Money) -> str:
        """"Box 3 · Banker: chip 04A1B2C3D4E5F601 is flagged (25.00; reported stolen)"."""
        chip = self.chip
        if chip.status is ChipStatus.UNKNOWN:
            return f"{self.place.words()}: chip {chip.uid} is not in the registry"
        details = "; ".join(part for part in (money(chip.value), chip.chip_set, chip.note) if part)
        return f"{self.place.words()}: chip {chip.uid} is {chip.status.value} ({details})"


def chip_alarms(place: ChipPlace, uids: Iterable[str], registry: ChipRegistry) -> tuple[ChipAlarm, ...]:
    """The chips of ``uids`` read at ``place`` that do not count, in the order of their UIDs."""
    standings = (registry.standing(uid) for uid in sorted(uids))
    return tuple(ChipAlarm(place, standing) for standing in standings if not standing.counts)


def counted_value(uids: Iterable[str], registry: ChipRegistry) -> int:
    """What the active chips of ``uids`` are worth together (minor units)."""
    return sum(standing.value for standing in (registry.standing(uid) for uid in uids) if standing.counts)


@dataclass(frozen=True)
class SpotBet:
    """A betting spot's bet as its chips make it: ``amount`` (minor units) of the active chips
    ``counted``."""

    place: ChipPlace
    amount: int
    counted: tuple[str, ...]


@dataclass(frozen=True)
class BetProposal:
    """The bets the chips propose, spot by spot (spots with no chip counted left out), and the
    chips that were not counted."""

    bets: tuple[SpotBet, ...]
    alarms: tuple[ChipAlarm, ...]

    def amounts(self) -> dict[ChipPlace, int]:
        """Each spot's proposed amount."""
        return {bet.place: bet.amount for bet in self.bets}


def propose_bets(stable: Mapping[ChipPlace, frozenset[str]], registry: ChipRegistry) -> BetProposal:
    """The bets of the betting spots in ``stable`` (each place's stable set; other places are
    not bets and are passed over), in the layout's order."""
    bets: list[SpotBet] = []
    alarms: list[ChipAlarm] = []
    for place in sorted((p for p in stable if p.kind is PlaceKind.SPOT), key=ChipPlace.order):
        uids = stable[place]
        counted = tuple(uid for uid in sorted(uids) if registry.standing(uid).counts)
        if counted:
            bets.append(SpotBet(place, counted_value(counted, registry), counted))
        alarms.extend(chip_alarms(place, uids, registry))
    return BetProposal(tuple(bets), tuple(alarms))


class KeyedBet(Protocol):
    """A bet the dealer keyed, as the table's bets and the ``BetPlaced`` event give it."""

    @property
    def box(self) -> str: ...
    @property
    def region(self) -> str: ...
    @property
    def amount(self) -> int: ...


@dataclass(frozen=True)
class SpotComparison:
    """One spot's bet as the chips make it and as the dealer keyed it (minor units)."""

    place: ChipPlace
    chips: int
    keyed: int

    @property
    def agrees(self) -> bool:
        return self.chips == self.keyed

    @property
    def difference(self) -> int:
        """The chips' amount less the keyed one: above 0, the chips say more."""
        return self.chips - self.keyed

    def text(self, money: Money) -> str:
        """"Box 3 · Banker: chips 25.00, keyed 25.00, agreed" or "...: chips 50.00, keyed 25.00"."""
        line = f"{self.place.words()}: chips {money(self.chips)}, keyed {money(self.keyed)}"
        return f"{line}, agreed" if self.agrees else line


def keyed_per_spot(keyed: Iterable[KeyedBet]) -> dict[ChipPlace, int]:
    """The keyed bets added up spot by spot (the players of a box on one region together)."""
    amounts: dict[ChipPlace, int] = {}
    for bet in keyed:
        place = ChipPlace.spot(bet.box, bet.region)
        amounts[place] = amounts.get(place, 0) + bet.amount
    return amounts


def compare_bets(proposal: BetProposal, keyed: Iterable[KeyedBet]) -> tuple[SpotComparison, ...]:
    """Every spot that the chips or the keyed bets give an amount, in the layout's order: both
    amounts side by side (a spot that one of them leaves out is 0 there)."""
    chips, typed = proposal.amounts(), keyed_per_spot(keyed)
    spots = sorted((p for p in chips.keys() | typed.keys() if chips.get(p) or typed.get(p)), key=ChipPlace.order)
    return tuple(SpotComparison(place, chips.get(place, 0), typed.get(place, 0)) for place in spots)
