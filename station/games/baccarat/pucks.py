"""The marker pucks of dealing styles B and D (seed 000 rule 3.3): who holds the Banker's and
the Player's cards to squeeze and turn them.

Rule 3.3 names two round pucks marked "Banker" and "Player" to show who is the Banker and who
the Player under styles B and D; rule 5.6 says a standing player is never designated Banker or
Player. Which seated player gets each puck the rules leave open [choice, common practice]:

- the Banker puck goes to the seated player with the largest bet on the Banker spot of a
  numbered box, the Player puck to the one with the largest bet on a Player spot;
- standing-player regions (full baccarat) never count (5.6);
- equal bets: the lower box number, then the bet placed first on that box;
- one player may hold both pucks (largest bet on each side);
- a side nobody seated bets on has no puck: the dealer squeezes and turns its cards.

Designated once at "no more bets" (again if a supervisor reopened betting, 5.14), from the
bets the round is dealt for. Pure: no I/O, no state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from station.games.baccarat.rules import Hand
from station.games.baccarat.wagers import place_of
from station.games.layout import BetFormError, BetKey


@dataclass(frozen=True, slots=True)
class Holder:
    """The seated player who holds ``hand``'s cards: ``box`` as the layout names it."""

    hand: Hand
    box: str
    player: str

    def words(self) -> str:
        return f"box {self.box} ({self.player})"


def designate(bets: Mapping[BetKey, int]) -> tuple[Holder, ...]:
    """The holders of the Banker and Player pucks for a round dealt for ``bets`` (Banker
    first; a hand nobody seated bets on is missing: the dealer turns its cards)."""
    best: dict[Hand, tuple[tuple[int, int, int], Holder]] = {}
    for order, ((box, player, region), amount) in enumerate(bets.items()):
        if region not in (Hand.BANKER.value, Hand.PLAYER.value):
            continue  # a Tie bet holds no cards
        try:
            place = place_of(box)
        except BetFormError:
            continue
        if place.standing:
            continue  # 5.6: a standing player is never Banker or Player
        hand = Hand(region)
        rank = (-amount, place.number, order)
        if hand not in best or rank < best[hand][0]:
            best[hand] = (rank, Holder(hand, box, player))
    return tuple(best[hand][1] for hand in (Hand.BANKER, Hand.PLAYER) if hand in best)
