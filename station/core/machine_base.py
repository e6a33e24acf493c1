"""The table's state, its ``transitions`` machine and the plumbing every step shares.

:class:`MachineBase` holds all game state (shoe, round, bets, irregularity, faults) and the
``transitions.Machine`` that records where the table is. The steps that change the state live
in one module each (:mod:`~station.core.shoe_steps`, :mod:`~station.core.round_steps`,
:mod:`~station.core.bet_steps`, :mod:`~station.core.stop_steps`) and are put together in
:class:`station.core.machine.TableMachine`, the one owner of table state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from transitions import Machine

from station.cards import Card
from station.core import outputs as out
from station.core import states as st
from station.core.chip_table import ChipLayout
from station.core.irregularities import HeldCard, Irregularity
from station.core.options import CoreOptions
from station.core.progressive import ProgressiveLedger
from station.core.rounds import BetKey, Round, RoundId
from station.core.shoe import ShoeTracking
from station.events import (
    BetChanged,
    BetPlaced,
    BetWithdrawn,
    CardDrawn,
    DealerAction,
    DeviceFault,
    DeviceRecovered,
    Event,
    SupervisorDecision,
)
from station.games.interface import Closing, Decision, Game, MeterAward, NotAllowed, TableOptions
from station.games.layout import SettledBet
from station.games.limits import TableLimits

SUPERVISOR_ROLES = ("supervisor",)

#: The latest results of the shoe the table keeps (and every checkpoint holds). A batch shoe
#: deals at most about 85 rounds, so it keeps them all; a continuous shuffler has no shoe end,
#: and keeping every result made each checkpoint grow with the table's age (4 MB after an hour
#: dealt at full speed). The boards show no more than this many (``DISPLAY_ROUNDS``).
RESULTS_KEPT = 240


class _Model:
    """The object ``transitions`` drives: it holds ``state`` and the return conditions."""

    state: str
    trigger: Callable[..., bool]  # both set by transitions' Machine

    def __init__(self, table: MachineBase) -> None:
        for name in st.RETURNABLE:
            setattr(self, f"back_to_{name}", partial(table._back_to, name))
        for name in st.PAUSABLE:
            setattr(self, f"resume_to_{name}", partial(table._resume_to, name))


class MachineBase:
    """Table state and shared plumbing; see :class:`station.core.machine.TableMachine`."""

    def __init__(self, options: CoreOptions | None = None) -> None:
        self.options = options or CoreOptions()
        o = self.options
        #: The rules of the game this table plays, found once from the options: every step
        #: asks them and none asks which game it is.
        self.rules: Game[Any, Any] = o.rules
        self.shoe = ShoeTracking(o.decks, continuous=o.equipment == "continuous", rounds_after_cut=o.rounds_after_cut,
                                 cut_cards=o.cut_cards)
        self.round: Round | None = None
        self.irregularity: Irregularity | None = None
        self.irregularities_raised = 0
        self.faulted: dict[str, str] = {}
        self._faulted_by_status: set[str] = set()
        self._return_state = ""  # where the active irregularity returns to
        self._pause_return = ""  # where a pause returns to
        self.paused_by: dict[str, str] = {}
        self.pause_pending: dict[str, str] = {}  # a pause asked mid-round: who, and why (stop_steps)
        assert o.limits is not None and o.table is not None
        #: The limits in force (docs/limits.md), as JSON too (each round keeps that one dict).
        self.limits: TableLimits = o.limits
        self.limits_json: dict[str, Any] = o.limits.to_json()
        self._table: TableOptions = self.rules.table_with_limits(o.table, o.limits)
        #: A change of limits waiting for the next round: {"limits", "role", "who", "reason"}.
        self.pending_limits: dict[str, Any] | None = None
        self._pending_table: TableOptions | None = None
        self.configured_limits: TableLimits = o.limits
        self.payout_option = self.rules.payout_option(self.table)
        self.pending_payout: dict[str, str] | None = None
        self.payout_history: list[dict[str, str]] = []
        self.carried: dict[BetKey, int] | None = None  # Banker/Player bets left on after a Tie
        #: The shoe's latest results (at most :data:`RESULTS_KEPT`), for the boards after a restart.
        self.shoe_results: list[dict[str, Any]] = []
        #: Rounds settled and voided in this journal (counts: a year of ids would not fit).
        self.rounds_settled = 0
        self.rounds_voided = 0
        self.house_net = 0
        self.discarded: list[Card] = []  # cards read with no shoe in play, burned by decision
        self.deck_check: dict[str, Any] | None = None
        self.betting_openings = 0
        self.events_applied = 0
        self.outbox: list[out.Output] = []
        self.confirm_payouts = False  # the next round waits for the payouts' confirmation
        self.correctable: dict[str, Round] = {}  # rounds left the table, oldest first
        self.corrections = 0
        #: The chip tray's last ledgers, their count and the entries' (docs/tray.md).
        self.tray_ledgers: list[dict[str, Any]] = []
        self.tray_ledger_count = 0
        self.tray_entries = 0
        #: The ratings open, by "<box>|<player>"; how many were ever opened; the card last read.
        self.ratings: dict[str, dict[str, Any]] = {}
        self.ratings_opened = 0
        self.card_read = ""
        #: The progressive's meter as a ledger (docs/progressive.md); None: the table has none.
        self.progressive = ProgressiveLedger.starting(o.progressive) if o.progressive is not None else None
        #: The chips on the layout and what was decided about them (docs/chips.md); None: no reader.
        self.chip_layout = ChipLayout() if o.chips is not None else None
        self._model = _Model(self)
        self._machine = Machine(
            model=self._model,
            states=list(st.STATES),
            transitions=st.transitions_table(),
            initial=st.SHUFFLING,
            queued=True,
            auto_transitions=False,
            after_state_change=self._state_changed,
        )
        self._previous_state = st.SHUFFLING

    @property
    def state(self) -> str:
        return self._model.state

    def _emit(self, output: out.Output) -> None:
        self.outbox.append(output)

    def _refuse(self, event: Event, reason: str) -> None:
        actor = getattr(event, "actor", None)
        self._emit(out.Refused(event.kind, reason, getattr(actor, "role", ""), getattr(actor, "who", "")))

    def _trigger(self, name: str) -> None:
        self._model.trigger(name)

    def _state_changed(self) -> None:
        previous, self._previous_state = self._previous_state, self.state
        self._emit(out.StateChanged(self.state, previous))

    def _back_to(self, name: str) -> bool:
        return self._return_state == name

    def _resume_to(self, name: str) -> bool:
        return self._pause_return == name

    def _critical(self, device: str) -> bool:
        devices = self.options.round_devices
        return devices is None or device in devices

    def _blocking_faults(self) -> list[str]:
        return sorted(d for d in self.faulted if self._critical(d))

    @property
    def table(self) -> TableOptions:
        """The table's options under the limits in force."""
        return self._table

    def _set_limits(self, limits: TableLimits) -> None:
        self.limits = limits
        self.limits_json = limits.to_json()

    def _not_now(self, what: str) -> str:
        return f"cannot {what} now: {self.expectation}"

    def _take_decision(self, ev: DealerAction, state: str) -> Decision | None:
        """A player's decision the dealer records (Casino War: decline the Tie Wager priority
        while bets are open; war or surrender after a tie), taken into the round's play when
        the table is in ``state`` and the game allows it; otherwise refused with the reason."""
        r = self.round
        if self.state != state or r is None:
            self._refuse(ev, self._not_now(ev.action.replace("_", " ")))
            return None
        try:
            decision = r.play.decide(ev.box, ev.player, ev.action)
        except NotAllowed as exc:
            self._refuse(ev, str(exc))
            return None
        r.play = decision.play
        return decision

    @property
    def paused_from(self) -> str:
        return self._pause_return if self.state == st.PAUSED else ""

    # --- provided by the step classes (see :class:`station.core.machine.TableMachine`) -------

    @property
    def expectation(self) -> str:
        raise NotImplementedError

    def _open_round(self) -> None:
        raise NotImplementedError

    def _on_card(self, ev: CardDrawn) -> None:
        raise NotImplementedError

    def _deal(self, card: Card, device: str) -> None:
        raise NotImplementedError

    def _burn_card(self, card: Card) -> None:
        raise NotImplementedError

    def _batch_set_ready(self, ev: Event) -> None:
        raise NotImplementedError

    def _on_fault(self, ev: DeviceFault) -> None:
        raise NotImplementedError

    def _on_recovered(self, ev: DeviceRecovered) -> None:
        raise NotImplementedError

    def _raise(self, reason: str, detail: str, held: HeldCard | None = None, device: str = "",
               decisions: tuple[str, ...] = ()) -> None:
        raise NotImplementedError

    def _close_betting(self, closing: Closing) -> None:
        raise NotImplementedError

    def _betting_choice(self, ev: DealerAction) -> None:
        raise NotImplementedError

    def _raise_for_card(self, reason: str, detail: str, card: Card, device: str) -> None:
        raise NotImplementedError

    def _void_round(self, reason: str) -> None:
        raise NotImplementedError

    def _payouts_due(self) -> None:
        raise NotImplementedError

    def _held_for_payouts(self) -> str:
        raise NotImplementedError

    def _keep_correctable(self, r: Round) -> None:
        raise NotImplementedError

    def _apply_pending_limits(self, rid: RoundId) -> None:
        raise NotImplementedError

    def _table_of(self, r: Round) -> TableOptions:
        raise NotImplementedError

    def _next_table(self) -> TableOptions:
        raise NotImplementedError

    def _rate_round(self, r: Round, bets: tuple[SettledBet, ...]) -> None:
        raise NotImplementedError

    def _rerate_round(self, r: Round, before: tuple[SettledBet, ...], after: tuple[SettledBet, ...]) -> None:
        raise NotImplementedError

    def _progressive_round(self, r: Round, bets: tuple[SettledBet, ...], awards: tuple[MeterAward, ...]) -> None:
        raise NotImplementedError

    def _progressive_corrected(self, before: Iterable[SettledBet], after: Iterable[SettledBet], round_id: str) -> None:
        raise NotImplementedError

    def jackpot_hold(self) -> str:
        raise NotImplementedError

    def chip_payment_hold(self) -> str:
        raise NotImplementedError

    def chip_view(self) -> dict[str, Any] | None:
        raise NotImplementedError

    def _chips_bets_closed(self) -> None:
        raise NotImplementedError

    def _chips_settled(self, r: Round, bets: tuple[SettledBet, ...]) -> None:
        raise NotImplementedError

    def _chips_round_over(self) -> None:
        raise NotImplementedError

    def _chips_round_opened(self) -> None:
        raise NotImplementedError

    def _on_bet_placed(self, ev: BetPlaced) -> None:
        raise NotImplementedError

    def _on_bet_changed(self, ev: BetChanged) -> None:
        raise NotImplementedError

    def _on_bet_withdrawn(self, ev: BetWithdrawn) -> None:
        raise NotImplementedError

    def _decide_integrity(self, ev: SupervisorDecision, problem: Irregularity) -> None:
        raise NotImplementedError

    def _register_alert(self, code: str, severity: str, detail: str, *, key: str = "", stop: bool = False,
                        source: str = "core", data: dict[str, Any] | None = None, shoe: int | None = None,
                        round_id: str | None = None) -> Any:
        raise NotImplementedError
