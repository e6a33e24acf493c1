"""Irregularities: what stops a round, and which supervisor decisions each one allows.

The station never guesses. When something happens that the rules or the equipment do not
explain (a card when the rules say stand, a card nobody called for, a card the shoe cannot
contain, a device lost with cards in flight) the round stops in the ``irregularity`` state and
waits for a supervisor's :class:`station.events.SupervisorDecision`. Cards read while it waits
are *held* with the irregularity: the decision applies to them too.

Decisions:

``void``
    Void the round: every bet goes back to its owner; cards already out stay out of the shoe.
``burn``
    Treat the held card(s) as burned: they leave the round, and the round goes on.
``dummy``
    Deal the held card(s) into a no-bet "dummy" hand, recorded with the round; the round goes on.
``resume``
    Carry on as if nothing happened. After a device fault only once the device has recovered;
    held cards are then taken as if they had just been read (each is checked again). When
    betting could not close, back to betting.

When betting cannot close without a supervisor (``closing_decision``: baccarat's table
differential, 5.17/5.18), the game names its own decisions besides ``resume`` (baccarat:
``reduce``, ``accept``); the one taken closes betting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from station.cards import Card

VOID = "void"
BURN = "burn"
DUMMY = "dummy"
RESUME = "resume"
DECISIONS = (VOID, BURN, DUMMY, RESUME)
# Integrity (docs/integrity.md): a card set that failed its deck check is rejected (it stays out
# of play until the shuffler reports it shuffled again) or counted again; a shoe the integrity
# monitor proved wrong may be ended (the open round is voided when no card of it is out yet).
REJECT = "reject"
RECHECK = "recheck"
END_SHOE = "end_shoe"
INTEGRITY_DECISIONS = (REJECT, RECHECK, END_SHOE)

#: reason code -> (words for the supervisor, decisions allowed while a round is still open)
REASONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "card_when_stand": ("card drawn when the rules say stand", (BURN, DUMMY, VOID)),
    "card_before_no_more_bets": ('card drawn before "no more bets"', (BURN, DUMMY, VOID)),
    "card_during_fault": ("card read during a device fault", (RESUME, BURN, DUMMY, VOID)),
    "impossible_card": ("card impossible for this shoe", (BURN, DUMMY, VOID)),
    "shoe_empty": ("the shoe ran out of cards during the round", (VOID,)),
    "device_fault": ("device lost during the round", (RESUME, VOID)),
    "supervisor_called": ("the dealer called the supervisor", (RESUME, VOID)),
    "card_without_shoe": ("card drawn while no shoe is in play", (BURN,)),
    # A fault of the station itself while applying an input: the table's state may be half
    # changed, so it stops for a person instead of going on (a "shutdown" latch).
    "internal_error": ("an internal error of the station while applying an input", (RESUME, VOID)),
    # A device the rounds need failed its self-test: no round starts on it until a supervisor
    # has it checked and says to go on (or it recovers by itself).
    "self_test_failed": ("a device the rounds need failed its self-test", (RESUME,)),
    # Integrity: a set never goes into play without a passing deck check; a continuous
    # shuffler's count of returned cards must match the cards dealt; the integrity monitor's
    # alarms (an unshuffled or repeated shoe) stop the round as the draw checks do.
    "deck_check_failed": ("a card set failed its deck check", (REJECT, RECHECK)),
    "cards_returned_mismatch": ("the shuffler counted a different number of cards back", (RESUME, VOID)),
    "integrity_alarm": ("the integrity monitor raised an alarm", (RESUME, VOID, END_SHOE)),
    # "No more bets" the game may not carry out by itself: its decisions come with it.
    "closing_decision": ("no more bets needs a supervisor's decision", (RESUME,)),
    # A table that reads its chips (docs/chips.md): a chip added to or taken from a betting
    # spot once bets were closed (past-posting, pinching). Resume settles the bets as they were
    # locked; the chips moved are for the supervisor to deal with.
    "chips_moved": ("a chip moved on a betting spot after no more bets", (RESUME, VOID)),
}
CLOSING_DECISION = "closing_decision"


@dataclass
class HeldCard:
    """A card read while the round was stopped; ``in_shoe`` is False for an impossible card
    (it was never taken out of the shoe's composition)."""

    card: Card
    in_shoe: bool
    device: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card.code, "in_shoe": self.in_shoe, "device": self.device}


@dataclass
class Irregularity:
    """The one active irregularity. ``return_state`` is where the round goes back to."""

    ident: int
    reason: str
    detail: str
    round_id: str
    return_state: str
    decisions: tuple[str, ...]
    device: str = ""
    held: list[HeldCard] = field(default_factory=list)

    @property
    def words(self) -> str:
        return REASONS[self.reason][0]

    def to_json(self) -> dict[str, Any]:
        return {
            "ident": self.ident,
            "reason": self.reason,
            "detail": self.detail,
            "round_id": self.round_id,
            "return_state": self.return_state,
            "decisions": list(self.decisions),
            "device": self.device,
            "held": [h.to_json() for h in self.held],
        }


def allowed_decisions(reason: str, *, round_open: bool, settled: bool) -> tuple[str, ...]:
    """Decisions for ``reason``: ``void`` needs an open round that is not yet settled."""
    decisions = REASONS[reason][1]
    if not round_open or settled:
        decisions = tuple(d for d in decisions if d != VOID)
        if not decisions:
            decisions = (BURN,) if reason != "device_fault" else (RESUME,)
    return decisions
