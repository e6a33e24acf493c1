"""Casino War's order of play, pure (seed 002): one card to each box, one to the Dealer,
war or surrender on a tie, three burned, the war cards.

A round is an immutable :class:`WarRound`. The state machine asks :meth:`WarRound.next_step`
what must happen next (deal box 3, deal the Dealer, ask a player war-or-surrender, burn a
card, deal a war card, or the round is complete) and feeds each card or decision back with
:meth:`WarRound.with_card` / :meth:`WarRound.with_choice`, which return the next state.
Anything out of order raises :class:`WarStateError` rather than being guessed at.

Order of play [choice, common practice]: one card to each box that has a wager, box 1
first, then one to the Dealer. Every player whose box card ties the Dealer's and who holds
a Casino War Wager there chooses war or surrender. If anybody goes to war, three cards are
burned, then one card goes to each box where somebody went to war (box order) and one to
the Dealer. Players on the same box share the box's card.

Which wagers may be made is :mod:`station.games.war.wagers`; what they win,
:mod:`station.games.war.settlement`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from station.cards import Card
from station.games.war.wagers import WagerKind, WarWager

WAR_BURN_CARDS = 3


class WarStateError(ValueError):
    """A card or decision that does not fit the round's state."""


class Choice(StrEnum):
    WAR = "war"
    SURRENDER = "surrender"


class StepKind(StrEnum):
    DEAL_BOX = "deal_box"
    DEAL_DEALER = "deal_dealer"
    DECIDE = "decide"
    BURN = "burn"
    DEAL_WAR_BOX = "deal_war_box"
    DEAL_DEALER_WAR = "deal_dealer_war"
    COMPLETE = "complete"


@dataclass(frozen=True)
class WarStep:
    """What must happen next. ``box``/``player`` are set for box cards and decisions."""

    kind: StepKind
    box: int | None = None
    player: str | None = None
    burns_left: int = 0

    @property
    def wants_card(self) -> bool:
        return self.kind in (
            StepKind.DEAL_BOX, StepKind.DEAL_DEALER, StepKind.BURN,
            StepKind.DEAL_WAR_BOX, StepKind.DEAL_DEALER_WAR,
        )

    def instruction(self) -> str:
        """The dealer's prompt, e.g. ``"burn 3 cards"`` or ``"deal box 2 war card"``."""
        return {
            StepKind.DEAL_BOX: f"deal box {self.box}",
            StepKind.DEAL_DEALER: "deal Dealer",
            StepKind.DECIDE: f"box {self.box}: {self.player} goes to war or surrenders",
            StepKind.BURN: f"burn {self.burns_left} card{'s' if self.burns_left != 1 else ''}",
            StepKind.DEAL_WAR_BOX: f"deal box {self.box} war card",
            StepKind.DEAL_DEALER_WAR: "deal Dealer war card",
            StepKind.COMPLETE: "round complete",
        }[self.kind]


