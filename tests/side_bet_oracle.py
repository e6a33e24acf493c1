"""What each side bet's pay table pays on a round, written from the rules' text (RULES
"Baccarat side bets") on the cards themselves: the oracle the station's settlement and its
exact odds are checked against. It uses nothing of ``station.games`` but the result's cards."""

from __future__ import annotations

from collections.abc import Callable

from station.cards import Card
from station.games.baccarat.rules import BaccaratResult


def _points(cards: tuple[Card, ...]) -> int:
    """Baccarat points from the rank's letter: A 1, 2-9 their number, T J Q K nothing."""
    return sum(int(c.rank.value) if c.rank.value.isdigit() else c.rank.value == "A" for c in cards) % 10


def _natural(hand: tuple[Card, ...]) -> bool:
    return len(hand) == 2 and _points(hand) >= 8


def _dragon_bonus(side: str, nine: int) -> Callable[[BaccaratResult], int]:
    def pays(r: BaccaratResult) -> int:
        mine, theirs = (r.player, r.banker) if side == "player" else (r.banker, r.player)
        me, them = _points(mine), _points(theirs)
        if me == them:
            return 0 if _natural(mine) and _natural(theirs) else -1
        if me < them:
            return -1
        if _natural(mine):
            return 1
        return {9: nine, 8: 10, 7: 6, 6: 4, 5: 2, 4: 1}.get(me - them, -1)
    return pays


def _perfect(one: int, both: int) -> Callable[[BaccaratResult], int]:
    def pays(r: BaccaratResult) -> int:
        suited = (r.player[0] == r.player[1]) + (r.banker[0] == r.banker[1])
        return both if suited == 2 else one if suited == 1 else -1
    return pays


def _progressive(r: BaccaratResult) -> int:
    """A natural by a pair: the hand's first two cards of one rank, worth 8 or 9 together.
    Both hands so and both suited win the meter (0 here: the stake kept, the meter paid
    apart); both hands 500; one hand suited 75; one hand 20."""
    def natural_pair(hand: tuple[Card, ...]) -> bool:
        return hand[0].rank == hand[1].rank and _points(hand[:2]) >= 8
    pairs = [natural_pair(h) for h in (r.player, r.banker)]
    suited = [p and h[0] == h[1] for p, h in zip(pairs, (r.player, r.banker), strict=True)]
    if all(pairs):
        return 0 if all(suited) else 500
    if any(pairs):
        return 75 if any(suited) else 20
    return -1


#: What each pay table pays on a round, N for N:1, 0 a push, -1 the stake lost: from the
#: rules' words, on the cards themselves.
ORACLE: dict[str, Callable[[BaccaratResult], int]] = {
    "dragon_7_40": lambda r: 40 if len(r.banker) == 3 and _points(r.banker) == 7 > _points(r.player) else -1,
    "panda_8_25": lambda r: 25 if len(r.player) == 3 and _points(r.player) == 8 > _points(r.banker) else -1,
    "player_pair_11": lambda r: 11 if r.player[0].rank == r.player[1].rank else -1,
    "banker_pair_11": lambda r: 11 if r.banker[0].rank == r.banker[1].rank else -1,
    "either_pair_5": lambda r: 5 if r.player[0].rank == r.player[1].rank or r.banker[0].rank == r.banker[1].rank
    else -1,
    "perfect_pair_25_200": _perfect(25, 200),
    "perfect_pair_25": _perfect(25, 25),
    "dragon_bonus_player_a": _dragon_bonus("player", 30), "dragon_bonus_player_b": _dragon_bonus("player", 25),
    "dragon_bonus_banker_a": _dragon_bonus("banker", 30), "dragon_bonus_banker_b": _dragon_bonus("banker", 25),
    "progressive_natural_pairs": _progressive,
}


def ez_banker(r: BaccaratResult) -> int:
    banker, player = _points(r.banker), _points(r.player)
    if banker > player:
        return 0 if len(r.banker) == 3 and banker == 7 else 1
    return -1 if player > banker else 0
