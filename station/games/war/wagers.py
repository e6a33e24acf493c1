"""Casino War wagers, pure (seed 002 section 5): which may go on the table, and how large.

Pure functions over the table options (:class:`~station.games.war.table.WarTable`) and the
wagers already on the layout. A refusal carries a reason a dealer can read out and the
rule it comes from, like a baccarat refusal (:class:`~station.games.layout.Acceptance`).

Surrender of an amount that cannot be halved in chips [choice]: Casino War Wagers must be a
multiple of twice the smallest chip, so half of one can always be returned in chips.

Wagers arrive in the layout's words (``("3", "ann", "war")``, see
:mod:`station.games.layout`); :func:`wager_from_layout` turns them into typed
:class:`WarWager`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from station.games.layout import Acceptance, BetFormError, BetKey, box_number
from station.games.war.table import WarTable
from station.money import Money

#: The wagers a player may place on a box, as the layout names them (the Go to War Wager
#: arises from a choice, never from a bet).
REGIONS = ("war", "tie")


class WagerKind(StrEnum):
    WAR = "war"  # the Casino War Wager
    TIE = "tie"  # the Tie Wager
    GO_TO_WAR = "go_to_war"  # added by a player who chose war; equal to the war wager


@dataclass(frozen=True)
class WarWager:
    box: int
    player: str
    kind: WagerKind
    amount: int

    def describe(self, money: Money) -> str:
        name = {"war": "Casino War Wager", "tie": "Tie Wager", "go_to_war": "Go to War Wager"}
        return f"{name[self.kind.value]} of {money.with_currency(self.amount)}"


def wager_from_layout(key: BetKey, amount: int) -> WarWager:
    """The typed wager for a layout entry."""
    box, player, region = key
    if region not in REGIONS:
        raise BetFormError(f"{region!r} is not a Casino War wager (war or tie)")
    return WarWager(box_number(box), player, WagerKind(region), amount)


def accept_wager(
    wager: WarWager,
    on_table: Sequence[WarWager],
    table: WarTable,
    *,
    tie_declined: Collection[tuple[int, str]] = (),
) -> Acceptance:
    """May ``wager`` join ``on_table`` (the wagers already accepted this round)?

    Limits are checked on totals (a second stack on the same spot adds to the first). The
    Tie Wager on a box belongs first to the players holding a Casino War Wager there (5.11):
    another player's Tie Wager is refused while such a player has neither placed one nor
    declined it; ``tie_declined`` lists the (box, player) pairs who declined.
    """
    if wager.kind is WagerKind.GO_TO_WAR:
        return Acceptance.refuse("a Go to War Wager is placed only when a player chooses war", "5.2")
    if not isinstance(wager.box, int) or not 1 <= wager.box <= table.boxes:
        return Acceptance.refuse(f"there is no box {wager.box}: this table has boxes 1 to {table.boxes}", "3.1")
    if not isinstance(wager.amount, int) or isinstance(wager.amount, bool) or wager.amount <= 0:
        return Acceptance.refuse(f"a wager must be a positive whole amount, got {wager.amount!r}", "5.1")
    if not isinstance(wager.player, str) or not wager.player:
        return Acceptance.refuse("a wager needs the player it belongs to", "5.1")
    c, money = table.smallest_chip, table.money.with_currency
    what = wager.describe(table.money)
    if wager.amount % c:
        return Acceptance.refuse(f"{what} cannot be made of chips of {money(c)}", "5.1")
    same = [w for w in on_table if w.box == wager.box and w.kind is wager.kind and w.player == wager.player]
    mine_here = sum(w.amount for w in same) + wager.amount
    if mine_here < table.min_bet:
        return Acceptance.refuse(
            f"{what} on box {wager.box} is below the table minimum of {money(table.min_bet)}", "5.7"
        )
    if mine_here > table.max_bet:
        return Acceptance.refuse(
            f"{what} on box {wager.box} is over the table maximum of {money(table.max_bet)}: "
            f"at most {money(table.max_bet - (mine_here - wager.amount))} more",
            "5.10",
        )
    if wager.kind is WagerKind.WAR and mine_here % (2 * c):
        return Acceptance.refuse(
            f"{what} could not be halved in chips of {money(c)} on a surrender: use a "
            f"multiple of {money(2 * c)}",
            "5.2",
        )
    on_box = [w for w in on_table if w.box == wager.box]
    players_here = {w.player for w in on_box} | {wager.player}
    if len(players_here) > table.players_per_box:
        return Acceptance.refuse(
            f"box {wager.box} already has {len(players_here) - 1} players: at most "
            f"{table.players_per_box} may bet on one box",
            "5.9",
        )
    my_boxes = {w.box for w in on_table if w.player == wager.player} | {wager.box}
    if len(my_boxes) > table.max_boxes_per_player:
        return Acceptance.refuse(
            f"player {wager.player} may bet on at most {table.max_boxes_per_player} "
            f"box{'es' if table.max_boxes_per_player > 1 else ''}",
            "5.8",
        )
    if table.box_max is not None:
        box_total = sum(w.amount for w in on_box) + wager.amount
        if box_total > table.box_max:
            return Acceptance.refuse(
                f"{what} takes box {wager.box} to {money(box_total)}, over the box maximum of "
                f"{money(table.box_max)}",
                "5.10",
            )
    if table.player_max is not None:
        player_total = sum(w.amount for w in on_box if w.player == wager.player) + wager.amount
        if player_total > table.player_max:
            return Acceptance.refuse(
                f"{what} takes player {wager.player}'s wagers on box {wager.box} to "
                f"{money(player_total)}, over the player maximum of {money(table.player_max)}",
                "5.10",
            )
    if wager.kind is WagerKind.TIE and wager.player not in {w.player for w in on_box if w.kind is WagerKind.WAR}:
        waiting = _waiting_for_tie(wager.box, on_box, tie_declined)
        if waiting:
            return Acceptance.refuse(
                f"the Tie Wager on box {wager.box} belongs first to {', '.join(waiting)}, who "
                f"{'hold' if len(waiting) > 1 else 'holds'} the Casino War Wager there: "
                f"{_priority_remedy(waiting)}",
                "5.11",
            )
    return Acceptance.ok()


def _waiting_for_tie(
    box: int, on_box: Sequence[WarWager], tie_declined: Collection[tuple[int, str]]
) -> list[str]:
    """The players holding a Casino War Wager on ``box`` who have neither placed a Tie Wager
    there nor declined it (5.11)."""
    has_tie = {w.player for w in on_box if w.kind is WagerKind.TIE}
    declined = set(tie_declined)
    return sorted({
        w.player for w in on_box
        if w.kind is WagerKind.WAR and w.player not in has_tie and (box, w.player) not in declined
    })


def _priority_remedy(waiting: list[str]) -> str:
    return f"{' or '.join(waiting)} places a Tie Wager or the dealer records that they decline it (decline_tie)"


def tie_priority_problem(wagers: Sequence[WarWager], tie_declined: Collection[tuple[int, str]] = ()) -> str:
    """Why betting may not close for ``wagers`` under the Tie Wager priority (5.11): another
    player's Tie Wager on a box where a Casino War Wager holder has neither placed one nor
    declined it. Empty when there is none. Checked at "no more bets" as well as when each
    wager is placed, so the order in which the wagers came makes no difference."""
    for box in sorted({w.box for w in wagers}):
        on_box = [w for w in wagers if w.box == box]
        holders = {w.player for w in on_box if w.kind is WagerKind.WAR}
        others = sorted({w.player for w in on_box if w.kind is WagerKind.TIE and w.player not in holders})
        waiting = _waiting_for_tie(box, on_box, tie_declined)
        if others and waiting:
            return (
                f"{', '.join(others)} {'hold' if len(others) > 1 else 'holds'} a Tie Wager on box {box}, "
                f"which belongs first to {', '.join(waiting)} with the Casino War Wager there (5.11): "
                f"{_priority_remedy(waiting)}, or the other Tie Wager is withdrawn"
            )
    return ""
