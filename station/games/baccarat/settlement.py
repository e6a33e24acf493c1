"""Settlement of baccarat bets against a decided round (seed 000 rules 5.1, 5.10-5.13).

Every figure is an ``int`` in minor units and is derived from the stake, the table options
and the :class:`~station.games.baccarat.rules.BaccaratResult` alone, so settling the same round twice
gives the same records (the journal relies on that to make payouts idempotent).

Money words, for every bet:

- ``stake``: the chips the player put on the spot; ``valid`` + ``void`` = ``stake``.
- ``returned``: chips of the stake handed back (a win, a stand-off, a void part).
- ``collected``: chips of the stake the dealer takes into the float (a loss).
- ``payout``: chips the dealer pays out of the float (winnings, after commission).
- ``net`` = ``payout`` − ``collected``: what the player gains (+) or loses (−).
  The house's result for the round is −Σ ``net`` = Σ ``collected`` − Σ ``payout``.

Commission never produces a fraction of a minor unit. Under commission only the part of a
Banker bet that rule 5.12 would accept is valid (:func:`~station.games.baccarat.wagers.valid_part`,
rule 5.13), and for that part 95% of the winnings is a whole multiple of the smallest chip by
construction. Without commission (5.11) the half paid on a Banker win with 6 is rounded down
to a whole smallest chip [choice]; 5.12 does not apply there, so such a bet stays valid.
EZ Baccarat (RULES "Baccarat side bets") takes no commission either: a Banker win with a
three-card 7 is a stand-off, any other Banker win pays 1:1 (on 6 too).

Side bets are settled beside the main bets, by their pay tables
(:func:`~station.games.baccarat.side_bets.settle_side`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from station.games.baccarat.rules import BaccaratResult, Outcome
from station.games.baccarat.table import BANKER_KEEPS_PERCENT, BaccaratTable, BankerPayout
from station.games.baccarat.wagers import Bet, valid_part


class BetResult(StrEnum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"  # a stand-off: Banker or Player bet on a tie
    VOID = "void"  # nothing of the bet was valid (5.13)


@dataclass(frozen=True)
class BetSettlement:
    """The settlement of one bet. See the module docstring for the meaning of each figure."""

    bet: Bet
    stake: int
    valid: int
    void: int
    result: BetResult
    winnings: int  # before commission
    commission: int
    payout: int
    collected: int
    returned: int

    @property
    def net(self) -> int:
        return self.payout - self.collected


@dataclass(frozen=True)
class RoundSettlement:
    """All bets of one round, settled, with the table's totals."""

    result: BaccaratResult
    bets: tuple[BetSettlement, ...]

    @property
    def paid_out(self) -> int:
        return sum(s.payout for s in self.bets)

    @property
    def collected(self) -> int:
        return sum(s.collected for s in self.bets)

    @property
    def commission(self) -> int:
        return sum(s.commission for s in self.bets)

    @property
    def house_result(self) -> int:
        """What the house wins (+) or loses (−) on the round: −Σ net."""
        return self.collected - self.paid_out


def banker_win_payout(valid: int, result: BaccaratResult, table: BaccaratTable) -> tuple[int, int]:
    """(winnings before commission, commission) on a winning Banker bet of ``valid``."""
    if table.commission:
        paid = valid * BANKER_KEEPS_PERCENT // 100
        if paid * 100 != valid * BANKER_KEEPS_PERCENT or paid % table.smallest_chip:
            # valid_part() guarantees this cannot happen; refusing beats paying a fraction.
            raise ValueError(f"Banker stake {valid} is not payable exactly under commission")
        return valid, valid - paid
    if result.banker_total == 6 and table.banker_payout is BankerPayout.NO_COMMISSION:
        return table.chips.round_down(valid // 2), 0
    return valid, 0


def ez_push(result: BaccaratResult, table: BaccaratTable) -> bool:
    """EZ Baccarat: a Banker win with a three-card 7 is a stand-off for the Banker bet."""
    return table.banker_payout is BankerPayout.EZ and result.dragon_7


def settle_bet(bet: Bet, result: BaccaratResult, table: BaccaratTable) -> BetSettlement:
    """Settle one accepted bet against the decided round."""
    valid = valid_part(bet, table)
    void = bet.amount - valid
    winnings = commission = 0
    if valid == 0:
        kind = BetResult.VOID
    elif bet.on is Outcome.TIE:
        if result.outcome is Outcome.TIE:
            kind, winnings = BetResult.WIN, valid * table.tie_pays
        else:
            kind = BetResult.LOSE
    elif result.outcome is Outcome.TIE or (bet.on is Outcome.BANKER and ez_push(result, table)):
        kind = BetResult.PUSH
    elif result.outcome is bet.on:
        kind = BetResult.WIN
        if bet.on is Outcome.BANKER:
            winnings, commission = banker_win_payout(valid, result, table)
        else:
            winnings = valid
    else:
        kind = BetResult.LOSE
    lost = valid if kind is BetResult.LOSE else 0
    return BetSettlement(
        bet=bet,
        stake=bet.amount,
        valid=valid,
        void=void,
        result=kind,
        winnings=winnings,
        commission=commission,
        payout=winnings - commission,
        collected=lost,
        returned=bet.amount - lost,
    )


def settle_round(bets: Sequence[Bet], result: BaccaratResult, table: BaccaratTable) -> RoundSettlement:
    """Settle every bet of the round, in the order given."""
    return RoundSettlement(result, tuple(settle_bet(bet, result, table) for bet in bets))
