"""Baccarat bets: where they may go, how large they may be, and the table differential.

Pure functions over the table options (:class:`~station.games.baccarat.table.BaccaratTable`) and the
bets already on the layout. A refusal always carries a reason a dealer can read out
("Banker bet of 0.30 EUR cannot be paid exactly in chips of 0.01 EUR: largest acceptable is
0.20 EUR"), amounts written with the table's :attr:`~BaccaratTable.money`, and the
rule it comes from, so the display can show it and the journal can record it.

Words used here: a *place* is a numbered box (seated players) or a standing-player region
(full baccarat only); each place has three *spots*, Banker, Player and Tie. A bet is one
player's chips on one spot of one place. Rule numbers refer to seed 000.

Bets arrive in the layout's words (``("S2", "ann", "banker")``, see
:mod:`station.games.layout`); :func:`bet_from_layout` turns them into typed :class:`Bet`.
The table differential (5.17, 5.18) is in :mod:`station.games.baccarat.differential`.

Timing (late bets, changes after a tie) is the state machine's business, not this module's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from station.games.baccarat.rules import Outcome
from station.games.baccarat.table import BaccaratTable, RegionCap, Variant, commission_step
from station.games.layout import Acceptance, BetFormError, BetKey
from station.money import Money


@dataclass(frozen=True, order=True)
class Place:
    """A numbered box (``standing=False``) or a standing-player region, numbered from 1."""

    number: int
    standing: bool = False

    def __str__(self) -> str:
        return f"standing region {self.number}" if self.standing else f"box {self.number}"


def box(number: int) -> Place:
    return Place(number)


def standing(number: int) -> Place:
    return Place(number, standing=True)


@dataclass(frozen=True)
class Bet:
    """One player's chips on one spot: ``on`` is Banker, Player or Tie; ``amount`` in minor units."""

    place: Place
    player: str
    on: Outcome
    amount: int

    def describe(self, money: Money) -> str:
        return f"{self.on.value.capitalize()} bet of {money.with_currency(self.amount)}"


#: The spots of a place, as the layout names them.
REGIONS = ("banker", "player", "tie")


@lru_cache(maxsize=256)
def place_of(box: str) -> Place:
    """``"3"`` is box 3; ``"S2"`` is standing region 2 (full baccarat)."""
    text = box.strip().upper()
    is_standing = text.startswith("S")
    digits = text[1:] if is_standing else text
    if not digits.isdigit():
        raise BetFormError(f"{box!r} is not a box number or a standing region such as S1")
    return Place(int(digits), standing=is_standing)


@lru_cache(maxsize=4096)
def bet_from_layout(key: BetKey, amount: int) -> Bet:
    """The typed bet for a layout entry; cached, since a layout is read again at every bet."""
    box_text, player, region = key
    if region not in REGIONS:
        raise BetFormError(f"{region!r} is not a baccarat betting region (banker, player or tie)")
    return Bet(place_of(box_text), player, Outcome(region), amount)


def banker_step(table: BaccaratTable) -> int:
    """The amounts a Banker bet may take are the multiples of this (5.12): under commission
    :func:`~station.games.baccarat.table.commission_step` (20 with chips of 1); without
    commission (5.11) rule 5.12 does not apply and any multiple of the smallest chip will do.
    """
    c = table.smallest_chip
    return commission_step(c) if table.commission else c


def valid_part(bet: Bet, table: BaccaratTable) -> int:
    """How much of an already-accepted bet is valid (5.13); the rest is void.

    Only a Banker bet under commission can have a void part: the largest part that could be
    paid exactly in chips is valid. A Banker bet of 30 with chips of 1 pays 28.50, which
    cannot be paid, so 20 is valid (it pays 19) and 10 is void. Player and Tie bets pay
    whole multiples of the stake and are always wholly valid.
    """
    if bet.on is Outcome.BANKER and table.commission:
        step = banker_step(table)
        return bet.amount // step * step
    return bet.amount


#: A place and the player betting there: who sits where (5.6-5.8).
Seat = tuple[Place, str]


def place_problem(place: Place, table: BaccaratTable) -> str | None:
    if not isinstance(place, Place) or not isinstance(place.number, int):
        return f"{place!r} is not a betting place"
    if place.standing:
        if table.variant is not Variant.FULL:
            return f"{table.variant.value} baccarat has no standing-player regions"
        if not 1 <= place.number <= table.standing_regions:
            return f"there is no {place}: this table has {table.standing_regions} standing regions"
    elif not 1 <= place.number <= table.boxes:
        return f"there is no {place}: this table has boxes 1 to {table.boxes}"
    return None


