"""Casino War, pure: wager acceptance, the order of play, and settlement (seed 002).

A round is an immutable :class:`WarRound`. The state machine asks :meth:`WarRound.next_step`
what must happen next (deal box 3, deal the Dealer, ask a player war-or-surrender, burn a
card, deal a war card, or the round is complete) and feeds each card or decision back with
:meth:`WarRound.with_card` / :meth:`WarRound.with_choice`, which return the next state.
Anything out of order raises :class:`WarStateError` rather than being guessed at.

Order of play [choice, common practice]: one card to each box that has a wager, box 1
first, then one to the Dealer. Every player whose box card ties the Dealer's and who holds
a Casino War Wager there chooses war or surrender. If anybody goes to war, three cards are
burned, then one card goes to each box where somebody went to war (box order) and one to
the Dealer. Players on the same box share the box's card.

Surrender of an amount that cannot be halved in chips [choice]: Casino War Wagers must be a
multiple of twice the smallest chip, so half of one can always be returned in chips. If such
a wager was accepted anyway, the player gets back half rounded down to a whole smallest chip.

Money words as for baccarat: ``payout`` is paid from the float, ``collected`` goes into it,
``returned`` is stake handed back, ``net`` = ``payout`` − ``collected``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

from station.cards import Card
from station.games.table import WarTable

WAR_BURN_CARDS = 3


class WarStateError(ValueError):
    """A card or decision that does not fit the round's state."""


class WagerKind(str, Enum):
    WAR = "war"  # the Casino War Wager
    TIE = "tie"  # the Tie Wager
    GO_TO_WAR = "go_to_war"  # added by a player who chose war; equal to the war wager


class Choice(str, Enum):
    WAR = "war"
    SURRENDER = "surrender"


@dataclass(frozen=True)
class WarWager:
    box: int
    player: str
    kind: WagerKind
    amount: int

    def describe(self) -> str:
        name = {"war": "Casino War Wager", "tie": "Tie Wager", "go_to_war": "Go to War Wager"}
        return f"{name[self.kind.value]} of {self.amount}"


@dataclass(frozen=True)
class Acceptance:
    """The answer to "may this wager go on the table?"; ``reason`` is empty when accepted."""

    accepted: bool
    reason: str = ""
    rule: str = ""

    def __bool__(self) -> bool:
        return self.accepted


def _refuse(reason: str, rule: str) -> Acceptance:
    return Acceptance(False, reason, rule)


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
        return _refuse("a Go to War Wager is placed only when a player chooses war", "5.2")
    if not isinstance(wager.box, int) or not 1 <= wager.box <= table.boxes:
        return _refuse(f"there is no box {wager.box}: this table has boxes 1 to {table.boxes}", "3.1")
    if not isinstance(wager.amount, int) or isinstance(wager.amount, bool) or wager.amount <= 0:
        return _refuse(f"a wager must be a positive whole amount, got {wager.amount!r}", "5.1")
    if not isinstance(wager.player, str) or not wager.player:
        return _refuse("a wager needs the player it belongs to", "5.1")
    c = table.smallest_chip
    if wager.amount % c:
        return _refuse(f"{wager.describe()} cannot be made of chips of {c}", "5.1")
    same = [w for w in on_table if w.box == wager.box and w.kind is wager.kind and w.player == wager.player]
    mine_here = sum(w.amount for w in same) + wager.amount
    if mine_here < table.min_bet:
        return _refuse(
            f"{wager.describe()} on box {wager.box} is below the table minimum of {table.min_bet}", "5.7"
        )
    if mine_here > table.max_bet:
        return _refuse(
            f"{wager.describe()} on box {wager.box} is over the table maximum of {table.max_bet}: "
            f"at most {table.max_bet - (mine_here - wager.amount)} more",
            "5.10",
        )
    if wager.kind is WagerKind.WAR and mine_here % (2 * c):
        return _refuse(
            f"{wager.describe()} could not be halved in chips of {c} on a surrender: use a "
            f"multiple of {2 * c}",
            "5.2",
        )
    on_box = [w for w in on_table if w.box == wager.box]
    players_here = {w.player for w in on_box} | {wager.player}
    if len(players_here) > table.players_per_box:
        return _refuse(
            f"box {wager.box} already has {len(players_here) - 1} players: at most "
            f"{table.players_per_box} may bet on one box",
            "5.9",
        )
    my_boxes = {w.box for w in on_table if w.player == wager.player} | {wager.box}
    if len(my_boxes) > table.max_boxes_per_player:
        return _refuse(
            f"player {wager.player} may bet on at most {table.max_boxes_per_player} "
            f"box{'es' if table.max_boxes_per_player > 1 else ''}",
            "5.8",
        )
    if table.box_max is not None:
        box_total = sum(w.amount for w in on_box) + wager.amount
        if box_total > table.box_max:
            return _refuse(
                f"{wager.describe()} takes box {wager.box} to {box_total}, over the box maximum of "
                f"{table.box_max}",
                "5.10",
            )
    if table.player_max is not None:
        player_total = sum(w.amount for w in on_box if w.player == wager.player) + wager.amount
        if player_total > table.player_max:
            return _refuse(
                f"{wager.describe()} takes player {wager.player}'s wagers on box {wager.box} to "
                f"{player_total}, over the player maximum of {table.player_max}",
                "5.10",
            )
    if wager.kind is WagerKind.TIE:
        war_holders = {w.player for w in on_box if w.kind is WagerKind.WAR}
        if wager.player not in war_holders:
            declined = set(tie_declined)
            has_tie = {w.player for w in on_box if w.kind is WagerKind.TIE}
            waiting = sorted(
                p for p in war_holders if p not in has_tie and (wager.box, p) not in declined
            )
            if waiting:
                return _refuse(
                    f"the Tie Wager on box {wager.box} belongs first to {', '.join(waiting)}, who "
                    "holds the Casino War Wager there",
                    "5.11",
                )
    return Acceptance(True)


