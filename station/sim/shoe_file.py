"""Stacked shoes for the simulated dealer: a file of card codes in draw order.

``station demo --shoe-file`` deals such a shoe instead of a shuffled one, to show or test a
particular sequence (a tie, a war, the cut card at an awkward place).
"""

from __future__ import annotations

from drivers.simulators import CUT_CARD
from drivers.simulators.pool import ShoeItem
from station.cards import Card, parse_card

CUT_TOKEN = "CUT"


class ShoeFileError(ValueError):
    """A stacked shoe file that cannot be dealt."""


def parse_shoe_file(text: str, source: str = "shoe file") -> list[ShoeItem]:
    """Card codes in draw order, whitespace-separated, with a ``CUT`` token for the cut card.

    The first card is the one exposed for the burn. Lines starting with ``#`` are comments.
    """
    items: list[ShoeItem] = []
    cuts = 0
    for line_no, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0]
        for token in line.split():
            if token.upper() == CUT_TOKEN:
                cuts += 1
                items.append(CUT_CARD)
                continue
            try:
                items.append(parse_card(token))
            except ValueError as exc:
                raise ShoeFileError(f"{source}, line {line_no}: {exc}") from None
    if cuts > 1:
        raise ShoeFileError(f"{source}: {cuts} CUT tokens; a shoe has one cut card")
    if not any(isinstance(i, Card) for i in items):
        raise ShoeFileError(f"{source}: no cards")
    return items
