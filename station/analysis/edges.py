"""House edges as exact fractions, and how to print them.

The house edge of a bet is minus the player's expected result per unit of the initial
stake, so a positive edge favours the house. It stays a :class:`~fractions.Fraction` until
it is printed; printing rounds exactly (no float ever sees it).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class BetEdge:
    """One bet under one payout rule.

    ``key`` is a stable identifier for JSON (``banker_commission``, ``tie_8_to_1``, ...),
    ``bet`` and ``payout`` are for people.
    """

    key: str
    bet: str
    payout: str
    house_edge: Fraction

    def as_json(self) -> dict[str, str]:
        return {
            "bet": self.bet,
            "payout": self.payout,
            "house_edge_percent": percent(self.house_edge),
            "house_edge": fraction_text(self.house_edge),
        }


def house_edge(player_result: Fraction | int, total: int) -> Fraction:
    """Edge from the player's summed result over ``total`` equally likely sequences."""
    return -Fraction(player_result, total)


def percent(value: Fraction, places: int = 4) -> str:
    """``value`` as a percentage with ``places`` decimals, rounded exactly (half to even)."""
    scaled = round(value * 100 * 10**places)
    sign = "-" if scaled < 0 else ""
    whole, fraction = divmod(abs(scaled), 10**places)
    return f"{sign}{whole}.{fraction:0{places}d}" if places else f"{sign}{whole}"


def fraction_text(value: Fraction) -> str:
    """``"numerator/denominator"``, the exact form carried in JSON."""
    return f"{value.numerator}/{value.denominator}"
