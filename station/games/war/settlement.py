"""Settlement of Casino War wagers against a complete round (seed 002 section 5).

Every figure is an ``int`` in minor units, derived from the stakes, the table options and
the round's cards and choices alone, so settling the same round twice gives the same
records.

Surrender of an amount that cannot be halved in chips [choice]: a Casino War Wager accepted
anyway although it is not a multiple of twice the smallest chip gets back half rounded down
to a whole smallest chip.

Money words as for baccarat (:mod:`station.games.baccarat.settlement`): ``payout`` is paid
from the float, ``collected`` goes into it, ``returned`` is stake handed back, ``net`` =
``payout`` − ``collected``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from station.games.war.rules import Choice, WarRound, WarStateError
from station.games.war.table import WarTable
from station.games.war.wagers import WagerKind, WarWager


class WagerResult(StrEnum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"  # stand-off
    SURRENDER = "surrender"


@dataclass(frozen=True)
class WagerSettlement:
    wager: WarWager
    result: WagerResult
    payout: int
    collected: int
    returned: int
    bonus: int = 0  # tie-after-tie bonus, included in payout

    @property
    def stake(self) -> int:
        return self.wager.amount

    @property
    def net(self) -> int:
        return self.payout - self.collected


def _won(stake: int, wager: WarWager, payout: int, bonus: int = 0) -> WagerSettlement:
    return WagerSettlement(wager, WagerResult.WIN, payout, 0, stake, bonus)


def _lost(wager: WarWager) -> WagerSettlement:
    return WagerSettlement(wager, WagerResult.LOSE, 0, wager.amount, 0)


def surrender_return(amount: int, table: WarTable) -> int:
    """Half the Casino War Wager, rounded down to a whole smallest chip [choice]."""
    return table.chips.round_down(amount // 2)


def settle_war(round_: WarRound, table: WarTable) -> tuple[WagerSettlement, ...]:
    """Settle a complete round: one record per wager, Go to War Wagers included.

    A Go to War Wager record is added, right after its Casino War Wager, for every player who
    chose war; its stake equals the Casino War Wager.
    """
    if not round_.complete:
        raise WarStateError(f"the round is not complete: {round_.next_step().instruction()}")
    assert round_.dealer_first is not None
    dealer = round_.dealer_first.rank.war_rank
    out: list[WagerSettlement] = []
    for wager in round_.wagers:
        card = round_.first_card(wager.box)
        assert card is not None
        mine = card.rank.war_rank
        if wager.kind is WagerKind.TIE:
            out.append(_won(wager.amount, wager, wager.amount * table.tie_pays) if mine == dealer else _lost(wager))
            continue
        if mine > dealer:
            out.append(_won(wager.amount, wager, wager.amount))
        elif mine < dealer:
            out.append(_lost(wager))
        elif round_.choice_of(wager.box, wager.player) is Choice.SURRENDER:
            back = surrender_return(wager.amount, table)
            out.append(WagerSettlement(wager, WagerResult.SURRENDER, 0, wager.amount - back, back))
        else:
            raise_wager = WarWager(wager.box, wager.player, WagerKind.GO_TO_WAR, wager.amount)
            war_card, dealer_war = round_.war_card(wager.box), round_.dealer_war
            assert war_card is not None and dealer_war is not None
            if war_card.rank.war_rank >= dealer_war.rank.war_rank:
                bonus = 0
                if war_card.rank.war_rank == dealer_war.rank.war_rank and table.tie_after_tie_bonus:
                    bonus = raise_wager.amount * table.tie_after_tie_bonus
                out.append(WagerSettlement(wager, WagerResult.PUSH, 0, 0, wager.amount))
                out.append(_won(raise_wager.amount, raise_wager, raise_wager.amount + bonus, bonus))
            else:
                out.append(_lost(wager))
                out.append(_lost(raise_wager))
    return tuple(out)
