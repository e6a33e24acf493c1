"""Bets in the layout's words, which every game shares: where a bet lies, the answer to
placing one, and the record of its settlement.

Bets reach the table as text (``box="3"``, ``region="banker"``) from pedals, the control
socket and the journal; each game turns them into its own typed bets
(:mod:`station.games.baccarat.wagers`, :mod:`station.games.war.wagers`) and back. These are
the words both sides of that seam speak, so the state machine can hold, refuse, carry and
settle bets without knowing which game it is playing.
"""

from __future__ import annotations

from dataclasses import dataclass

#: One player's bet on the layout: (box, player, region), each as the table names it.
BetKey = tuple[str, str, str]


class BetFormError(ValueError):
    """A bet whose box or region the table does not have (the message says which)."""


def box_number(box: str) -> int:
    """``"3"`` is box 3; anything but digits is refused in words a dealer can read."""
    text = box.strip()
    if not text.isdigit():
        raise BetFormError(f"{box!r} is not a box number")
    return int(text)


@dataclass(frozen=True)
class Acceptance:
    """The answer to "may this bet go on the table?", in both games.

    ``reason`` (empty when accepted) is read out to the dealer and journaled with the
    refusal; ``rule`` is the rule book's number the refusal rests on (``"5.12"``), so a
    supervisor can look it up.
    """

    accepted: bool
    reason: str = ""
    rule: str = ""

    @classmethod
    def ok(cls) -> Acceptance:
        return cls(True)

    @classmethod
    def refuse(cls, reason: str, rule: str) -> Acceptance:
        return cls(False, reason, rule)

    def __bool__(self) -> bool:
        return self.accepted


@dataclass(frozen=True)
class SettledBet:
    """One bet after settlement, in the layout's words. ``net`` is what the player gains (+)
    or loses (-); ``valid`` + ``void`` is the stake (only a baccarat Banker bet under
    commission can have a void part, rule 5.13). A win pays ``net`` = winnings - ``commission``."""

    box: str
    player: str
    region: str
    stake: int
    valid: int
    void: int
    outcome: str  # win / lose / push / void / surrender
    net: int
    commission: int = 0  # taken from the winnings (baccarat's Banker under commission, 5.10)
