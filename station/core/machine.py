"""The table's state machine: shoe lifecycle, rounds, irregularities and decisions.

One :class:`TableMachine` owns all game state. It is fed typed input events, one at a time,
by the core loop (:mod:`station.core.loop`) after each event has been journaled; it never does
I/O and never reads a clock, so replaying the journal rebuilds exactly the same state
(:meth:`TableMachine.snapshot` compares equal).

The states and transitions are the table in :mod:`station.core.states`, run by a
``transitions.Machine`` with ``queued=True``. Handlers decide *whether* something may happen
(and why not, in words a dealer understands); the ``transitions`` machine records *where* the
table is, and is the single source of the diagram.

Every input gives its outputs (:mod:`station.core.outputs`), live or replayed alike: the
projection (:mod:`station.core.projection`) hands them to whoever reads the journal, and the
core loop only to its subscribers, so nothing reaches a device twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from station.chip_inputs import ChipBetsConfirmed, ChipPaymentAccepted, ChipRegistryInForce, ChipsOnPlace, ChipStatusSet
from station.core import outputs as out
from station.core import states as st
from station.core.bet_steps import BetSteps
from station.core.chip_steps import WRONG_PAYMENT_WORDS, ChipSteps
from station.core.integrity_steps import IntegritySteps
from station.core.machine_base import MachineBase
from station.core.options import CoreOptions
from station.core.payout_steps import PayoutSteps
from station.core.progressive_steps import JACKPOT_WORDS, ProgressiveSteps
from station.core.rating_steps import RatingSteps
from station.core.round_steps import RoundSteps
from station.core.shoe_steps import ShoeSteps
from station.core.stop_steps import StopSteps
from station.core.tray_steps import TraySteps
from station.events import (
    AccessDenied,
    Actor,
    AlertAcknowledged,
    BetChanged,
    BetCorrected,
    BetPlaced,
    BetWithdrawn,
    ButtonPressed,
    BuyIn,
    CardDrawn,
    CardsReturned,
    CutCardSeen,
    DealerAction,
    DealerSignedIn,
    DealerSignedOut,
    DeckCheck,
    DeckCheckUnanswered,
    DeviceBooted,
    DeviceFault,
    DeviceRecovered,
    DropCounted,
    Event,
    IntegrityAlert,
    LateBetOverride,
    LimitsChanged,
    PauseRequested,
    PayoutConfirmationRequired,
    PayoutOptionChanged,
    PayoutsConfirmed,
    PlayerCardRead,
    ProgressivePoolHeard,
    ProgressiveReset,
    ProgressiveSignOff,
    RatingClosed,
    RatingOpened,
    ResumeRequested,
    ShoeEmpty,
    ShufflerStatus,
    SupervisorDecision,
    Timer,
    TrayCorrected,
    TrayCounted,
)

__all__ = ["MachineBase", "TableMachine"]


class TableMachine(IntegritySteps, ShoeSteps, RoundSteps, BetSteps, StopSteps, PayoutSteps, TraySteps,
                   RatingSteps, ProgressiveSteps, ChipSteps):
    """The one owner of table state. Feed it with :meth:`apply`; read :attr:`expectation`.

    The state is :class:`~station.core.machine_base.MachineBase`'s; the steps that change it
    are grouped by subject in :class:`ShoeSteps`, :class:`RoundSteps`, :class:`BetSteps` and
    :class:`StopSteps`. This class routes each event to its step and words the expectation.
    """

    def __init__(self, options: CoreOptions | None = None) -> None:
        super().__init__(options)
        self._handlers: dict[type[Event], Callable[[Any], None]] = {
            CardDrawn: self._on_card,
            CutCardSeen: self._on_cut_card,
            ShoeEmpty: self._on_shoe_empty,
            ShufflerStatus: self._on_shuffler,
            DeckCheck: self._on_deck_check,
            CardsReturned: self._on_cards_returned,
            ButtonPressed: self._on_button,
            DeviceFault: self._on_fault,
            DeviceRecovered: self._on_recovered,
            DealerAction: self._on_action,
            BetPlaced: self._on_bet_placed,
            BetChanged: self._on_bet_changed,
            BetWithdrawn: self._on_bet_withdrawn,
            SupervisorDecision: self._on_decision,
            PayoutOptionChanged: self._on_payout_option,
            LimitsChanged: self._on_limits_changed,
            TrayCounted: self._on_tray_counted,
            DropCounted: self._on_drop_counted,
            TrayCorrected: self._on_tray_corrected,
            ProgressiveSignOff: self._on_progressive_sign_off,
            ProgressiveReset: self._on_progressive_reset,
            ProgressivePoolHeard: self._on_pool_heard,
            ChipsOnPlace: self._on_chips_on_place,
            ChipBetsConfirmed: self._on_chip_bets_confirmed,
            ChipStatusSet: self._on_chip_status_set,
            ChipPaymentAccepted: self._on_chip_payment_accepted,
            ChipRegistryInForce: self._on_chip_registry,
            PlayerCardRead: self._on_card_read,
            RatingOpened: self._on_rating_opened,
            RatingClosed: self._on_rating_closed,
            BuyIn: self._on_buy_in,
            LateBetOverride: self._on_late_bets,
            PauseRequested: self._on_pause,
            ResumeRequested: self._on_resume,
            Timer: self._on_timer,
            DeckCheckUnanswered: self._on_deck_check_unanswered,
            DeviceBooted: self._on_device_booted,
            IntegrityAlert: self._on_integrity_alert,
            AlertAcknowledged: self._on_alert_acknowledged,
            AccessDenied: self._on_access_denied,
            PayoutConfirmationRequired: self._on_confirmation_rule,
            PayoutsConfirmed: self._on_payouts_confirmed,
            BetCorrected: self._on_bet_corrected,
            DealerSignedIn: self._on_dealer_signed_in,
            DealerSignedOut: self._on_dealer_signed_out,
        }
        self._actions: dict[str, Callable[[DealerAction], None]] = {
            "shuffle_done": self._shuffle_done,
            "confirm_cut": self._confirm_cut,
            "no_more_bets": self._no_more_bets,
            "reveal": self._reveal,
            "next_round": self._next_round,
            "call_supervisor": self._call_supervisor,
            "war": self._player_choice,
            "surrender": self._player_choice,
        }
        self._last_expectation = self.expectation
        self._last_round_bets = False

    # --- public -----------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Apply one (already journaled) input event."""
        handler = self._handlers.get(type(event))
        mark = len(self.outbox)
        if handler is not None:
            handler(event)
        self._begin_pending_pause()
        self.events_applied += 1
        if len(self.outbox) > mark:
            self._account(mark)  # the cards out of the shoe, for the integrity monitor
        expectation = self.expectation
        last_round_bets = self.state == st.BETTING and self.shoe.last_round
        if expectation != self._last_expectation or last_round_bets != self._last_round_bets:
            self._last_expectation = expectation
            self._last_round_bets = last_round_bets
            self._emit(out.ExpectationChanged(expectation, last_round_bets))

    @property
    def announced_expectation(self) -> str:
        """The expectation as of the last event applied: what the last
        :class:`~station.core.outputs.ExpectationChanged` said. Wording it afresh is the
        dearest part of reading the table's state, and the subscribers of every output ask."""
        return self._last_expectation

    @property
    def last_round_bets(self) -> bool:
        """Bets are being taken for the shoe's last round (what the last expectation said)."""
        return self._last_round_bets

    def take_outputs(self) -> list[out.Output]:
        outputs, self.outbox = self.outbox, []
        return outputs

    def wanted_timer(self) -> tuple[str, float] | None:
        """The timer the loop should be running now (name, seconds), if any.

        Betting closes by itself after ``betting_seconds``; the name carries the round and
        the opening so a timer left over from an earlier opening is recognised and ignored.
        """
        if self.options.betting_seconds and self.state == st.BETTING and self.round is not None:
            return f"close-betting:{self.round.round_id}:{self.betting_openings}", float(self.options.betting_seconds)
        return None

    @property
    def expectation(self) -> str:
        """What the station expects next, in the dealer's words (with a pause still to come)."""
        return self._with_pending_pause(self._expectation_of_state())

    def _expectation_of_state(self) -> str:
        state = self.state
        o = self.options
        r = self.round
        if state == st.IRREGULARITY and self.irregularity is not None:
            words = f"waiting for supervisor: {self.irregularity.words}"
            if self.irregularity.device:
                dev = self.irregularity.device
                words += f" ({dev} {'still faulted' if dev in self.faulted else 'recovered'})"
            return words
        if state == st.PAUSED:
            return f"paused by {self.paused_by.get('who') or self.paused_by.get('role', 'supervisor')}"
        if state == st.SHUFFLING:
            prefix = "shoe finished: " if self.shoe.number and o.equipment != "continuous" else ""
            if o.equipment == "manual":
                return prefix + "shuffle the cards, then press shuffle done"
            check = self.shoe.ready_check
            if check is not None and check["status"] == "pending" and o.equipment != "manual":
                return prefix + f"checking the {self.shoe.ready_set.replace('?', 'shuffled')} set: waiting for the " \
                    "shuffler's deck check"
            if o.equipment == "batch":
                return prefix + f"waiting for the shuffler: {self._next_set() or 'a'} set"
            return "waiting for the continuous shuffler to be ready"
        if state == st.CUTTING:
            return "cut the cards and place the cut card, then confirm the cut"
        if state == st.BURNING:
            assert self.shoe.progress is not None
            return self.shoe.progress.instruction()
        if state == st.BETTING:
            words = "place your bets"
            if r is not None and r.dealt:
                words = "late bets allowed by the supervisor: call no more bets again"
            return f"cut card out: last round: {words}" if self.shoe.last_round else words
        if state == st.DEALING:
            return self._deal_instruction()
        if state == st.REVEALING:
            if o.squeeze:
                return "players squeeze and turn the cards: press reveal when turned"
            return "turn the cards in order, then press reveal"
        if state in (st.WAR_DECISION, st.WAR_BURNING, st.WAR_DEALING):
            return self._deal_instruction()
        if state == st.PAYING:
            assert r is not None
            if r.voided:
                words = "round void: return all bets, then next round"
            else:
                held = self.payouts_hold()
                confirm = f"confirm the payouts of box {', '.join(held)}, " if held else ""
                jackpot = f"{JACKPOT_WORDS}, " if self.jackpot_hold() else ""
                layout = self.chip_layout
                wrong = f"{WRONG_PAYMENT_WORDS}, " if layout is not None and layout.hold else ""
                words = f"pay and collect, {jackpot}{wrong}{confirm}clear the layout, then next round"
            if o.equipment == "continuous":
                words = words.replace("clear the layout", "return the cards to the shuffler")
            elif self.shoe.ended:
                words += " (shoe finished)"
            return words
        return state

    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-able data, deterministic: equal states give equal dicts."""
        return {
            "state": self.state,
            "return_state": self._return_state,
            "pause_return": self._pause_return,
            "shoe": self.shoe.to_json(),
            "round": self.round.to_json() if self.round else None,
            "irregularity": self.irregularity.to_json() if self.irregularity else None,
            "irregularities_raised": self.irregularities_raised,
            "faulted": dict(sorted(self.faulted.items())),
            "faulted_by_status": sorted(self._faulted_by_status),
            "paused_by": dict(self.paused_by),
            "pause_pending": dict(self.pause_pending),
            "payout_option": self.payout_option,
            "pending_payout": self.pending_payout,
            "payout_history": list(self.payout_history),
            "carried": None if self.carried is None else [[*k, a] for k, a in self.carried.items()],
            "shoe_results": list(self.shoe_results),
            "rounds_settled": self.rounds_settled,
            "rounds_voided": self.rounds_voided,
            "house_net": self.house_net,
            "discarded": [c.code for c in self.discarded],
            "deck_check": self.deck_check,
            "alerts": [a.to_json() for a in self.alerts],
            "alert_counts": dict(sorted(self.alert_counts.items())),
            "betting_openings": self.betting_openings,
            "confirm_payouts": self.confirm_payouts,
            "correctable": [[r.round_id, r.to_json()["bets"], [s.__dict__.copy() for s in r.settlement or ()]]
                            for r in self.correctable.values()],
            "corrections": self.corrections,
            "progressive": None if self.progressive is None else self.progressive.to_json(),
            "chips": None if self.chip_layout is None else self.chip_layout.to_json(),
            **self.dealer_state(),
            "events_applied": self.events_applied,
            "expectation": self.expectation,
        }

    def _on_button(self, ev: ButtonPressed) -> None:
        action = "call_supervisor" if ev.long_press else self.options.buttons.get(ev.button, ev.button)
        self._on_action(DealerAction(action, actor=Actor("dealer", ev.device)))

    def _on_action(self, ev: DealerAction) -> None:
        action = ev.action
        handler = self._actions.get(action)
        if handler is None and action in self.rules.betting_choices:
            handler = self._betting_choice
        if handler is None:
            self._refuse(ev, f"unknown dealer action {action!r}")
        elif self.state in (st.IRREGULARITY, st.PAUSED) and action != "call_supervisor":
            self._refuse(ev, self.expectation)
        else:
            handler(ev)

    def _on_access_denied(self, ev: AccessDenied) -> None:
        self._emit(out.AccessRefused(ev.command, ev.actor.role, ev.actor.who))

    def _on_timer(self, ev: Timer) -> None:
        wanted = self.wanted_timer()
        if wanted is not None and wanted[0] == ev.name:
            self._no_more_bets(ev)
