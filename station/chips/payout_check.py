"""Payouts checked: what each box's payout zone holds against what the settlement owes it
(docs/chips.md, "Payouts checked").

For each box the settlement says what it is to be paid (minor units: the winnings the dealer
puts in its payout zone). The zone's stable chips are worth the sum of its **active** chips'
values; a chip the registry does not hold, or holds as flagged or retired, is not counted and
is named (an integrity alarm, as on a betting spot). The box is paid **right**, **over** or
**under** by the difference.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from station.chips.places import ChipPlace, PlaceKind, box_order, box_words
from station.chips.recognise import ChipAlarm, chip_alarms, counted_value
from station.chips.registry import ChipRegistry
from station.money import Money


class PayoutVerdict(StrEnum):
    RIGHT = "right"
    OVER = "over"
    UNDER = "under"


@dataclass(frozen=True)
class PayoutCheck:
    """One box: what it is ``owed``, what its payout zone's active chips are worth (``paid``),
    the chips counted, and the chips not counted (``alarms``). Minor units."""

    box: str
    owed: int
    paid: int
    counted: tuple[str, ...] = ()
    alarms: tuple[ChipAlarm, ...] = ()

    @property
    def difference(self) -> int:
        """Paid less owed: above 0 the box is paid over, below 0 under."""
        return self.paid - self.owed

    @property
    def verdict(self) -> PayoutVerdict:
        if self.paid == self.owed:
            return PayoutVerdict.RIGHT
        return PayoutVerdict.OVER if self.paid > self.owed else PayoutVerdict.UNDER

    def text(self, money: Money) -> str:
        """One line for a person: "Box 3 paid 50.00, owed 75.00: under by 25.00" (and the chips
        not counted: "; not counted: 04A1B2C3D4E5F601 flagged")."""
        line = f"{box_words(self.box)} paid {money(self.paid)}, owed {money(self.owed)}: "
        line += "right" if self.verdict is PayoutVerdict.RIGHT else \
            f"{self.verdict.value} by {money(abs(self.difference))}"
        if self.alarms:
            line += "; not counted: " + ", ".join(f"{alarm.chip.uid} {alarm.chip.status_words()}"
                                                  for alarm in self.alarms)
        return line


def check_payouts(owed: Mapping[str, int], stable: Mapping[ChipPlace, frozenset[str]],
                  registry: ChipRegistry) -> tuple[PayoutCheck, ...]:
    """Each box the settlement owes (``owed``, box to minor units, 0 for a box owed nothing)
    or whose payout zone holds chips (``stable``: the stable sets; places other than payout
    zones are passed over), in the order of the boxes."""
    for box, amount in owed.items():
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
            raise ValueError(f"what box {box} is owed is a whole number of minor units from 0, got {amount!r}")
    zones = {place.box: uids for place, uids in stable.items() if place.kind is PlaceKind.PAYOUT and uids}
    checks = []
    for box in sorted(owed.keys() | zones.keys(), key=box_order):
        uids = zones.get(box, frozenset())
        counted = tuple(uid for uid in sorted(uids) if registry.standing(uid).counts)
        checks.append(PayoutCheck(box, owed.get(box, 0), counted_value(counted, registry), counted,
                                  chip_alarms(ChipPlace.payout(box), uids, registry)))
    return tuple(checks)
