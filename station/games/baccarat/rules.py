"""Punto Banco rules, pure: point count, naturals, third-card rules, outcome, pairs.

Nothing here does I/O or keeps state between calls. The state machine, the simulators and
the odds analyser all ask the same functions, so there is exactly one statement of the
third-card rules in the project (RULES.md, "Dealing order and third-card rules").

The central question is :func:`next_hand`: given the cards dealt so far in a round, which
hand receives the next card, or is the round complete? The station checks every card read
from the shoe against that answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from station.cards import Card


class Hand(StrEnum):
    PLAYER = "player"
    BANKER = "banker"


class Outcome(StrEnum):
    BANKER = "banker"
    PLAYER = "player"
    TIE = "tie"

    @property
    def letter(self) -> str:
        return {"banker": "B", "player": "P", "tie": "T"}[self.value]


class RoundStateError(ValueError):
    """Cards that no legal baccarat round can contain (wrong order or too many)."""


def point_count(cards: Sequence[Card]) -> int:
    """Total of the point values modulo 10 (RULES 4.2): 9+7 -> 6, 5+5+5 -> 5, K+A+5 -> 6."""
    return sum(card.rank.baccarat_value for card in cards) % 10


def points_of_values(values: Sequence[int]) -> int:
    """Point count from baccarat values (0-9), for callers that work on values only."""
    return sum(values) % 10


def is_natural(cards: Sequence[Card]) -> bool:
    """A two-card hand of 8 or 9."""
    return len(cards) == 2 and point_count(cards) >= 8


def player_draws(player_total: int) -> bool:
    """Player draws on 0-5 and stands on 6-7 (naturals are handled before this)."""
    return player_total <= 5


def banker_draws(banker_total: int, player_third_value: int | None) -> bool:
    """Banker's third-card rule.

    ``player_third_value`` is the point value (0-9) of the Player's third card, or ``None``
    when the Player stood on two cards.
    """
    if player_third_value is None:
        return banker_total <= 5
    x = player_third_value
    if banker_total <= 2:
        return True
    if banker_total == 3:
        return x != 8
    if banker_total == 4:
        return 2 <= x <= 7
    if banker_total == 5:
        return 4 <= x <= 7
    if banker_total == 6:
        return 6 <= x <= 7
    return False


def next_hand_by_values(player: Sequence[int], banker: Sequence[int]) -> Hand | None:
    """:func:`next_hand` on point values (0-9) instead of cards."""
    np_, nb = len(player), len(banker)
    # Initial deal: Player, Banker, Player, Banker.
    if np_ + nb < 4:
        if np_ == nb:
            return Hand.PLAYER
        if np_ == nb + 1:
            return Hand.BANKER
        raise RoundStateError(f"cards out of dealing order: player has {np_}, banker {nb}")
    if np_ < 2 or nb < 2 or np_ > 3 or nb > 3:
        raise RoundStateError(f"impossible hands: player has {np_} cards, banker {nb}")
    pt = sum(player[:2]) % 10
    bt = sum(banker[:2]) % 10
    if pt >= 8 or bt >= 8:
        if np_ == 2 and nb == 2:
            return None
        raise RoundStateError("a third card was dealt after a natural")
    if np_ == 2:
        if player_draws(pt):
            if nb == 3:
                raise RoundStateError("banker drew before the player's third card")
            return Hand.PLAYER
        # Player stands on 6-7.
        if nb == 2:
            return Hand.BANKER if banker_draws(bt, None) else None
        if not banker_draws(bt, None):
            raise RoundStateError("banker drew a third card when the rules say stand")
        return None
    # Player has drawn a third card.
    if not player_draws(pt):
        raise RoundStateError("player drew a third card when the rules say stand")
    if nb == 2:
        return Hand.BANKER if banker_draws(bt, player[2]) else None
    if not banker_draws(bt, player[2]):
        raise RoundStateError("banker drew a third card when the rules say stand")
    return None


def next_hand(player: Sequence[Card], banker: Sequence[Card]) -> Hand | None:
    """Which hand receives the next card, or ``None`` when the round is complete.

    Raises :class:`RoundStateError` when the given hands cannot arise in a legal round.
    """
    return next_hand_by_values(
        [c.rank.baccarat_value for c in player], [c.rank.baccarat_value for c in banker]
    )


def deal_position(player: Sequence[Card], banker: Sequence[Card]) -> str | None:
    """What the dealer must do next, in words: ``"deal Banker third card"`` and so on."""
    hand = next_hand(player, banker)
    if hand is None:
        return None
    count = len(player) if hand is Hand.PLAYER else len(banker)
    ordinal = ("first", "second", "third")[count]
    return f"deal {hand.value.capitalize()} {ordinal} card"


def is_pair(cards: Sequence[Card]) -> bool:
    """The first two cards of a hand are of equal rank (a Player/Banker pair)."""
    return len(cards) >= 2 and cards[0].rank == cards[1].rank


@dataclass(frozen=True, slots=True)
class BaccaratResult:
    """The decided result of one complete baccarat round."""

    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    player_total: int
    banker_total: int
    outcome: Outcome
    natural: bool
    player_pair: bool
    banker_pair: bool

    @property
    def banker_wins_on_six(self) -> bool:
        return self.outcome is Outcome.BANKER and self.banker_total == 6

    @property
    def dragon_7(self) -> bool:
        """The Banker wins with a three-card 7: a Dragon 7 round (the Dragon 7 side bet wins,
        EZ Baccarat's Banker bet pushes), worked out from the cards, so every result has it."""
        return self.outcome is Outcome.BANKER and len(self.banker) == 3 and self.banker_total == 7

    @property
    def panda_8(self) -> bool:
        """The Player wins with a three-card 8: a Panda 8 round (the Panda 8 side bet wins)."""
        return self.outcome is Outcome.PLAYER and len(self.player) == 3 and self.player_total == 8


def outcome_of(player_total: int, banker_total: int) -> Outcome:
    if banker_total > player_total:
        return Outcome.BANKER
    if player_total > banker_total:
        return Outcome.PLAYER
    return Outcome.TIE


def result_of(player: Sequence[Card], banker: Sequence[Card]) -> BaccaratResult:
    """The result of a complete round; refuses hands the rules have not finished with."""
    if next_hand(player, banker) is not None:
        raise RoundStateError("the round is not complete: the rules call for another card")
    pt, bt = point_count(player), point_count(banker)
    return BaccaratResult(
        player=tuple(player),
        banker=tuple(banker),
        player_total=pt,
        banker_total=bt,
        outcome=outcome_of(pt, bt),
        natural=is_natural(player[:2]) or is_natural(banker[:2]),
        player_pair=is_pair(player),
        banker_pair=is_pair(banker),
    )


def play_round(draw: Callable[[], Card]) -> BaccaratResult:
    """Deal one complete round from ``draw`` (a callable returning the next card)."""
    player: list[Card] = []
    banker: list[Card] = []
    while (hand := next_hand(player, banker)) is not None:
        (player if hand is Hand.PLAYER else banker).append(draw())
    return result_of(player, banker)