@dataclass(frozen=True)
class WarRound:
    """One Casino War round in progress. Build it with :meth:`start`."""

    wagers: tuple[WarWager, ...]
    first: tuple[tuple[int, Card], ...] = ()
    dealer_first: Card | None = None
    choices: tuple[tuple[int, str, Choice], ...] = ()
    burned: int = 0
    war: tuple[tuple[int, Card], ...] = ()
    dealer_war: Card | None = None
    boxes: tuple[int, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        # The boxes in play follow from the wagers; derived here so that a round rebuilt
        # field by field (say from a journal snapshot) cannot disagree with its wagers.
        object.__setattr__(self, "boxes", tuple(sorted({w.box for w in self.wagers})))

    @classmethod
    def start(cls, wagers: Sequence[WarWager]) -> WarRound:
        """A round over the accepted ``wagers`` (Casino War and Tie Wagers only)."""
        if any(w.kind is WagerKind.GO_TO_WAR for w in wagers):
            raise WarStateError("Go to War Wagers arise from choices, not at the start of a round")
        if not wagers:
            raise WarStateError("a round needs at least one wager")
        return cls(tuple(wagers))

    # Queries -----------------------------------------------------------------------------

    def first_card(self, box: int) -> Card | None:
        return dict(self.first).get(box)

    def war_card(self, box: int) -> Card | None:
        return dict(self.war).get(box)

    def tied_boxes(self) -> tuple[int, ...]:
        if self.dealer_first is None:
            return ()
        rank = self.dealer_first.rank.war_rank
        return tuple(b for b, card in self.first if card.rank.war_rank == rank)

    def deciders(self) -> tuple[tuple[int, str], ...]:
        """(box, player) of everyone who must choose war or surrender, in order."""
        out: list[tuple[int, str]] = []
        for b in self.tied_boxes():
            for w in self.wagers:
                if w.box == b and w.kind is WagerKind.WAR and (b, w.player) not in out:
                    out.append((b, w.player))
        return tuple(out)

    def choice_of(self, box: int, player: str) -> Choice | None:
        return next((c for b, p, c in self.choices if b == box and p == player), None)

    def war_boxes(self) -> tuple[int, ...]:
        return tuple(sorted({b for b, _, c in self.choices if c is Choice.WAR}))

    def next_step(self) -> WarStep:
        dealt = {b for b, _ in self.first}
        for b in self.boxes:
            if b not in dealt:
                return WarStep(StepKind.DEAL_BOX, box=b)
        if self.dealer_first is None:
            return WarStep(StepKind.DEAL_DEALER)
        for b, p in self.deciders():
            if self.choice_of(b, p) is None:
                return WarStep(StepKind.DECIDE, box=b, player=p)
        war_boxes = self.war_boxes()
        if not war_boxes:
            return WarStep(StepKind.COMPLETE)
        if self.burned < WAR_BURN_CARDS:
            return WarStep(StepKind.BURN, burns_left=WAR_BURN_CARDS - self.burned)
        dealt_war = {b for b, _ in self.war}
        for b in war_boxes:
            if b not in dealt_war:
                return WarStep(StepKind.DEAL_WAR_BOX, box=b)
        if self.dealer_war is None:
            return WarStep(StepKind.DEAL_DEALER_WAR)
        return WarStep(StepKind.COMPLETE)

    @property
    def complete(self) -> bool:
        return self.next_step().kind is StepKind.COMPLETE

    # Transitions -------------------------------------------------------------------------

    def with_card(self, card: Card) -> WarRound:
        """The next card out of the shoe, wherever the rules say it goes (burns are counted)."""
        step = self.next_step()
        kind = step.kind
        if kind is StepKind.DEAL_BOX:
            return _replace(self, first=(*self.first, (step.box, card)))
        if kind is StepKind.DEAL_DEALER:
            return _replace(self, dealer_first=card)
        if kind is StepKind.BURN:
            return _replace(self, burned=self.burned + 1)
        if kind is StepKind.DEAL_WAR_BOX:
            return _replace(self, war=(*self.war, (step.box, card)))
        if kind is StepKind.DEAL_DEALER_WAR:
            return _replace(self, dealer_war=card)
        if kind is StepKind.DECIDE:
            raise WarStateError(
                f"card {card.code} came out while box {step.box} ({step.player}) must still choose "
                "war or surrender"
            )
        raise WarStateError(f"card {card.code} came out after the round was complete")

    def with_choice(self, box: int, player: str, choice: Choice) -> WarRound:
        """Record one player's war-or-surrender decision (any order among the deciders)."""
        if (box, player) not in self.deciders():
            raise WarStateError(f"{player} on box {box} has no decision to make")
        if self.choice_of(box, player) is not None:
            raise WarStateError(f"{player} on box {box} has already chosen")
        return _replace(self, choices=(*self.choices, (box, player, Choice(choice))))


def _replace(round_: WarRound, **changes: Any) -> WarRound:
    return replace(round_, **changes)
