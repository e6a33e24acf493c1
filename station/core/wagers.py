"""The seam between the machine's bets and the pure game rules.

Bets arrive as events with text fields (``box="3"``, ``region="banker"``); the rules in
:mod:`station.games` work on typed bets (:class:`~station.games.baccarat.wagers.Bet`,
:class:`~station.games.war.wagers.WarWager`), which the games' wager modules read from the
layout's words. This module turns the rules' answers and settlement records into what the
machine and its outputs carry. No rule is stated here: acceptance and settlement are the
games modules'.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from station.core.outputs import SettledBet
from station.core.rounds import BetKey
from station.games.baccarat.differential import reduce_for_differential
from station.games.baccarat.rules import BaccaratResult
from station.games.baccarat.settlement import settle_round
from station.games.baccarat.table import BaccaratTable, BankerPayout
from station.games.baccarat.wagers import accept_bet
from station.games.baccarat.wagers import bet_from_layout as baccarat_bet
from station.games.layout import BetFormError as BetFormError
from station.games.layout import box_number as box_number
from station.games.war import rules as war
from station.games.war.settlement import settle_war
from station.games.war.table import WarTable
from station.games.war.wagers import accept_wager
from station.games.war.wagers import wager_from_layout as war_wager


def table_with_payout(table: BaccaratTable, option: str) -> BaccaratTable:
    """The table as it pays in a round whose Banker payout option is ``option`` (5.11)."""
    if option == table.banker_payout.value:
        return table
    return dataclasses.replace(table, banker_payout=BankerPayout(option))


def refusal(
    game: str, key: BetKey, amount: int, others: Mapping[BetKey, int], table: BaccaratTable | WarTable
) -> str | None:
    """Why the bet may not join ``others`` (the rest of the layout), or ``None`` to accept."""
    try:
        if game == "baccarat":
            assert isinstance(table, BaccaratTable)
            layout = [baccarat_bet(k, a) for k, a in others.items()]
            verdict = accept_bet(baccarat_bet(key, amount), layout, table)
            return None if verdict.accepted else verdict.reason
        assert isinstance(table, WarTable)
        wagers = [war_wager(k, a) for k, a in others.items()]
        war_verdict = accept_wager(war_wager(key, amount), wagers, table)
        return None if war_verdict.accepted else war_verdict.reason
    except BetFormError as exc:
        return str(exc)


def differential_cut(
    bets: Mapping[BetKey, int], table: BaccaratTable
) -> tuple[dict[BetKey, int], list[tuple[BetKey, int, int]], str | None]:
    """Apply the table differential (5.17/5.18) at "no more bets".

    Returns the bets after reduction, the reductions as (key, old, new), and a reason when no
    reduction in whole chips can satisfy the differential (then nothing changes).
    """
    keys = list(bets)
    typed = [baccarat_bet(k, bets[k]) for k in keys]
    plan = reduce_for_differential(typed, table)
    if not plan.possible:
        return dict(bets), [], plan.reason
    after = dict(bets)
    cuts: list[tuple[BetKey, int, int]] = []
    for reduction in plan.reductions:
        key = keys[reduction.index]
        cuts.append((key, bets[key], reduction.new_amount))
        if reduction.new_amount:
            after[key] = reduction.new_amount
        else:
            del after[key]
    return after, cuts, None


def settle_baccarat(
    bets: Mapping[BetKey, int], result: BaccaratResult, table: BaccaratTable
) -> tuple[tuple[SettledBet, ...], int]:
    """Every bet settled, and the house's result for the round."""
    keys = list(bets)
    settlement = settle_round([baccarat_bet(k, bets[k]) for k in keys], result, table)
    out = tuple(
        SettledBet(k[0], k[1], k[2], s.stake, s.valid, s.void, s.result.value, s.net)
        for k, s in zip(keys, settlement.bets, strict=True)
    )
    return out, settlement.house_result


def settle_casino_war(engine: war.WarRound, table: WarTable) -> tuple[tuple[SettledBet, ...], int]:
    records = settle_war(engine, table)
    out = tuple(
        SettledBet(str(s.wager.box), s.wager.player, s.wager.kind.value, s.stake, s.stake, 0, s.result.value, s.net)
        for s in records
    )
    return out, -sum(s.net for s in out)


def returned(bets: Mapping[BetKey, int]) -> tuple[SettledBet, ...]:
    """Every bet handed back whole (a voided round)."""
    return tuple(SettledBet(b, p, r, a, 0, a, "void", 0) for (b, p, r), a in bets.items())
