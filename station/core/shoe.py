"""The shoe in play: its number, composition, burned cards and (batch shuffler) card sets.

Bookkeeping held by the machine; every change comes from an event the machine applied, so a
journal replay rebuilds it exactly. The burn count, the cut card and the last round follow
the pure procedure in :mod:`station.games.shoe_procedure` (``progress``). The composition
(:class:`ShoeComposition`) is the truth every card read is checked against: a card it cannot
contain is an irregularity.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from station.cards import FULL_DECK, Card, ShoeComposition
from station.games.shoe_procedure import ShoeMode, ShoePhase, ShoeProgress


@dataclass
class ShoeTracking:
    """What the table tracks of the shoe in play: counts, composition, the procedure's
    progress, and the card sets of a batch shuffler. (The shoe *device's* own report is
    :class:`drivers.devices.shoe.ShoeState`.)"""

    decks: int
    continuous: bool = False
    rounds_after_cut: int = 1
    cut_cards: int = 1
    number: int = 0  # shoes started so far: the current shoe's number once one is in play
    rounds: int = 0  # rounds opened in the current shoe
    composition: ShoeComposition | None = None
    progress: ShoeProgress | None = None
    burned: list[Card] = field(default_factory=list)  # the burn after the exposed card
    empty: bool = False  # the shoe reported that it ran out of cards
    # Batch shuffler: which coloured set is where.
    set_in_shoe: str = ""
    set_in_shuffler: str = ""
    ready_set: str = ""  # reported shuffled and not yet put in the shoe
    # Continuous shuffler: cards of finished rounds waiting to go back into the shuffler.
    awaiting_return: list[Card] = field(default_factory=list)
    # Integrity: the cards taken out of the shoe since the last account (see
    # ``station.core.integrity_steps``), the deck check of the set waiting to go into play
    # (``{"status": "pending" | "passed" | "failed", ...}``), and a shoe ended by a supervisor.
    drawn: list[Card] = field(default_factory=list)
    ready_check: dict[str, Any] | None = None
    closed: bool = False
    # Continuous shuffler: cards counted back before the round they came from was cleared (the
    # dealer dropped them in before pressing "next round"); they are not counted twice.
    returned_ahead: list[Card] = field(default_factory=list)
    cut_by: list[str] = field(default_factory=list)  # [box, player] who cut the cards; [] the dealer

    def start(self) -> None:
        """A new shoe (or continuous-shuffler session) begins with a full composition."""
        self.number += 1
        self.rounds = 0
        self.composition = ShoeComposition(self.decks)
        mode = ShoeMode.CONTINUOUS if self.continuous else ShoeMode.CUT_CARD
        self.progress = ShoeProgress.new_shoe(mode, self.rounds_after_cut, self.cut_cards)
        self.burned = []
        self.empty = False
        self.awaiting_return = []
        self.drawn = []
        self.closed = False

    @property
    def in_play(self) -> bool:
        return self.progress is not None and not self.progress.is_shoe_end

    @property
    def exposed(self) -> Card | None:
        return self.progress.exposed if self.progress else None

    @property
    def last_round(self) -> bool:
        return bool(self.progress and self.progress.last_round)

    @property
    def ended(self) -> bool:
        return bool(self.progress and self.progress.is_shoe_end) or self.empty or self.closed

    def can_take(self, card: Card) -> bool:
        return self.composition is not None and self.composition.can_remove(card)

    def take(self, card: Card) -> None:
        """A card left the shoe (the caller has checked :meth:`can_take`)."""
        assert self.composition is not None
        self.composition.remove(card)
        self.drawn.append(card)

    def put_back(self, cards: list[Card], *, returned: bool = False) -> list[Card]:
        """Cards that go back into the composition: a continuous shuffler's return
        (``returned``), or held cards that are read again on a supervisor's ``resume`` (they
        leave the shoe's account until they are read again). Returns those it could not take:
        a card of which the account holds every copy the decks have (a count gone wrong, never
        an exception while a round is applied); none in a sound table."""
        if not cards or self.composition is None:
            return []
        if not returned:
            for card in cards:
                for index in range(len(self.drawn) - 1, -1, -1):
                    if self.drawn[index] == card:
                        del self.drawn[index]
                        break
        counts = Counter({card: self.composition.count(card) for card in FULL_DECK})
        refused = []
        for card in cards:
            if counts[card] >= self.decks:
                refused.append(card)
            else:
                counts[card] += 1
        self.composition = ShoeComposition(self.decks, counts)
        return refused

    def round_started(self) -> None:
        """The first card of a round left the shoe."""
        if self.progress is not None and self.progress.phase is ShoePhase.READY:
            self.progress = self.progress.after_round_started()

    def round_completed(self) -> None:
        """A round in which cards were dealt is over (settled or voided)."""
        if self.progress is not None and self.progress.phase is ShoePhase.IN_ROUND:
            self.progress = self.progress.round_completed()

    def to_json(self) -> dict[str, Any]:
        comp = self.composition
        progress = self.progress
        return {
            "number": self.number,
            "rounds": self.rounds,
            "cards_left": len(comp) if comp is not None else None,
            "composition": {card.code: n for card, n in comp} if comp is not None else None,
            "phase": progress.phase.value if progress else None,
            "exposed": progress.exposed.code if progress and progress.exposed else None,
            "burns_due": progress.burns_due if progress else 0,
            "burned": [c.code for c in self.burned],
            "rounds_left": progress.rounds_left if progress else None,
            "last_round": self.last_round,
            "empty": self.empty,
            "set_in_shoe": self.set_in_shoe,
            "set_in_shuffler": self.set_in_shuffler,
            "ready_set": self.ready_set,
            "awaiting_return": [c.code for c in self.awaiting_return],
            "ready_check": self.ready_check,
            "closed": self.closed,
            "returned_ahead": [c.code for c in self.returned_ahead],
            **({"cut_by": list(self.cut_by)} if self.cut_by else {}),
            **({"out_of_cards": True} if progress and progress.out_of_cards else {}),
        }
