"""Baccarat's side bets and their pay tables (RULES "Baccarat side bets"), settled in integers.

A side bet is a wager of its own on a box, beside Banker, Player and Tie: it has its own
minimum and maximum, and it is settled, voided and corrected with its round. What it pays is
a *pay table* chosen per table from :data:`PAY_TABLES`, by name, so that the journal, the
meters and ``station analyze`` all say which table a bet was paid under.

The side bets, and what the rules leave to a choice:

- **Dragon 7**: wins when the Banker wins with a three-card 7 (40:1).
- **Panda 8**: wins when the Player wins with a three-card 8 (25:1).
- **Player Pair**, **Banker Pair**: the hand's first two cards are of one rank (11:1).
- **Either Pair**: either hand's first two cards are of one rank (5:1).
- **Perfect Pair**: one hand's first two cards are the same rank *and suit* (25:1), both
  hands (200:1); ``perfect_pair_25`` pays 25:1 for one or both. An unsuited pair loses under
  every table [choice: the rules ask each table to say; a payout of even 1:1 on an unsuited
  pair would turn the bet in the player's favour by about 15% of the stake, as ``station
  analyze`` shows for any such table, so none is offered].
- **Dragon Bonus** on Player or on Banker: the chosen hand wins with a natural 1:1; a
  natural tie pushes; a win by 9, 8, 7, 6, 5 or 4 points without a natural pays 30, 10, 6,
  4, 2 or 1; anything else loses. The alternative table ``dragon_bonus_b`` pays a win by 9
  points 25:1 and a natural win 1:1 as well [choice: a table a casino may prefer, its edge
  given by ``station analyze``].

- **Progressive** (``progressive_natural_pairs``, a choice: docs/progressive.md): by each
  hand's first two cards, a *natural pair* being a pair of 4s or of 9s (a natural 8). Both
  hands naturals by suited pairs win the whole meter; both naturals by pairs 500:1; one hand
  a natural by a suited pair 75:1; one by a pair 20:1. Its meter grows by a share of every
  wager (:mod:`station.core.progressive_steps`).

EZ Baccarat's Banker bet (no commission; a Banker win with a three-card 7 pushes) is not a
side bet but a way of paying the Banker bet, so it is a pay rule of the table, not here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from station.cards import Card
from station.games.baccarat.rules import BaccaratResult, Outcome, outcome_of


class SideBet(StrEnum):
    """A side bet's region on a box, as the layout names it."""

    DRAGON_7 = "dragon_7"
    PANDA_8 = "panda_8"
    PLAYER_PAIR = "player_pair"
    BANKER_PAIR = "banker_pair"
    EITHER_PAIR = "either_pair"
    PERFECT_PAIR = "perfect_pair"
    DRAGON_BONUS_PLAYER = "dragon_bonus_player"
    DRAGON_BONUS_BANKER = "dragon_bonus_banker"
    PROGRESSIVE = "progressive"

    @property
    def words(self) -> str:
        """The name a dealer reads on the layout ("Dragon 7", "Dragon Bonus Player")."""
        return _TITLES[self]


_TITLES = {
    SideBet.DRAGON_7: "Dragon 7", SideBet.PANDA_8: "Panda 8", SideBet.PLAYER_PAIR: "Player Pair",
    SideBet.BANKER_PAIR: "Banker Pair", SideBet.EITHER_PAIR: "Either Pair", SideBet.PERFECT_PAIR: "Perfect Pair",
    SideBet.DRAGON_BONUS_PLAYER: "Dragon Bonus Player", SideBet.DRAGON_BONUS_BANKER: "Dragon Bonus Banker",
    SideBet.PROGRESSIVE: "Progressive",
}


