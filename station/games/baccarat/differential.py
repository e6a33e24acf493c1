"""The table differential (seed 000 rules 5.17, 5.18): how far the Banker and Player totals
may differ, and the pro-rata reduction of the larger side when they differ by more.

Pure functions over the bets of one round and the table options, asked at "no more bets".
Every reduction comes with a reason the dealer can read out, and when no reduction in whole
chips can meet the differential nothing is reduced and a supervisor must decide.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from station.games.baccarat.rules import Outcome
from station.games.baccarat.table import BaccaratTable
from station.games.baccarat.wagers import Bet, banker_step


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
    than it must. Rounding down can only take the larger side further down; in the rare case
    that it then falls more than ``D`` below the other side (large chips, small
    differential), the chips lost to rounding are given back one step at a time to the bets
    that lost the largest fraction, never above their original amount. If even
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
    money = table.money.with_currency
    summary = (
        f"{side} total {money(large)} exceeds {other} total {money(small)} by {money(large - small)}; "
        f"the table differential is {money(limit)}"
    )
    if total < small - limit:
        return DifferentialReduction(
            False,
            (),
            f"{summary}: it cannot be met by reducing {side} bets in chips of {money(chip)}; "
            "a supervisor must decide",
        )
    how = "rounded down to" if gave_back == 0 else "rounded (losses given back largest first) to"
    reductions = tuple(
        Reduction(
            i,
            bet,
            new[i],
            f"{summary}: {side} bets {f'scaled by {ratio} and ' if ratio != 1 else ''}{how} a multiple of "
            f"{money(steps[i])}: {bet.player}'s {side} bet on {bet.place} {money(bet.amount)} -> {money(new[i])}",
        )
        for i, bet in victims
        if new[i] != bet.amount
    )
    return DifferentialReduction(
        True, reductions, f"{summary}: {side} bets reduced to {money(total)}", ratio, gave_back
    )