# --- The round ------------------------------------------------------------------------------


class StepKind(str, Enum):
    DEAL_BOX = "deal_box"
    DEAL_DEALER = "deal_dealer"
    DECIDE = "decide"
    BURN = "burn"
    DEAL_WAR_BOX = "deal_war_box"
    DEAL_DEALER_WAR = "deal_dealer_war"
    COMPLETE = "complete"


@dataclass(frozen=True)
class WarStep:
    """What must happen next. ``box``/``player`` are set for box cards and decisions."""

    kind: StepKind
    box: int | None = None
    player: str | None = None
    burns_left: int = 0

    @property
    def wants_card(self) -> bool:
        return self.kind in (
            StepKind.DEAL_BOX, StepKind.DEAL_DEALER, StepKind.BURN,
            StepKind.DEAL_WAR_BOX, StepKind.DEAL_DEALER_WAR,
        )

    def instruction(self) -> str:
        """The dealer's prompt, e.g. ``"burn 3 cards"`` or ``"deal box 2 war card"``."""
        return {
            StepKind.DEAL_BOX: f"deal box {self.box}",
            StepKind.DEAL_DEALER: "deal Dealer",
            StepKind.DECIDE: f"box {self.box}: {self.player} goes to war or surrenders",
            StepKind.BURN: f"burn {self.burns_left} card{'s' if self.burns_left != 1 else ''}",
            StepKind.DEAL_WAR_BOX: f"deal box {self.box} war card",
            StepKind.DEAL_DEALER_WAR: "deal Dealer war card",
            StepKind.COMPLETE: "round complete",
        }[self.kind]