class SideResult(StrEnum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"


@dataclass(frozen=True)
class SidePayTable:
    """One named pay table of one side bet: what each winning hand pays, ``N`` to 1.

    ``awards`` maps the hand's name (see :func:`side_hand`) to its odds; a hand not in it
    loses, and a hand in ``pushes`` is a stand-off. ``meter`` maps a progressive's hands to the
    share of its meter they win, in percent: such a bet keeps its stake at the settlement (a
    win of 0) and is paid its share of the meter when a supervisor signs the award off
    (docs/progressive.md)."""

    name: str
    bet: SideBet
    awards: Mapping[str, int]
    pushes: frozenset[str] = frozenset()
    meter: Mapping[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        """The pay table in a dealer's words: "three card 7 40:1"; a Dragon Bonus's margins
        in one go: "natural win 1:1, win by 9/8/7/6/5/4 30/10/6/4/2/1:1, natural tie push"."""
        words = [f"{hand.replace('_', ' ')} {odds}:1" for hand, odds in self.awards.items()
                 if not hand.startswith("win_by_")]
        margins = [(hand.removeprefix("win_by_"), odds) for hand, odds in self.awards.items()
                   if hand.startswith("win_by_")]
        if margins:
            words.append(f"win by {'/'.join(m for m, _ in margins)} {'/'.join(str(o) for _, o in margins)}:1")
        words += [f"{hand.replace('_', ' ')} push" for hand in sorted(self.pushes)]
        words = [f"{hand.replace('_', ' ')} {share}% of the meter" for hand, share in self.meter.items()] + words
        return ", ".join(words)


_DRAGON_BONUS = {"natural_win": 1, "win_by_9": 30, "win_by_8": 10, "win_by_7": 6, "win_by_6": 4,
                 "win_by_5": 2, "win_by_4": 1}


def _tables() -> dict[str, SidePayTable]:
    tables = [
        SidePayTable("dragon_7_40", SideBet.DRAGON_7, {"three_card_7": 40}),
        SidePayTable("panda_8_25", SideBet.PANDA_8, {"three_card_8": 25}),
        SidePayTable("player_pair_11", SideBet.PLAYER_PAIR, {"pair": 11}),
        SidePayTable("banker_pair_11", SideBet.BANKER_PAIR, {"pair": 11}),
        SidePayTable("either_pair_5", SideBet.EITHER_PAIR, {"pair": 5}),
        SidePayTable("perfect_pair_25_200", SideBet.PERFECT_PAIR, {"both_suited": 200, "one_suited": 25}),
        SidePayTable("perfect_pair_25", SideBet.PERFECT_PAIR, {"both_suited": 25, "one_suited": 25}),
    ]
    for bet, side in ((SideBet.DRAGON_BONUS_PLAYER, "player"), (SideBet.DRAGON_BONUS_BANKER, "banker")):
        tables.append(SidePayTable(f"dragon_bonus_{side}_a", bet, _DRAGON_BONUS, frozenset({"natural_tie"})))
        tables.append(SidePayTable(f"dragon_bonus_{side}_b", bet, {**_DRAGON_BONUS, "win_by_9": 25},
                                   frozenset({"natural_tie"})))
    tables.append(SidePayTable("progressive_natural_pairs", SideBet.PROGRESSIVE, PROGRESSIVE_AWARDS,
                               meter={"both_suited": 100}))
    return {table.name: table for table in tables}


#: The fixed awards of the progressive ``progressive_natural_pairs`` (the meter pays the rest).
PROGRESSIVE_AWARDS = {"both_pairs": 500, "one_suited": 75, "one_pair": 20}


#: Every pay table a table may choose, by name.
PAY_TABLES: dict[str, SidePayTable] = _tables()
#: Each side bet's pay table when a table names none.
DEFAULT_PAY_TABLES: dict[SideBet, str] = {
    SideBet.DRAGON_7: "dragon_7_40", SideBet.PANDA_8: "panda_8_25", SideBet.PLAYER_PAIR: "player_pair_11",
    SideBet.BANKER_PAIR: "banker_pair_11", SideBet.EITHER_PAIR: "either_pair_5",
    SideBet.PERFECT_PAIR: "perfect_pair_25_200", SideBet.DRAGON_BONUS_PLAYER: "dragon_bonus_player_a",
    SideBet.DRAGON_BONUS_BANKER: "dragon_bonus_banker_a", SideBet.PROGRESSIVE: "progressive_natural_pairs",
}


def _suited_pair(cards: tuple[Card, ...]) -> bool:
    return len(cards) >= 2 and cards[0] == cards[1]


def _pair(cards: tuple[Card, ...]) -> bool:
    return len(cards) >= 2 and cards[0].rank == cards[1].rank


#: The side bets decided by the hands' points and card counts alone (not by ranks or suits).
VALUE_BETS = frozenset({SideBet.DRAGON_7, SideBet.PANDA_8, SideBet.DRAGON_BONUS_PLAYER, SideBet.DRAGON_BONUS_BANKER})


def value_hand(bet: SideBet, player_total: int, banker_total: int, player_cards: int, banker_cards: int) -> str:
    """The hand as a :data:`VALUE_BETS` bet's pay tables name it, from the round's points and
    how many cards each hand took (a natural is a two-card 8 or 9). ``station analyze`` counts
    the same hands for every composition, so what is paid and what is priced agree."""
    outcome = outcome_of(player_total, banker_total)
    if bet is SideBet.DRAGON_7:
        won = outcome is Outcome.BANKER and banker_cards == 3 and banker_total == 7
        return "three_card_7" if won else "none"
    if bet is SideBet.PANDA_8:
        won = outcome is Outcome.PLAYER and player_cards == 3 and player_total == 8
        return "three_card_8" if won else "none"
    side = Outcome.PLAYER if bet is SideBet.DRAGON_BONUS_PLAYER else Outcome.BANKER
    mine, theirs = (player_total, player_cards), (banker_total, banker_cards)
    if side is Outcome.BANKER:
        mine, theirs = theirs, mine
    natural, their_natural = mine[1] == 2 and mine[0] >= 8, theirs[1] == 2 and theirs[0] >= 8
    if outcome is Outcome.TIE:
        return "natural_tie" if natural and their_natural else "tie"
    if outcome is not side:
        return "loss"
    return "natural_win" if natural else f"win_by_{mine[0] - theirs[0]}"


#: The ranks whose pair is a natural (4-4 is 8, 9-9 is 18: 8): the progressive's hands.
NATURAL_PAIR_RANKS = frozenset({"4", "9"})


def _natural_pair(cards: tuple[Card, ...]) -> bool:
    return _pair(cards) and cards[0].rank.value in NATURAL_PAIR_RANKS


def natural_pairs_hand(player: tuple[Card, ...], banker: tuple[Card, ...]) -> str:
    """The progressive's hand, by each hand's first two cards: ``both_suited`` (both a natural
    made of a suited pair, e.g. 4S 4S and 9H 9H), ``both_pairs`` (both naturals by pairs, not
    both suited), ``one_suited`` (one hand alone, its pair suited), ``one_pair``, or ``none``."""
    pairs = _natural_pair(player) + _natural_pair(banker)
    suited = (_natural_pair(player) and _suited_pair(player)) + (_natural_pair(banker) and _suited_pair(banker))
    if pairs == 2:
        return "both_suited" if suited == 2 else "both_pairs"
    if pairs == 1:
        return "one_suited" if suited else "one_pair"
    return "none"


def side_hand(bet: SideBet, result: BaccaratResult) -> str:
    """The hand of ``result`` as ``bet``'s pay tables name it ("three_card_7", "win_by_8",
    "one_suited", ...; "none" when nothing of the bet happened)."""
    if bet in VALUE_BETS:
        return value_hand(bet, result.player_total, result.banker_total, len(result.player), len(result.banker))
    if bet is SideBet.PROGRESSIVE:
        return natural_pairs_hand(result.player, result.banker)
    player, banker = _pair(result.player), _pair(result.banker)
    if bet is SideBet.PLAYER_PAIR:
        return "pair" if player else "none"
    if bet is SideBet.BANKER_PAIR:
        return "pair" if banker else "none"
    if bet is SideBet.EITHER_PAIR:
        return "pair" if player or banker else "none"
    suited = _suited_pair(result.player) + _suited_pair(result.banker)
    if suited:
        return "both_suited" if suited == 2 else "one_suited"
    return "unsuited" if player or banker else "none"


def settle_side(table: SidePayTable, stake: int, result: BaccaratResult) -> tuple[str, SideResult, int]:
    """(hand, result, winnings) of a side bet of ``stake`` under ``table``: integers only."""
    hand = side_hand(table.bet, result)
    if hand in table.meter:
        return hand, SideResult.WIN, stake * table.awards.get(hand, 0)
    if hand in table.pushes:
        return hand, SideResult.PUSH, 0
    odds = table.awards.get(hand)
    if odds is None:
        return hand, SideResult.LOSE, 0
    return hand, SideResult.WIN, stake * odds


@dataclass(frozen=True)
class OfferedSideBet:
    """A side bet a table offers: its region, the pay table it pays by and its own limits
    (minor units, per player per box: RULES "Baccarat side bets")."""

    bet: SideBet
    pays: str
    min_bet: int
    max_bet: int

    @property
    def pay_table(self) -> SidePayTable:
        return PAY_TABLES[self.pays]

    @property
    def region(self) -> str:
        return self.bet.value


def pay_tables_of(bet: SideBet) -> tuple[str, ...]:
    """The names of ``bet``'s pay tables, its default first."""
    default = DEFAULT_PAY_TABLES[bet]
    return (default, *(name for name, table in PAY_TABLES.items() if table.bet is bet and name != default))


def offer_problems(name: str, pays: str, low: int, high: int, smallest_chip: int) -> list[tuple[str, str]]:
    """What cannot be right in a table's offer of the side bet ``name`` paying by ``pays`` (""
    for its default) between ``low`` and ``high``: (key under ``side_bets.<name>``, message),
    the key empty for the side bet itself."""
    try:
        bet = SideBet(name)
    except ValueError:
        return [("", f"{name!r} is not a side bet; use one of {', '.join(b.value for b in SideBet)}")]
    problems: list[tuple[str, str]] = []
    table = PAY_TABLES.get(pays) if pays else PAY_TABLES[DEFAULT_PAY_TABLES[bet]]
    choices = ", ".join(pay_tables_of(bet))
    if table is None:
        problems.append(("pays", f"{pays!r} is not a pay table; {bet.words} pays by {choices}"))
    elif table.bet is not bet:
        problems.append(("pays", f"{pays!r} is a pay table of {table.bet.words}, not of {bet.words}; use {choices}"))
    for key, value in (("min", low), ("max", high)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            problems.append((key, f"must be a whole number of minor units above 0, got {value!r}"))
        elif value % smallest_chip:
            problems.append((key, f"{value} cannot be made with a smallest chip of {smallest_chip}"))
    if not problems and high < low:
        problems.append(("max", f"maximum {high} is below the minimum {low}"))
    return problems
