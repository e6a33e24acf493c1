"""The colour of each chip on the dealer's console, as the chips on the felt look.

A table configures its chips in minor units (``[table] chips``) and may name their colours
(``[table] chip_colours``, keyed by the same amounts: ``"1000" = "blue"``). A chip it does not
name takes the colour most casinos give its face value (1 white, 5 red, 10 blue, 25 green,
100 black, 500 purple, 1,000 yellow, 5,000 grey: the common North American and European
scheme); a face value outside that list is grey. A colour is one of :data:`NAMED` or
``#rrggbb``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from fractions import Fraction

#: The colour names a configuration may use, with the shade the console draws.
NAMED: dict[str, str] = {
    "white": "#f4f1ea", "red": "#c62828", "blue": "#1e56b0", "green": "#2e7d32", "black": "#1b1b1b",
    "purple": "#6a1b9a", "yellow": "#f2c230", "orange": "#ef6c00", "pink": "#e58fb4", "grey": "#8a8f98",
    "brown": "#6d4c41", "light blue": "#7cb7e8",
}
#: Face value (in the currency's major unit) to its usual colour.
BY_FACE: dict[Fraction, str] = {
    Fraction(1): "white", Fraction(2): "yellow", Fraction(5, 2): "pink", Fraction(5): "red", Fraction(10): "blue",
    Fraction(20): "yellow", Fraction(25): "green", Fraction(50): "orange", Fraction(100): "black",
    Fraction(500): "purple", Fraction(1000): "yellow", Fraction(5000): "grey",
}
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


def colour_problem(colour: str) -> str | None:
    """Why ``colour`` cannot be drawn (None: it can)."""
    if colour in NAMED or _HEX.match(colour):
        return None
    return f"{colour!r} is not a colour: use #rrggbb or one of {', '.join(NAMED)}"


def colour_key_problems(configured: Mapping[str, str], chips: Iterable[int]) -> list[tuple[str, str]]:
    """(key under ``chip_colours``, problem) for each entry that names no chip of the table or
    no colour."""
    amounts = set(chips)
    problems: list[tuple[str, str]] = []
    for key, colour in configured.items():
        if not key.isdigit() or int(key) not in amounts:
            problems.append((key, f"{key!r} is not one of the table's chips {sorted(amounts)} (minor units)"))
            continue
        problem = colour_problem(colour)
        if problem is not None:
            problems.append((key, problem))
    return problems


def chip_colour(amount: int, minor_digits: int, configured: Mapping[str, str] | None = None) -> str:
    """The shade (``#rrggbb``) the console draws the chip of ``amount`` minor units in."""
    name = (configured or {}).get(str(amount)) or BY_FACE.get(Fraction(amount, 10 ** minor_digits), "grey")
    return NAMED.get(name, name)


def ink_for(shade: str) -> str:
    """Black or white text, whichever reads on ``shade`` (its relative luminance)."""
    red, green, blue = (int(shade[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return "#111111" if 0.2126 * red + 0.7152 * green + 0.0722 * blue > 0.5 else "#ffffff"
