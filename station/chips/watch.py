"""The betting spots watched once bets are closed (docs/chips.md, "After no more bets").

At no more bets the station locks each betting spot's stable set (:meth:`BetLock.at`). From
then until the round is settled, a change of a spot's stable set (a
:class:`~station.chips.stable.StableChange`) is a finding:

- **past-posting**: a chip on a spot that was not there at no more bets (a bet added or
  raised once the result could be known);
- **pinching**: a chip locked on a spot that is no longer there (a bet taken back or lowered).

Each chip moved is reported once, when it moves: a chip added and then taken away again
gives one past-posting finding (its going away restores the lock), and a locked chip taken and
put back one pinching finding. Only betting spots are watched: chips moving among the payout
zones and the tray are the dealer's paying and collecting, never a finding.

After the settlement, chips still on a **losing** spot, once the dealer should have taken
them, are reported (:func:`losing_chips_left`). Which spots lost, and when to look, are the
settlement's and the caller's. Times are the reads' own (passed in), never a clock's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from station.chips.places import ChipPlace, PlaceKind
from station.chips.recognise import counted_value
from station.chips.registry import ChipRegistry, ChipStanding
from station.chips.stable import StableChange
from station.money import Money


class FindingKind(StrEnum):
    PAST_POSTING = "past_posting"  # chips added to a spot after no more bets
    PINCHING = "pinching"  # chips taken from a spot after no more bets
    LEFT_ON_LOSING = "left_on_losing_spot"  # chips left on a losing spot after the settlement


_WORDS = {
    FindingKind.PAST_POSTING: "added after no more bets (past-posting)",
    FindingKind.PINCHING: "taken after no more bets (pinching)",
    FindingKind.LEFT_ON_LOSING: "left on a losing spot after the settlement",
}


@dataclass(frozen=True)
class ChipFinding:
    """Chips added to, taken from or left on a betting spot: each chip as the registry knows
    it, the read that showed it (the reader's ``round``, ``at_ms`` on the caller's clock), and
    ``amount``, what the active ones among them are worth (minor units)."""

    kind: FindingKind
    place: ChipPlace
    chips: tuple[ChipStanding, ...]
    amount: int
    round: int
    at_ms: int

    def text(self, money: Money) -> str:
        """"Box 3 · Banker: 1 chip added after no more bets (past-posting), 25.00: 04A1... 25.00"."""
        listed = ", ".join(f"{chip.uid} {money(chip.value) if chip.counts else chip.status_words()}"
                           for chip in self.chips)
        count = f"{len(self.chips)} chip{'s' if len(self.chips) != 1 else ''}"
        return f"{self.place.words()}: {count} {_WORDS[self.kind]}, {money(self.amount)}: {listed}"


def _finding(kind: FindingKind, place: ChipPlace, uids: Iterable[str], round_: int, at_ms: int,
             registry: ChipRegistry) -> ChipFinding:
    ordered = sorted(uids)
    return ChipFinding(kind, place, tuple(registry.standing(uid) for uid in ordered),
                       counted_value(ordered, registry), round_, at_ms)


@dataclass(frozen=True)
class BetLock:
    """Each betting spot's chips at no more bets (a spot with none is not in ``locked``)."""

    locked: Mapping[ChipPlace, frozenset[str]] = field(default_factory=lambda: MappingProxyType({}), hash=False)

    @classmethod
    def at(cls, stable: Mapping[ChipPlace, frozenset[str]]) -> BetLock:
        """The lock of the stable sets at no more bets (only the betting spots are kept)."""
        return cls(MappingProxyType({place: frozenset(uids) for place, uids in stable.items()
                                     if place.kind is PlaceKind.SPOT and uids}))

    def chips(self, place: ChipPlace) -> frozenset[str]:
        """The chips locked on ``place`` (none for a spot that had none, or a place no spot)."""
        return self.locked.get(place, frozenset())

    def findings(self, change: StableChange, registry: ChipRegistry) -> tuple[ChipFinding, ...]:
        """What ``change``, a spot's stable set changed after no more bets, shows: past-posting
        (chips come that were not locked there), pinching (locked chips gone), or both."""
        if change.place.kind is not PlaceKind.SPOT:
            return ()
        locked = self.chips(change.place)
        found = []
        added = change.added - locked
        if added:
            found.append(_finding(FindingKind.PAST_POSTING, change.place, added, change.round, change.at_ms, registry))
        taken = change.removed & locked
        if taken:
            found.append(_finding(FindingKind.PINCHING, change.place, taken, change.round, change.at_ms, registry))
        return tuple(found)

    def differences(self, stable: Mapping[ChipPlace, frozenset[str]], round_: int, at_ms: int,
                    registry: ChipRegistry) -> tuple[ChipFinding, ...]:
        """The whole layout now (``stable``, read at the reader's round ``round_``, ``at_ms``)
        against the lock: every spot whose chips are not those locked, in the layout's order."""
        spots = {place for place in stable if place.kind is PlaceKind.SPOT} | self.locked.keys()
        found: list[ChipFinding] = []
        for place in sorted(spots, key=ChipPlace.order):
            change = StableChange(place, self.chips(place), stable.get(place, frozenset()), round_, at_ms)
            found.extend(self.findings(change, registry))
        return tuple(found)


def losing_chips_left(stable: Mapping[ChipPlace, frozenset[str]], losing: Iterable[ChipPlace], round_: int,
                      at_ms: int, registry: ChipRegistry) -> tuple[ChipFinding, ...]:
    """The losing spots (``losing``, as the settlement says) that still hold chips in their
    stable sets now (read at ``round_``, ``at_ms``), in the layout's order."""
    found = []
    for place in sorted(set(losing), key=ChipPlace.order):
        uids = stable.get(place, frozenset())
        if place.kind is PlaceKind.SPOT and uids:
            found.append(_finding(FindingKind.LEFT_ON_LOSING, place, uids, round_, at_ms, registry))
    return tuple(found)
