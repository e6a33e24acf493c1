"""The seam between the machine's bets and the pure game rules.

Bets arrive as events with text fields (``box="3"``, ``region="banker"``); the rules in
:mod:`station.games` work on typed bets (:class:`~station.games.baccarat_bets.Bet`,
:class:`~station.games.war.WarWager`). This module converts one into the other and back, and
turns the rules' settlement records into the :class:`~station.core.outputs.SettledBet` the
outputs carry. No rule is stated here: acceptance and settlement are the games modules'.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import lru_cache

from station.core.outputs import SettledBet
from station.core.rounds import BetKey
from station.games import war
from station.games.baccarat import Outcome, RoundResult
from station.games.baccarat_bets import Bet, Place, accept_bet, reduce_for_differential
from station.games.baccarat_settlement import settle_round
from station.games.table import BaccaratTable, BankerPayout, WarTable

BACCARAT_REGIONS = ("banker", "player", "tie")
WAR_REGIONS = ("war", "tie")


class BetFormError(ValueError):
    """A bet whose box or region the table does not have (the message says which)."""


@lru_cache(maxsize=256)
def place_of(box: str) -> Place:
    """``"3"`` is box 3; ``"S2"`` is standing region 2 (full baccarat)."""
    text = box.strip().upper()
    standing = text.startswith("S")
    digits = text[1:] if standing else text
    if not digits.isdigit():
        raise BetFormError(f"{box!r} is not a box number or a standing region such as S1")
    return Place(int(digits), standing=standing)


def box_number(box: str) -> int:
    text = box.strip()
    if not text.isdigit():
        raise BetFormError(f"{box!r} is not a box number")
    return int(text)


@lru_cache(maxsize=4096)
def baccarat_bet(key: BetKey, amount: int) -> Bet:
    box, player, region = key
    if region not in BACCARAT_REGIONS:
        raise BetFormError(f"{region!r} is not a baccarat betting region (banker, player or tie)")
    return Bet(place_of(box), player, Outcome(region), amount)


def war_wager(key: BetKey, amount: int) -> war.WarWager:
    box, player, region = key
    if region not in WAR_REGIONS:
        raise BetFormError(f"{region!r} is not a Casino War wager (war or tie)")
    return war.WarWager(box_number(box), player, war.WagerKind(region), amount)


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
        war_verdict = war.accept_wager(war_wager(key, amount), wagers, table)
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
    bets: Mapping[BetKey, int], result: RoundResult, table: BaccaratTable
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
    records = war.settle_war(engine, table)
    out = tuple(
        SettledBet(str(s.wager.box), s.wager.player, s.wager.kind.value, s.stake, s.stake, 0, s.result.value, s.net)
        for s in records
    )
    return out, -sum(s.net for s in out)


def returned(bets: Mapping[BetKey, int]) -> tuple[SettledBet, ...]:
    """Every bet handed back whole (a voided round)."""
    return tuple(SettledBet(b, p, r, a, 0, a, "void", 0) for (b, p, r), a in bets.items())