@dataclass(frozen=True)
class WarRound:
    """One Casino War round in progress. Build it with :meth:`start`."""

    wagers: tuple[WarWager, ...]
    first: tuple[tuple[int, Card], ...] = ()
    dealer_first: Card | None = None
    choices: tuple[tuple[int, str, Choice], ...] = ()
    burned: int = 0
    war: tuple[tuple[int, Card], ...] = ()
    dealer_war: Card | None = None
    boxes: tuple[int, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        # The boxes in play follow from the wagers; derived here so that a round rebuilt
        # field by field (say from a journal snapshot) cannot disagree with its wagers.
        object.__setattr__(self, "boxes", tuple(sorted({w.box for w in self.wagers})))

    @classmethod
    def start(cls, wagers: Sequence[WarWager]) -> WarRound:
        """A round over the accepted ``wagers`` (Casino War and Tie Wagers only)."""
        if any(w.kind is WagerKind.GO_TO_WAR for w in wagers):
            raise WarStateError("Go to War Wagers arise from choices, not at the start of a round")
        if not wagers:
            raise WarStateError("a round needs at least one wager")
        return cls(tuple(wagers))

    # Queries -----------------------------------------------------------------------------

    def first_card(self, box: int) -> Card | None:
        return dict(self.first).get(box)

    def war_card(self, box: int) -> Card | None:
        return dict(self.war).get(box)

    def tied_boxes(self) -> tuple[int, ...]:
        if self.dealer_first is None:
            return ()
        rank = self.dealer_first.rank.war_rank
        return tuple(b for b, card in self.first if card.rank.war_rank == rank)

    def deciders(self) -> tuple[tuple[int, str], ...]:
        """(box, player) of everyone who must choose war or surrender, in order."""
        out: list[tuple[int, str]] = []
        for b in self.tied_boxes():
            for w in self.wagers:
                if w.box == b and w.kind is WagerKind.WAR and (b, w.player) not in out:
                    out.append((b, w.player))
        return tuple(out)

    def choice_of(self, box: int, player: str) -> Choice | None:
        return next((c for b, p, c in self.choices if b == box and p == player), None)

    def war_boxes(self) -> tuple[int, ...]:
        return tuple(sorted({b for b, _, c in self.choices if c is Choice.WAR}))

    def next_step(self) -> WarStep:
        dealt = {b for b, _ in self.first}
        for b in self.boxes:
            if b not in dealt:
                return WarStep(StepKind.DEAL_BOX, box=b)
        if self.dealer_first is None:
            return WarStep(StepKind.DEAL_DEALER)
        for b, p in self.deciders():
            if self.choice_of(b, p) is None:
                return WarStep(StepKind.DECIDE, box=b, player=p)
        war_boxes = self.war_boxes()
        if not war_boxes:
            return WarStep(StepKind.COMPLETE)
        if self.burned < WAR_BURN_CARDS:
            return WarStep(StepKind.BURN, burns_left=WAR_BURN_CARDS - self.burned)
        dealt_war = {b for b, _ in self.war}
        for b in war_boxes:
            if b not in dealt_war:
                return WarStep(StepKind.DEAL_WAR_BOX, box=b)
        if self.dealer_war is None:
            return WarStep(StepKind.DEAL_DEALER_WAR)
        return WarStep(StepKind.COMPLETE)

    @property
    def complete(self) -> bool:
        return self.next_step().kind is StepKind.COMPLETE

    # Transitions -------------------------------------------------------------------------

    def with_card(self, card: Card) -> WarRound:
        """The next card out of the shoe, wherever the rules say it goes (burns are counted)."""
        step = self.next_step()
        kind = step.kind
        if kind is StepKind.DEAL_BOX:
            return _replace(self, first=self.first + ((step.box, card),))
        if kind is StepKind.DEAL_DEALER:
            return _replace(self, dealer_first=card)
        if kind is StepKind.BURN:
            return _replace(self, burned=self.burned + 1)
        if kind is StepKind.DEAL_WAR_BOX:
            return _replace(self, war=self.war + ((step.box, card),))
        if kind is StepKind.DEAL_DEALER_WAR:
            return _replace(self, dealer_war=card)
        if kind is StepKind.DECIDE:
            raise WarStateError(
                f"card {card.code} came out while box {step.box} ({step.player}) must still choose "
                "war or surrender"
            )
        raise WarStateError(f"card {card.code} came out after the round was complete")

    def with_choice(self, box: int, player: str, choice: Choice) -> WarRound:
        """Record one player's war-or-surrender decision (any order among the deciders)."""
        if (box, player) not in self.deciders():
            raise WarStateError(f"{player} on box {box} has no decision to make")
        if self.choice_of(box, player) is not None:
            raise WarStateError(f"{player} on box {box} has already chosen")
        return _replace(self, choices=self.choices + ((box, player, Choice(choice)),))


def _replace(round_: WarRound, **changes: object) -> WarRound:
    return replace(round_, **changes)  # type: ignore[arg-type]


# --- Settlement ---------------------------------------------------------------------------


class WagerResult(str, Enum):
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
