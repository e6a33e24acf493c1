"""The life of one shoe, pure: burn at the start, rounds, the cut card, the last round.

The state machine holds one :class:`ShoeProgress` per shoe and replaces it on every event
(each transition returns a new value), so replaying the journal's events reproduces it
exactly. Anything out of order raises :class:`ShoeProcedureError` instead of being guessed.

Procedure [choice, common practice, RULES.md "Burn procedure" and "Cut card and last round"]:

1. A new shoe starts by exposing its first card. Its burn value (Ace 1 … 9, ten and faces
   10: ``Card.rank.pip``) is how many further cards are burned. The exposed card is
   discarded too, so ``1 + burn value`` cards leave the shoe before the first round.
2. Rounds follow. When the cut card appears during a round, that round is completed and
   ``rounds_after_cut`` more rounds are dealt (default 1); then the shoe ends. When it
   appears where a round's first card would be drawn, the next round counts as the first
   of those rounds: with the default of 1 that round is the last.
3. With a continuous shuffler there is no exposed card, no burn, no cut card and no shoe end.
4. A second cutting card, at the operator's choice (seed 000 rule 3.3, seed 002 rule 3.4)
   [choice]: it goes behind the last card of the shoe, so the bottom card is never seen and
   the reader reports when the cards run out. The first cutting card to come out calls the
   last round as above; the second marks that no card is left: no round may follow it, and
   a round still needing a card when it comes out cannot be finished (the table voids it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from station.cards import Card

DEFAULT_ROUNDS_AFTER_CUT = 1
#: Cutting cards a shoe may hold: one, or at the operator's choice two (seed 000 rule 3.3).
CUT_CARDS = (1, 2)


def burn_count(exposed: Card) -> int:
    """Cards to burn after the exposed first card: Ace 1 … 9, ten and faces 10 (RULES 4.1A)."""
    return exposed.rank.pip


class ShoeProcedureError(ValueError):
    """An event the shoe procedure does not allow at this point."""


class ShoeMode(StrEnum):
    CUT_CARD = "cut_card"  # manual shoe or batch shuffler
    CONTINUOUS = "continuous"  # continuous shuffling machine


class ShoePhase(StrEnum):
    EXPOSE = "expose"  # waiting for the first card of the shoe to be exposed
    BURN = "burn"  # burning the cards the exposed card calls for
    READY = "ready"  # between rounds
    IN_ROUND = "in_round"
    ENDED = "ended"  # the shoe is finished: shuffle / change shoe


@dataclass(frozen=True)
class ShoeProgress:
    """Where a shoe is in its procedure. Create with :meth:`new_shoe`."""

    mode: ShoeMode
    rounds_after_cut: int = DEFAULT_ROUNDS_AFTER_CUT
    phase: ShoePhase = ShoePhase.EXPOSE
    exposed: Card | None = None
    burns_due: int = 0
    burned: int = 0
    rounds_started: int = 0
    rounds_completed: int = 0
    cut_card_round: int | None = None  # rounds completed when the cut card appeared
    cut_mid_round: bool = False
    rounds_left: int | None = None  # rounds still to start after the cut card, None before it
    cut_cards: int = 1  # 2: a second cutting card behind the last card
    out_of_cards: bool = False  # the second cutting card came out: no card is left

    @classmethod
    def new_shoe(
        cls, mode: ShoeMode = ShoeMode.CUT_CARD, rounds_after_cut: int = DEFAULT_ROUNDS_AFTER_CUT,
        cut_cards: int = 1,
    ) -> ShoeProgress:
        mode = ShoeMode(mode)
        if not isinstance(rounds_after_cut, int) or isinstance(rounds_after_cut, bool) or rounds_after_cut < 0:
            raise ShoeProcedureError(
                f"rounds_after_cut must be a whole number 0 or more, got {rounds_after_cut!r}"
            )
        if cut_cards not in CUT_CARDS or isinstance(cut_cards, bool):
            raise ShoeProcedureError(f"a shoe holds 1 or 2 cutting cards, got {cut_cards!r}")
        phase = ShoePhase.READY if mode is ShoeMode.CONTINUOUS else ShoePhase.EXPOSE
        return cls(mode=mode, rounds_after_cut=rounds_after_cut, phase=phase, cut_cards=cut_cards)

    # Queries -----------------------------------------------------------------------------

    @property
    def discarded_before_play(self) -> int:
        """Cards that left the shoe before the first round: the exposed card and the burns."""
        return (1 if self.exposed is not None else 0) + self.burned

    @property
    def is_shoe_end(self) -> bool:
        return self.phase is ShoePhase.ENDED

    @property
    def cut_card_out(self) -> bool:
        return self.rounds_left is not None

    @property
    def last_round(self) -> bool:
        """True while the round in progress (or about to start) is the shoe's last."""
        if self.rounds_left is None:
            return False
        if self.phase is ShoePhase.IN_ROUND:
            return self.rounds_left == 0
        return self.phase is ShoePhase.READY and self.rounds_left == 1

    def instruction(self) -> str:
        """What the dealer must do next, in words for the display."""
        if self.phase is ShoePhase.EXPOSE:
            return "expose the first card"
        if self.phase is ShoePhase.BURN:
            left = self.burns_due - self.burned
            return f"burn {left} card{'s' if left != 1 else ''}"
        if self.phase is ShoePhase.ENDED:
            return "shoe finished: shuffle"
        if self.out_of_cards:
            return "second cutting card out: no cards left"
        if self.last_round:
            return "cut card out: last round"
        if self.phase is ShoePhase.IN_ROUND and self.rounds_left:
            more = self.rounds_left
            return f"cut card out: {more} more round{'s' if more != 1 else ''} after this one"
        return "deal" if self.phase is ShoePhase.READY else "round in progress"

    # Transitions -------------------------------------------------------------------------

    def first_card_exposed(self, card: Card) -> ShoeProgress:
        """The shoe's first card is exposed: it sets the burn count (``Card.rank.pip``)."""
        self._expect(ShoePhase.EXPOSE, "expose the first card")
        return replace(self, phase=ShoePhase.BURN, exposed=card, burns_due=burn_count(card))

    def card_burned(self) -> ShoeProgress:
        """One card burned; once the count is reached the first round may start."""
        self._expect(ShoePhase.BURN, "burn a card")
        burned = self.burned + 1
        return replace(
            self, burned=burned, phase=ShoePhase.READY if burned == self.burns_due else ShoePhase.BURN
        )

    def after_round_started(self) -> ShoeProgress:
        """The first card of a round has left the shoe."""
        self._expect(ShoePhase.READY, "start a round")
        left = None if self.rounds_left is None else self.rounds_left - 1
        return replace(
            self, phase=ShoePhase.IN_ROUND, rounds_started=self.rounds_started + 1, rounds_left=left
        )

    def cut_card_seen(self, mid_round: bool) -> ShoeProgress:
        """The cut card came out: during a round, or where a round's first card would be."""
        if self.mode is ShoeMode.CONTINUOUS:
            raise ShoeProcedureError("a continuous shuffler has no cut card")
        second = self.rounds_left is not None
        if second and (self.cut_cards < 2 or self.out_of_cards):
            raise ShoeProcedureError("the cut card has already come out of this shoe")
        expected = ShoePhase.IN_ROUND if mid_round else ShoePhase.READY
        if self.phase is not expected:
            where = "during a round" if mid_round else "between rounds"
            raise ShoeProcedureError(f"cut card reported {where} while the shoe is in phase {self.phase.value}")
        if second:
            # The second cutting card, behind the last card: no card is left, no round follows.
            out = replace(self, out_of_cards=True, rounds_left=0)
            return out if mid_round else replace(out, phase=ShoePhase.ENDED)
        changed = replace(
            self,
            cut_card_round=self.rounds_completed,
            cut_mid_round=mid_round,
            rounds_left=self.rounds_after_cut,
        )
        if not mid_round and self.rounds_after_cut == 0:
            return replace(changed, phase=ShoePhase.ENDED)
        return changed

    def round_completed(self) -> ShoeProgress:
        """The round in progress is settled; the result's ``is_shoe_end`` says if that was the last."""
        self._expect(ShoePhase.IN_ROUND, "complete a round")
        ended = self.rounds_left == 0
        return replace(
            self,
            phase=ShoePhase.ENDED if ended else ShoePhase.READY,
            rounds_completed=self.rounds_completed + 1,
        )

    def _expect(self, phase: ShoePhase, action: str) -> None:
        if self.phase is not phase:
            raise ShoeProcedureError(
                f"cannot {action} now: the shoe is in phase {self.phase.value} ({self.instruction()})"
            )
