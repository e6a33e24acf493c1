"""What the simulated dealer of a table that reads its chips is given (docs/chips.md): which
antenna is under each place of the layout, the registered chips it may bet and pay with, and
how the table takes the chips' bets. Fixed before the simulated table starts, and carried to
its process with the dealer's script."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


class RackTooSmall(ValueError):
    """The rack of registered chips cannot make an amount the dealer must put down."""


@dataclass(frozen=True)
class ChipScript:
    """What the dealer needs to play with chips: the antenna under each place ("spot:1:banker",
    "payout:1"), the registered active chips it may use by value (minor units, UIDs), and how
    the table takes the chips' bets (``tap``: the dealer taps to confirm; ``as_read``)."""

    antennas: Mapping[str, int]
    rack: Mapping[int, tuple[str, ...]]
    confirm: str = "tap"

    def chips_for(self, amount: int, in_use: set[str]) -> list[str]:
        """Chips of the rack making ``amount`` exactly, largest first, none already on the table.
        :class:`RackTooSmall` when the rack cannot make it (the script bets what no chips make)."""
        chosen: list[str] = []
        left = amount
        for value in sorted(self.rack, reverse=True):
            free = [uid for uid in self.rack[value] if uid not in in_use and uid not in chosen]
            take = min(left // value, len(free))
            chosen += free[:take]
            left -= take * value
        if left:
            raise RackTooSmall(f"the rack of registered chips cannot make {amount} minor units "
                                f"({left} short): register more chips of small values")
        return chosen


def chip_script(antennas: Mapping[int, Any], rack: Mapping[int, Iterable[str]], confirm: str) -> ChipScript:
    """The dealer's chip script from the configuration's antennas (number -> place) and the
    registry's active chips by value."""
    return ChipScript({str(place): number for number, place in antennas.items()},
                      {value: tuple(sorted(uids)) for value, uids in rack.items()}, confirm)
