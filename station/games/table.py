"""What every game's table options share: chips, limits, and the error that names a bad option.

Each game's own options are in its package (:mod:`station.games.baccarat.table`,
:mod:`station.games.war.table`). They are frozen dataclasses so that the state machine can
hold one per round and record from which round a changed option (for example the
no-commission Banker payout, rule 5.11) took effect.

All money is ``int`` in the table's smallest currency unit ("minor units"). A value that no
real table could have (a tie paying 7 to 1, a minimum above the maximum, a chip of 0) is
refused with a :class:`TableOptionError` that names the offending field, so a typo in the
configuration is caught at start-up rather than at the first payout.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Players who may bet on one box, in both games (baccarat 5.8, Casino War 5.9).
MAX_PLAYERS_PER_BOX = 3


class TableOptionError(ValueError):
    """A table option that cannot be right. ``field`` names the option."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


def require_int(field: str, value: object, *, minimum: int | None = None) -> int:
    """``value`` as a whole number of minor units (never a bool), at least ``minimum``."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TableOptionError(field, f"must be a whole number of minor units, got {value!r}")
    if minimum is not None and value < minimum:
        raise TableOptionError(field, f"must be at least {minimum}, got {value}")
    return value


@dataclass(frozen=True)
class Chips:
    """The chip denominations in use, in minor units.

    The smallest chip decides what can be paid "exactly in chips" (rules 5.12/5.13): any
    whole multiple of it can be paid. For that to hold every other denomination must be a
    multiple of the smallest one, so a set such as 100 and 250 is refused [choice].
    """

    denominations: tuple[int, ...]

    def __post_init__(self) -> None:
        values = self.denominations
        if not isinstance(values, tuple) or not values:
            raise TableOptionError("chips", f"give at least one chip denomination, got {values!r}")
        for value in values:
            require_int("chips", value, minimum=1)
        if len(set(values)) != len(values):
            raise TableOptionError("chips", f"denominations repeat: {values}")
        smallest = min(values)
        odd = [value for value in values if value % smallest]
        if odd:
            raise TableOptionError(
                "chips",
                f"every chip must be a multiple of the smallest chip {smallest}; {odd} are not",
            )
        object.__setattr__(self, "denominations", tuple(sorted(values)))

    @property
    def smallest(self) -> int:
        return self.denominations[0]

    def payable(self, amount: int) -> bool:
        """Can ``amount`` be paid exactly in these chips?"""
        return amount >= 0 and amount % self.smallest == 0

    def round_down(self, amount: int) -> int:
        """The largest amount payable in chips that does not exceed ``amount``."""
        return max(0, amount) // self.smallest * self.smallest


def as_chips(value: object) -> Chips:
    """Accept a :class:`Chips` or a plain list/tuple of denominations (as a config file gives)."""
    if isinstance(value, Chips):
        return value
    if isinstance(value, (list, tuple)):
        return Chips(tuple(value))
    raise TableOptionError("chips", f"must be a list of chip denominations, got {value!r}")


def check_limits(min_bet: int, max_bet: int, chips: Chips, prefix: str = "") -> None:
    """The table minimum and maximum: whole, positive, in order, and made of chips."""
    require_int(f"{prefix}min_bet", min_bet, minimum=1)
    require_int(f"{prefix}max_bet", max_bet, minimum=1)
    if min_bet > max_bet:
        raise TableOptionError(
            f"{prefix}min_bet", f"minimum {min_bet} is above the maximum {max_bet}"
        )
    for name, value in ((f"{prefix}min_bet", min_bet), (f"{prefix}max_bet", max_bet)):
        if not chips.payable(value):
            raise TableOptionError(
                name, f"{value} cannot be made of chips of {chips.smallest}"
            )
