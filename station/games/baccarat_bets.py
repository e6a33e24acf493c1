"""Baccarat bets: where they may go, how large they may be, and the table differential.

Pure functions over the table options (:class:`~station.games.table.BaccaratTable`) and the
bets already on the layout. A refusal always carries a reason a dealer can read out
("Banker bet of 30 cannot be paid exactly in chips of 1: largest acceptable is 20") and the
rule it comes from, so the display can show it and the journal can record it.

Words used here: a *place* is a numbered box (seated players) or a standing-player region
(full baccarat only); each place has three *spots*, Banker, Player and Tie. A bet is one
player's chips on one spot of one place. Rule numbers refer to seed 000.

Timing (late bets, changes after a tie) is the state machine's business, not this module's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import gcd

from station.games.baccarat import Outcome
from station.games.table import BaccaratTable, RegionCap, Variant

#: Banker's commission (5.10) as a fraction: what a winning Banker bet keeps of 1:1 winnings.
COMMISSION_PERCENT = 5
BANKER_KEEPS_PERCENT = 100 - COMMISSION_PERCENT


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

    def describe(self) -> str:
        return f"{self.on.value.capitalize()} bet of {self.amount}"


@dataclass(frozen=True)
class Acceptance:
    """The answer to "may this bet go on the table?"; ``reason`` is empty when accepted."""

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


def banker_step(table: BaccaratTable) -> int:
    """The amounts a Banker bet may take are the multiples of this (5.12).

    Under commission a Banker bet ``v`` wins ``v * 95 / 100``; that must be a whole multiple
    of the smallest chip ``c``, and ``v`` itself must be made of chips. So ``v`` must be a
    multiple of ``c`` and of ``100c / gcd(95, 100c)``: with ``c = 1`` that is 20, with ``c =
    25`` it is 500, with ``c = 100`` (cents, chips of 1.00) it is 2000. Without commission
    (5.11) rule 5.12 does not apply and any multiple of the smallest chip will do.
    """
    c = table.smallest_chip
    if not table.commission:
        return c
    exact = 100 * c // gcd(BANKER_KEEPS_PERCENT, 100 * c)
    return exact * c // gcd(exact, c)


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


def _place_problem(place: Place, table: BaccaratTable) -> str | None:
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
) -> Acceptance:
    """May ``bet`` join ``on_table`` (the bets already accepted this round)?

    A bet on a spot where the same player already has chips adds to them; the limits are
    checked on the totals. ``personal_max`` gives players whose maximum differs from the
    table's (5.9: "the applicable (table or individual) maximum").
    """
    where = _place_problem(bet.place, table)
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
    c = table.smallest_chip
    if bet.amount % c:
        return Acceptance.refuse(
            f"{bet.describe()} cannot be made of chips of {c}", "5.3"
        )
    same_spot = [b for b in on_table if b.place == bet.place and b.on is bet.on]
    mine_here = sum(b.amount for b in same_spot if b.player == bet.player) + bet.amount
    if mine_here < table.min_bet:
        return Acceptance.refuse(
            f"{bet.describe()} on {bet.place} is below the table minimum of {table.min_bet}", "5.9"
        )
    seating = _seating_problem(bet, on_table, table)
    if seating is not None:
        return seating
    if bet.on is Outcome.BANKER and table.commission:
        step = banker_step(table)
        if mine_here % step:
            largest = mine_here // step * step
            what = (
                f"Banker bet of {mine_here}" if mine_here == bet.amount
                else f"Banker total of {mine_here} on {bet.place}"
            )
            hint = (
                f"largest acceptable is {largest}" if largest >= table.min_bet
                else f"acceptable amounts are multiples of {step}"
            )
            return Acceptance.refuse(
                f"{what} cannot be paid exactly in chips of {c}: {hint}", "5.12"
            )
    limit = (personal_max or {}).get(bet.player, table.max_bet)
    on_outcome = sum(b.amount for b in on_table if b.player == bet.player and b.on is bet.on)
    total = on_outcome + bet.amount
    if total > limit:
        room = max(0, limit - on_outcome)
        return Acceptance.refuse(
            f"{bet.describe()} takes player {bet.player}'s total on {bet.on.value.capitalize()} "
            f"to {total}, over the maximum of {limit}: at most {room} more",
            "5.9",
        )
    capped = _region_cap_problem(bet, same_spot, mine_here, table)
    return capped if capped is not None else Acceptance.ok()


def _seating_problem(bet: Bet, on_table: Sequence[Bet], table: BaccaratTable) -> Acceptance | None:
    others_here = {b.player for b in on_table if b.place == bet.place} - {bet.player}
    if table.variant is Variant.FULL:
        if bet.place.standing:
            seat = next((b.place for b in on_table if b.player == bet.player and not b.place.standing), None)
            if seat is not None:
                return Acceptance.refuse(
                    f"player {bet.player} is seated at {seat}: standing regions are for standing players",
                    "5.6",
                )
            return None
        if others_here:
            owner = sorted(others_here)[0]
            return Acceptance.refuse(
                f"{bet.place} belongs to seated player {owner}: one player per box in full baccarat",
                "5.7",
            )
        if any(b.player == bet.player and b.place.standing for b in on_table):
            return Acceptance.refuse(
                f"player {bet.player} bets as a standing player: numbered boxes are for seated players",
                "5.6",
            )
        return None
    if len(others_here) + 1 > table.players_per_box:
        return Acceptance.refuse(
            f"{bet.place} already has {len(others_here)} players: at most "
            f"{table.players_per_box} may bet on one box",
            "5.8",
        )
    return None


def _region_cap_problem(
    bet: Bet, same_spot: Sequence[Bet], mine_here: int, table: BaccaratTable
) -> Acceptance | None:
    spot = f"the {bet.on.value.capitalize()} spot of {bet.place}"
    if table.region_cap is RegionCap.ALL_PLAYERS:
        total = sum(b.amount for b in same_spot) + bet.amount
        if total > table.max_bet:
            return Acceptance.refuse(
                f"{bet.describe()} takes all players' bets on {spot} to {total}, over the "
                f"table maximum of {table.max_bet}",
                "5.8",
            )
    elif table.region_cap is RegionCap.EACH_PLAYER and mine_here > table.max_bet:
        return Acceptance.refuse(
            f"{bet.describe()} takes player {bet.player}'s bets on {spot} to {mine_here}, over "
            f"the table maximum of {table.max_bet}",
            "5.8",
        )
    return None


# --- Table differential (5.17, 5.18) -------------------------------------------------------


def side_totals(bets: Iterable[Bet]) -> tuple[int, int]:
    """(total on Banker, total on Player); Tie bets do not count toward the differential."""
    banker = player = 0
    for bet in bets:
        if bet.on is Outcome.BANKER:
            banker += bet.amount
        elif bet.on is Outcome.PLAYER:
            player += bet.amount
    return banker, player


def differential_excess(bets: Iterable[Bet], table: BaccaratTable) -> int:
    """By how much |Banker total − Player total| exceeds the table differential (0 if not)."""
    if table.table_differential is None:
        return 0
    banker, player = side_totals(bets)
    return max(0, abs(banker - player) - table.table_differential)


@dataclass(frozen=True)
class Reduction:
    """One bet cut down by the dealer under 5.18: ``new_amount`` may be 0 (bet removed).

    ``index`` is the bet's position in the sequence given to :func:`reduce_for_differential`.
    """

    index: int
    bet: Bet
    new_amount: int
    reason: str

    @property
    def returned(self) -> int:
        return self.bet.amount - self.new_amount


@dataclass(frozen=True)
class DifferentialReduction:
    """The outcome of :func:`reduce_for_differential`.

    ``possible`` is False when no reduction of the larger side in whole chips can bring the
    difference within the differential (then ``reductions`` is empty and ``reason`` says
    why: the dealer or supervisor must decide). ``ratio`` is the common fraction the
    larger side's bets were scaled by before rounding down; ``given_back`` is the amount
    handed back after rounding in the rare case described in :func:`reduce_for_differential`.
    """

    possible: bool
    reductions: tuple[Reduction, ...]
    reason: str
    ratio: Fraction | None = None
    given_back: int = 0

    def apply(self, bets: Sequence[Bet]) -> list[Bet]:
        """The bets after the reductions, in their original order, without removed ones."""
        new = {r.index: r.new_amount for r in self.reductions}
        out: list[Bet] = []
        for i, bet in enumerate(bets):
            amount = new.get(i, bet.amount)
            if amount:
                out.append(bet if amount == bet.amount else Bet(bet.place, bet.player, bet.on, amount))
        return out


def reduce_for_differential(bets: Sequence[Bet], table: BaccaratTable) -> DifferentialReduction:
    """Reduce the bets on the larger side pro rata so the table differential holds (5.18).

    With totals ``L`` (larger side) and ``S`` (smaller side) and differential ``D``, every bet
    ``a`` on the larger side becomes ``a × r`` rounded **down** to whole chips [choice] (for
    Banker bets under commission, down to an amount rule 5.12 accepts, so no part of a
    reduced bet turns void). The common ratio ``r`` is the largest (at least ``(S + D) / L``)
    for which the rounded-down bets still total at most ``S + D``, so rounding takes no more
    than it must. Rounding down can only take the larger side further down; in the rare case that it then falls more than ``D`` below the other side (large
    chips, small differential), the chips lost to rounding are given back one step at a time
    to the bets that lost the largest fraction, never above their original amount. If even
    that cannot satisfy the differential, nothing is reduced and ``possible`` is False.
    Bets are never increased and the smaller side is never touched.
    """
    limit = table.table_differential
    banker, player = side_totals(bets)
    if limit is None or abs(banker - player) <= limit:
        return DifferentialReduction(True, (), "the table differential is not exceeded")
    larger_side = Outcome.BANKER if banker > player else Outcome.PLAYER
    large, small = max(banker, player), min(banker, player)
    target = small + limit
    ratio = Fraction(target, large)
    chip = table.smallest_chip
    victims = [(i, bet) for i, bet in enumerate(bets) if bet.on is larger_side]
    steps = {i: (banker_step(table) if larger_side is Outcome.BANKER else chip) for i, _ in victims}
    new = {i: int(bet.amount * ratio) // steps[i] * steps[i] for i, bet in victims}
    total = sum(new.values())
    # Raise the common ratio while the rounded-down bets still fit: each bet's amount only
    # changes where ``a × ratio`` crosses a whole step, so walk those points in order.
    while True:
        next_points = {
            i: Fraction(new[i] + steps[i], bet.amount)
            for i, bet in victims
            if new[i] + steps[i] <= bet.amount
        }
        if not next_points:
            break
        point = min(next_points.values())
        rising = [i for i, p in next_points.items() if p == point]
        gain = sum(steps[i] for i in rising)
        if total + gain > target:
            break
        ratio = point
        for i in rising:
            new[i] += steps[i]
        total += gain
    gave_back = 0
    if total < small - limit:
        # Bets that must stay in proportion all jumped past the window together (equal bets,
        # large chips): give back the rounding losses one step at a time, largest lost
        # fraction first (ties: table order).
        order = sorted(victims, key=lambda item: (-(item[1].amount * ratio - new[item[0]]) / steps[item[0]], item[0]))
        progress = True
        while total < small - limit and progress:
            progress = False
            for i, bet in order:
                step = steps[i]
                if new[i] + step <= bet.amount and total + step <= target:
                    new[i] += step
                    total += step
                    gave_back += step
                    progress = True
                    if total >= small - limit:
                        break
    side = larger_side.value.capitalize()
    other = "Player" if larger_side is Outcome.BANKER else "Banker"
    summary = (
        f"{side} total {large} exceeds {other} total {small} by {large - small}; "
        f"the table differential is {limit}"
    )
    if total < small - limit:
        return DifferentialReduction(
            False,
            (),
            f"{summary}: it cannot be met by reducing {side} bets in chips of {chip}; "
            "a supervisor must decide",
        )
    how = "rounded down to" if gave_back == 0 else "rounded (losses given back largest first) to"
    reductions = tuple(
        Reduction(
            i,
            bet,
            new[i],
            f"{summary}: {side} bets {f'scaled by {ratio} and ' if ratio != 1 else ''}{how} a multiple of "
            f"{steps[i]}: {bet.player}'s {side} bet on {bet.place} {bet.amount} -> {new[i]}",
        )
        for i, bet in victims
        if new[i] != bet.amount
    )
    return DifferentialReduction(
        True, reductions, f"{summary}: {side} bets reduced to {total}", ratio, gave_back
    )