def accept_bet(
    bet: Bet,
    on_table: Sequence[Bet],
    table: BaccaratTable,
    *,
    personal_max: Mapping[str, int] | None = None,
    seats: Sequence[Seat] | None = None,
) -> Acceptance:
    """May ``bet`` join ``on_table`` (the bets already accepted this round)?

    A bet on a spot where the same player already has chips adds to them; the limits are
    checked on the totals. ``personal_max`` gives players whose maximum differs from the
    table's (5.9: "the applicable (table or individual) maximum"). ``seats`` are the places
    and players of every bet on the table, side bets included (those of ``on_table`` when
    not given): who sits where is decided by them all.
    """
    where = place_problem(bet.place, table)
    if where:
        return Acceptance.refuse(where, "3.1")
    if not isinstance(bet.on, Outcome):
        return Acceptance.refuse(f"{bet.on!r} is not Banker, Player or Tie", "5.1")
    if not isinstance(bet.amount, int) or isinstance(bet.amount, bool) or bet.amount <= 0:
        return Acceptance.refuse(f"a bet must be a positive whole amount, got {bet.amount!r}", "5.3")
    if not isinstance(bet.player, str) or not bet.player:
        return Acceptance.refuse("a bet needs the player it belongs to", "5.5")
    # Every non-empty combination of Banker, Player and Tie is allowed (5.2); with the spot
    # checked above there is nothing more to refuse about combinations.
    c, money = table.smallest_chip, table.money.with_currency
    what = bet.describe(table.money)
    if bet.amount % c:
        return Acceptance.refuse(f"{what} cannot be made of chips of {money(c)}", "5.3")
    same_spot = [b for b in on_table if b.place == bet.place and b.on is bet.on]
    mine_here = sum(b.amount for b in same_spot if b.player == bet.player) + bet.amount
    if mine_here < table.min_bet:
        return Acceptance.refuse(
            f"{what} on {bet.place} is below the table minimum of {money(table.min_bet)}", "5.9"
        )
    seating = seating_problem(bet.place, bet.player, [(b.place, b.player) for b in on_table] if seats is None
                              else seats, table)
    if seating is not None:
        return seating
    if bet.on is Outcome.BANKER and table.commission:
        step = banker_step(table)
        if mine_here % step:
            largest = mine_here // step * step
            stake = what if mine_here == bet.amount else f"Banker total of {money(mine_here)} on {bet.place}"
            hint = (
                f"largest acceptable is {money(largest)}" if largest >= table.min_bet
                else f"acceptable amounts are multiples of {money(step)}"
            )
            return Acceptance.refuse(f"{stake} cannot be paid exactly in chips of {money(c)}: {hint}", "5.12")
    limit = (personal_max or {}).get(bet.player, table.max_bet)
    on_outcome = sum(b.amount for b in on_table if b.player == bet.player and b.on is bet.on)
    total = on_outcome + bet.amount
    if total > limit:
        room = max(0, limit - on_outcome)
        return Acceptance.refuse(
            f"{what} takes player {bet.player}'s total on {bet.on.value.capitalize()} "
            f"to {money(total)}, over the maximum of {money(limit)}: at most {money(room)} more",
            "5.9",
        )
    capped = _region_cap_problem(bet, same_spot, mine_here, table)
    return capped if capped is not None else Acceptance.ok()


def seating_problem(place: Place, player: str, seats: Sequence[Seat], table: BaccaratTable) -> Acceptance | None:
    """Why ``player`` may not bet on ``place`` where ``seats`` already bet (5.6-5.8), or None."""
    others_here = {who for where, who in seats if where == place} - {player}
    if table.variant is Variant.FULL:
        if place.standing:
            seat = next((where for where, who in seats if who == player and not where.standing), None)
            if seat is not None:
                return Acceptance.refuse(
                    f"player {player} is seated at {seat}: standing regions are for standing players",
                    "5.6",
                )
            return None
        if others_here:
            owner = sorted(others_here)[0]
            return Acceptance.refuse(
                f"{place} belongs to seated player {owner}: one player per box in full baccarat",
                "5.7",
            )
        if any(who == player and where.standing for where, who in seats):
            return Acceptance.refuse(
                f"player {player} bets as a standing player: numbered boxes are for seated players",
                "5.6",
            )
        return None
    if len(others_here) + 1 > table.players_per_box:
        return Acceptance.refuse(
            f"{place} already has {len(others_here)} players: at most "
            f"{table.players_per_box} may bet on one box",
            "5.8",
        )
    return None


def _region_cap_problem(
    bet: Bet, same_spot: Sequence[Bet], mine_here: int, table: BaccaratTable
) -> Acceptance | None:
    spot = f"the {bet.on.value.capitalize()} spot of {bet.place}"
    what, money = bet.describe(table.money), table.money.with_currency
    if table.region_cap is RegionCap.TABLE_TOTAL:
        total = sum(b.amount for b in same_spot) + bet.amount
        if total > table.max_bet:
            return Acceptance.refuse(
                f"{what} takes all players' bets on {spot} to {money(total)}, over the "
                f"table maximum of {money(table.max_bet)}",
                "5.8",
            )
    elif table.region_cap is RegionCap.PLAYER_TOTAL and mine_here > table.max_bet:
        return Acceptance.refuse(
            f"{what} takes player {bet.player}'s bets on {spot} to {money(mine_here)}, over "
            f"the table maximum of {money(table.max_bet)}",
            "5.8",
        )
    return None
