"""The table's state machine: shoe lifecycle, rounds, irregularities and decisions.

One :class:`TableMachine` owns all game state. It is fed typed input events, one at a time,
by the core loop (:mod:`station.core.loop`) after each event has been journaled; it never does
I/O and never reads a clock, so replaying the journal rebuilds exactly the same state
(:meth:`TableMachine.snapshot` compares equal).

The states and transitions are the table in :mod:`station.core.states`, run by a
``transitions.Machine`` with ``queued=True``. Handlers decide *whether* something may happen
(and why not, in words a dealer understands); the ``transitions`` machine records *where* the
table is, and is the single source of the diagram.

Outputs (:mod:`station.core.outputs`) are collected only while ``live`` is true: during replay
they are dropped, so nothing reaches a device twice.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from transitions import Machine

from station.cards import Card
from station.core import irregularities as irr
from station.core import outputs as out
from station.core import states as st
from station.core import wagers
from station.core.irregularities import HeldCard, Irregularity
from station.core.options import CoreOptions
from station.core.rounds import BetKey, Round, WarRound, round_id
from station.core.shoe import ShoeState
from station.events import (
    Actor,
    BetChanged,
    BetPlaced,
    BetWithdrawn,
    ButtonPressed,
    CardDrawn,
    CardsReturned,
    CutCardSeen,
    DealerAction,
    DeckCheck,
    DeviceFault,
    DeviceRecovered,
    Event,
    LateBetOverride,
    PauseRequested,
    PayoutOptionChanged,
    ResumeRequested,
    ShoeEmpty,
    ShufflerState,
    ShufflerStatus,
    SupervisorDecision,
    Timer,
)
from station.games import baccarat, war
from station.games.shoe_procedure import ShoePhase
from station.games.table import BaccaratTable, WarTable

FAULT_STATES = (ShufflerState.JAM, ShufflerState.DOOR_OPEN, ShufflerState.ERROR)
SUPERVISOR_ROLES = ("supervisor",)

RoundHook = Callable[[dict[str, Any]], None]


class _Model:
    """The object ``transitions`` drives: it holds ``state`` and the return conditions."""

    state: str

    def __init__(self, table: TableMachine) -> None:
        for name in st.RETURNABLE:
            setattr(self, f"back_to_{name}", partial(table._back_to, name))
        for name in st.PAUSABLE:
            setattr(self, f"resume_to_{name}", partial(table._resume_to, name))


class TableMachine:
    """The one owner of table state. Feed it with :meth:`apply`; read :attr:`expectation`."""

    def __init__(self, options: CoreOptions | None = None) -> None:
        self.options = options or CoreOptions()
        o = self.options
        self.shoe = ShoeState(o.decks, continuous=o.equipment == "continuous", rounds_after_cut=o.rounds_after_cut)
        self.round: Round | None = None
        self.irregularity: Irregularity | None = None
        self.irregularities_raised = 0
        self.faulted: dict[str, str] = {}
        self._faulted_by_status: set[str] = set()
        self._return_state = ""  # where the active irregularity returns to
        self._pause_return = ""  # where a pause returns to
        self.paused_by: dict[str, str] = {}
        self.payout_option = o.table.banker_payout.value if isinstance(o.table, BaccaratTable) else ""
        self.pending_payout: dict[str, str] | None = None
        self.payout_history: list[dict[str, str]] = []
        self.carried: dict[BetKey, int] | None = None  # Banker/Player bets left on after a Tie
        self.shoe_results: list[dict[str, Any]] = []
        self.settled_rounds: list[str] = []
        self.voided_rounds: list[str] = []
        self.house_net = 0
        self.discarded: list[Card] = []  # cards read with no shoe in play, burned by decision
        self.deck_check: dict[str, Any] | None = None
        self.betting_openings = 0
        self.events_applied = 0
        self.live = False
        self.outbox: list[out.Output] = []
        self.on_round_closed: RoundHook | None = None
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
        self._last_expectation = self.expectation
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
            LateBetOverride: self._on_late_bets,
            PauseRequested: self._on_pause,
            ResumeRequested: self._on_resume,
            Timer: self._on_timer,
        }
        self._actions: dict[str, Callable[[DealerAction], None]] = {
            "shuffle_done": self._shuffle_done,
            "confirm_cut": self._confirm_cut,
            "no_more_bets": self._no_more_bets,
            "reveal": self._reveal,
            "next_round": self._next_round,
            "call_supervisor": self._call_supervisor,
            "war": self._war_choice,
            "surrender": self._war_choice,
        }

    # --- public -----------------------------------------------------------------------------

    @property
    def state(self) -> str:
        return self._model.state

    def apply(self, event: Event) -> None:
        """Apply one (already journaled) input event."""
        handler = self._handlers.get(type(event))
        if handler is not None:
            handler(event)
        self.events_applied += 1
        if self.live:  # replay publishes nothing, so it need not word the expectation
            expectation = self.expectation
            if expectation != self._last_expectation:
                self._last_expectation = expectation
                self._emit(out.ExpectationChanged(expectation))

    def go_live(self) -> None:
        """Replay is over: from now on outputs are collected for the subscribers."""
        self.live = True
        self._last_expectation = self.expectation

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
        """What the station expects next, in the dealer's words."""
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
            prefix = "shoe finished: " if self.shoe.number and not o.equipment == "continuous" else ""
            if o.equipment == "manual":
                return prefix + "shuffle the cards, then press shuffle done"
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
            assert isinstance(r, WarRound) and r.engine is not None
            return r.engine.next_step().instruction()
        if state == st.PAYING:
            assert r is not None
            if r.voided:
                words = "round void: return all bets, then next round"
            else:
                words = "pay and collect, clear the layout, then next round"
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
            "payout_option": self.payout_option,
            "pending_payout": self.pending_payout,
            "payout_history": list(self.payout_history),
            "carried": None if self.carried is None else [[*k, a] for k, a in self.carried.items()],
            "shoe_results": list(self.shoe_results),
            "settled_rounds": list(self.settled_rounds),
            "voided_rounds": list(self.voided_rounds),
            "house_net": self.house_net,
            "discarded": [c.code for c in self.discarded],
            "deck_check": self.deck_check,
            "betting_openings": self.betting_openings,
            "events_applied": self.events_applied,
            "expectation": self.expectation,
        }

    # --- plumbing ---------------------------------------------------------------------------

    def _emit(self, output: out.Output) -> None:
        if self.live:
            self.outbox.append(output)

    def _refuse(self, event: Event, reason: str) -> None:
        if self.live:
            self._emit(out.Refused(event.kind, reason))

    def _trigger(self, name: str) -> None:
        self._model.trigger(name)  # type: ignore[attr-defined]

    def _state_changed(self) -> None:
        previous, self._previous_state = self._previous_state, self.state
        if self.live:
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
    def table(self) -> BaccaratTable | WarTable:
        assert self.options.table is not None
        return self.options.table

    # --- shoe lifecycle ---------------------------------------------------------------------

    def _next_set(self) -> str:
        """Batch shuffler: the colour of the set that should come into the shoe next."""
        a, b = self.options.set_colours
        if self.shoe.set_in_shoe == a:
            return b
        if self.shoe.set_in_shoe == b:
            return a
        return ""

    def _on_shuffler(self, ev: ShufflerStatus) -> None:
        if ev.state in FAULT_STATES:
            self._faulted_by_status.add(ev.device)
            self._on_fault(DeviceFault(ev.device, f"shuffler {ev.state.value}", ev.detail))
            return
        if ev.device in self._faulted_by_status:
            self._faulted_by_status.discard(ev.device)
            self._on_recovered(DeviceRecovered(ev.device))
        equipment = self.options.equipment
        if equipment == "batch":
            if ev.set_colour and ev.state in (ShufflerState.SHUFFLING, ShufflerState.DONE):
                self.shoe.set_in_shuffler = ev.set_colour
            if ev.state is ShufflerState.DONE:
                if ev.set_colour and ev.set_colour == self.shoe.set_in_shoe and self.shoe.in_play:
                    self._refuse(ev, f"the shuffler reports the {ev.set_colour} set, which is in the shoe")
                    return
                self.shoe.ready_set = ev.set_colour or "?"
                if self.state == st.SHUFFLING:
                    self._batch_set_ready(ev)
        elif equipment == "continuous" and ev.state is ShufflerState.READY and self.state == st.SHUFFLING:
            self.shoe.start()
            self._open_round()
            self._emit(out.ShoeStarted(self.shoe.number, None, ()))
            self._trigger("shuffler_ready")

    def _batch_set_ready(self, ev: Event) -> None:
        ready = self.shoe.ready_set
        expected = self._next_set()
        if ready not in ("?", "") and expected and ready != expected:
            self._refuse(ev, f"the {ready} set was dealt in the last shoe: waiting for the {expected} set")
            return
        if self.shoe.set_in_shoe:
            self.shoe.set_in_shuffler = self.shoe.set_in_shoe
        self.shoe.set_in_shoe = "" if ready == "?" else ready
        self.shoe.ready_set = ""
        self._trigger("shuffle_done")

    def _on_deck_check(self, ev: DeckCheck) -> None:
        self.deck_check = {
            "device": ev.device,
            "decks": ev.decks,
            "complete": ev.complete,
            "missing": list(ev.missing),
            "extra": list(ev.extra),
        }
        if not ev.complete:
            self._refuse(ev, f"deck check: missing {list(ev.missing)}, extra {list(ev.extra)}")

    def _shuffle_done(self, ev: DealerAction) -> None:
        if self.state != st.SHUFFLING:
            self._refuse(ev, self._not_now("shuffle done"))
        elif self.options.equipment == "batch":
            if self.shoe.ready_set:
                self._batch_set_ready(ev)
            else:
                self._refuse(ev, "the batch shuffler reports when a set is shuffled")
        elif self.options.equipment == "continuous":
            self._refuse(ev, "the continuous shuffler reports when it is ready")
        else:
            self._trigger("shuffle_done")

    def _confirm_cut(self, ev: DealerAction) -> None:
        if self.state != st.CUTTING:
            self._refuse(ev, self._not_now("confirm the cut"))
            return
        self.shoe.start()
        self.shoe_results = []
        self._trigger("cut_confirmed")

    def _burn_card(self, card: Card) -> None:
        progress = self.shoe.progress
        assert progress is not None
        if progress.phase is ShoePhase.EXPOSE:
            self.shoe.progress = progress.first_card_exposed(card)
        else:
            self.shoe.burned.append(card)
            self.shoe.progress = progress.card_burned()
        if self.shoe.progress.phase is ShoePhase.READY:
            self._open_round()
            self._emit(out.ShoeStarted(self.shoe.number, self.shoe.exposed, tuple(self.shoe.burned), self.shoe.set_in_shoe))
            self._trigger("burn_complete")

    def _on_cut_card(self, ev: CutCardSeen) -> None:
        progress = self.shoe.progress
        if self.options.equipment == "continuous" or progress is None or not self.shoe.in_play:
            self._refuse(ev, "no cut card is expected now")
            return
        if progress.rounds_left is not None:
            self._refuse(ev, "the cut card has already come out of this shoe")
            return
        if progress.phase is ShoePhase.IN_ROUND:
            self.shoe.progress = progress.cut_card_seen(mid_round=True)
        elif progress.phase is ShoePhase.READY:
            self.shoe.progress = progress.cut_card_seen(mid_round=False)
            if self.shoe.progress.is_shoe_end and self.round is not None and not self.round.settled:
                # No round may follow the cut card: the round still open never started.
                if self.state in (st.BETTING, st.DEALING):
                    self._void_round("the cut card came out: the shoe is finished")
                    self._trigger("abandon")
        else:
            self._refuse(ev, "the cut card came out during the burn")

    def _on_shoe_empty(self, ev: ShoeEmpty) -> None:
        state = self.state
        if state == st.IRREGULARITY:
            self.shoe.empty = True
            return
        if state in st.MID_ROUND or (state == st.BETTING and self.round is not None):
            self.shoe.empty = True
            self._raise("shoe_empty", "the shoe reported no cards left", device=ev.device)
        elif state == st.PAYING:
            self.shoe.empty = True
        else:
            self._refuse(ev, "the shoe reported empty while no round is being dealt")

    def _on_cards_returned(self, ev: CardsReturned) -> None:
        if self.options.equipment != "continuous":
            self._refuse(ev, "cards are returned to a continuous shuffler only")
            return
        waiting = self.shoe.awaiting_return
        if ev.count != len(waiting):
            self._refuse(ev, f"the shuffler counted {ev.count} cards back; {len(waiting)} were dealt and cleared")
        self.shoe.put_back(waiting)
        self.shoe.awaiting_return = []
        self.shoe.empty = False  # the continuous shuffler has cards again

    # --- rounds -----------------------------------------------------------------------------

    def _open_round(self) -> None:
        self.shoe.rounds += 1
        rid = round_id(self.shoe.number, self.shoe.rounds)
        if self.pending_payout is not None:
            self.payout_option = self.pending_payout["option"]
            self.payout_history.append({**self.pending_payout, "from_round": rid})
            self._emit(out.PayoutOptionApplied(self.payout_option, rid))
            self.pending_payout = None
        cls = WarRound if self.options.game == "war" else Round
        self.round = cls(rid, self.options.game, payout_option=self.payout_option)
        if self.carried:
            self.round.bets = dict(self.carried)
        self.carried = None
        self.betting_openings += 1

    def _no_more_bets(self, ev: Event) -> None:
        r = self.round
        if self.state != st.BETTING or r is None:
            self._refuse(ev, self._not_now("no more bets"))
            return
        if self.options.game == "baccarat":
            table = self.table
            assert isinstance(table, BaccaratTable)
            if table.table_differential is not None and r.bets:
                after, cuts, problem = wagers.differential_cut(r.bets, wagers.table_with_payout(table, r.payout_option))
                if problem:
                    self._refuse(ev, f"table differential exceeded: {problem}")
                    return
                if cuts:
                    r.bets = after
                    r.decisions.append({"differential": [[*k, old, new] for k, old, new in cuts]})
                    self._emit(out.BetsReduced(r.round_id, tuple((k[0], k[1], k[2], old, new) for k, old, new in cuts)))
        else:
            assert isinstance(r, WarRound)
            if not r.bets:
                self._refuse(ev, "no wagers on the table: a Casino War round needs at least one")
                return
            r.engine = war.WarRound.start([wagers.war_wager(k, a) for k, a in r.bets.items()])
        r.bets_closed = True
        self._trigger("no_more_bets")
        if r.dealt:  # bets were reopened by a supervisor with cards already out (5.14)
            self._after_card()

    def _deal_instruction(self) -> str:
        r = self.round
        assert r is not None
        if isinstance(r, WarRound):
            assert r.engine is not None
            return r.engine.next_step().instruction()
        text = baccarat.deal_position(r.cards_at("player"), r.cards_at("banker"))
        return text or "round complete"

    def _on_card(self, ev: CardDrawn) -> None:
        card, state = ev.card, self.state
        if state == st.IRREGULARITY:
            assert self.irregularity is not None
            in_shoe = self.shoe.can_take(card)
            if in_shoe:
                self.shoe.take(card)
            self.irregularity.held.append(HeldCard(card, in_shoe, ev.device))
            return
        base = self.paused_from if state == st.PAUSED else state
        if base in (st.SHUFFLING, st.CUTTING):
            self._raise("card_without_shoe", f"{card.code} read while no shoe is in play", HeldCard(card, False, ev.device))
            return
        if ev.device in self.faulted:
            self._raise_for_card("card_during_fault", f"{card.code} read while {ev.device} is faulted", card, ev.device)
            return
        if not self.shoe.can_take(card):
            assert self.shoe.composition is not None
            self._raise(
                "impossible_card",
                f"{card.code} cannot be in this shoe: all {self.shoe.decks} have been seen, or it is from another set",
                HeldCard(card, False, ev.device),
            )
            return
        if base == st.BETTING:
            self._raise_for_card("card_before_no_more_bets", f"{card.code} drawn before no more bets", card, ev.device)
        elif base in (st.REVEALING, st.PAYING, st.WAR_DECISION):
            self._raise_for_card("card_when_stand", f"{card.code} drawn when the rules say stand", card, ev.device)
        elif state == st.BURNING:
            self.shoe.take(card)
            self._burn_card(card)
        elif state in (st.DEALING, st.WAR_BURNING, st.WAR_DEALING):
            self.shoe.take(card)
            self._deal(card, ev.device)
        else:  # pragma: no cover - every state is handled above
            raise AssertionError(state)

    def _deal(self, card: Card, device: str) -> None:
        r = self.round
        assert r is not None
        if not r.dealt:
            self.shoe.round_started()
        if isinstance(r, WarRound):
            assert r.engine is not None
            step = r.engine.next_step()
            r.engine = r.engine.with_card(card)
            if step.kind is war.StepKind.BURN:
                r.burned.append(card)
            else:
                position = {
                    war.StepKind.DEAL_BOX: f"box {step.box}",
                    war.StepKind.DEAL_DEALER: "dealer",
                    war.StepKind.DEAL_WAR_BOX: f"war box {step.box}",
                    war.StepKind.DEAL_DEALER_WAR: "war dealer",
                }[step.kind]
                r.place(position, card)
                self._reveal_upto(len(r.dealt))
        else:
            hand = baccarat.next_hand(r.cards_at("player"), r.cards_at("banker"))
            if hand is None:  # defensive: a complete round has already left the dealing state
                self._raise("card_when_stand", f"{card.code} drawn when the rules say stand", HeldCard(card, True, device))
                return
            r.place(hand.value, card)
            if not self.options.hidden_cards:
                self._reveal_upto(len(r.dealt))
        self._after_card()

    def _after_card(self) -> None:
        """Move the round on after a card (or a reveal): reveal stage, war steps, or settle."""
        r = self.round
        assert r is not None
        if isinstance(r, WarRound):
            assert r.engine is not None
            kind = r.engine.next_step().kind
            target = {
                war.StepKind.DECIDE: st.WAR_DECISION,
                war.StepKind.BURN: st.WAR_BURNING,
                war.StepKind.DEAL_WAR_BOX: st.WAR_DEALING,
                war.StepKind.DEAL_DEALER_WAR: st.WAR_DEALING,
            }.get(kind)
            if kind is war.StepKind.COMPLETE:
                self._finish_war()
            elif kind is war.StepKind.DECIDE and self.state != st.WAR_DECISION:
                self._emit(out.WarDecisionNeeded(r.round_id, tuple(str(b) for b in r.engine.tied_boxes())))
                self._trigger("boxes_tied")
            elif target == st.WAR_BURNING and self.state == st.WAR_DECISION:
                self._trigger("go_to_war")
            elif target == st.WAR_DEALING and self.state == st.WAR_BURNING:
                self._trigger("war_burned")
            return
        player, banker = r.cards_at("player"), r.cards_at("banker")
        following = baccarat.next_hand(player, banker)
        if self.options.hidden_cards and r.revealed < len(r.dealt):
            stage_over = len(r.dealt) >= 4 if self.options.squeeze else following is None
            if stage_over:
                self._trigger("await_reveal")
            return
        if following is None:
            self._finish_baccarat()

    def _reveal_upto(self, count: int) -> None:
        r = self.round
        assert r is not None
        if not self.live:
            r.revealed = max(r.revealed, count)
            return
        seen: dict[str, int] = {}
        for i, (position, card) in enumerate(r.dealt[:count]):
            seen[position] = seen.get(position, 0) + 1
            if i >= r.revealed:
                if self.live:
                    self._emit(out.CardRevealed(r.round_id, position, seen[position], card))
        r.revealed = max(r.revealed, count)

    def _reveal(self, ev: DealerAction) -> None:
        r = self.round
        if self.state != st.REVEALING or r is None:
            self._refuse(ev, self._not_now("reveal"))
            return
        self._reveal_upto(len(r.dealt))
        if baccarat.next_hand(r.cards_at("player"), r.cards_at("banker")) is None:
            self._finish_baccarat()
        else:
            self._trigger("reveal_more")

    def _finish_baccarat(self) -> None:
        r = self.round
        assert r is not None
        result = baccarat.result_of(r.cards_at("player"), r.cards_at("banker"))
        r.result = {
            "outcome": result.outcome.value,
            "player": [c.code for c in result.player],
            "banker": [c.code for c in result.banker],
            "player_total": result.player_total,
            "banker_total": result.banker_total,
            "natural": result.natural,
            "player_pair": result.player_pair,
            "banker_pair": result.banker_pair,
        }
        hands = (("player", result.player), ("banker", result.banker))
        totals = (("player", result.player_total), ("banker", result.banker_total))
        if self.live:
            self._emit(out.RoundResult(
                r.round_id, "baccarat", hands, totals, result.outcome.value,
                result.natural, result.player_pair, result.banker_pair,
            ))
        table = self.table
        assert isinstance(table, BaccaratTable)
        settled, house = wagers.settle_baccarat(r.bets, result, wagers.table_with_payout(table, r.payout_option))
        self._record_settlement(r, settled, house)
        if result.outcome is baccarat.Outcome.TIE:
            self.carried = {k: a for k, a in r.bets.items() if k[2] in ("banker", "player")}
        self.shoe_results.append({"round_id": r.round_id, **r.result})
        if self.live:
            self._emit(out.RoundSettled(
                r.round_id, "baccarat", hands, totals, result.outcome.value, result.natural,
                result.player_pair, result.banker_pair, settled, house,
            ))
        self._trigger("settle")

    def _finish_war(self) -> None:
        r = self.round
        assert isinstance(r, WarRound) and r.engine is not None
        table = self.table
        assert isinstance(table, WarTable)
        engine = r.engine
        assert engine.dealer_first is not None
        dealer = engine.dealer_first.rank.war_rank
        per_box = {
            str(b): ("win" if c.rank.war_rank > dealer else "lose" if c.rank.war_rank < dealer else "tie")
            for b, c in engine.first
        }
        hands = tuple((position, (card,)) for position, card in r.dealt)
        totals = tuple((position, card.rank.war_rank) for position, card in r.dealt)
        outcome = " ".join(f"box {b}:{v}" for b, v in per_box.items())
        r.result = {
            "outcome": outcome,
            "boxes": per_box,
            "dealt": [[p, c.code] for p, c in r.dealt],
            "war_boxes": [str(b) for b in engine.war_boxes()],
        }
        self._emit(out.RoundResult(r.round_id, "war", hands, totals, outcome))
        settled, house = wagers.settle_casino_war(engine, table)
        self._record_settlement(r, settled, house)
        self.shoe_results.append({"round_id": r.round_id, **r.result})
        self._emit(out.RoundSettled(r.round_id, "war", hands, totals, outcome, False, False, False, settled, house))
        self._trigger("settle")

    def _record_settlement(self, r: Round, settled: tuple[out.SettledBet, ...], house: int) -> None:
        r.settlement = settled
        self.house_net += house
        self.settled_rounds.append(r.round_id)
        self.shoe.round_completed()

    def _war_choice(self, ev: DealerAction) -> None:
        r = self.round
        if self.state != st.WAR_DECISION or not isinstance(r, WarRound) or r.engine is None:
            self._refuse(ev, self._not_now(ev.action))
            return
        try:
            box = wagers.box_number(ev.box)
        except wagers.BetFormError as exc:
            self._refuse(ev, str(exc))
            return
        players = [p for b, p in r.engine.deciders() if b == box and r.engine.choice_of(b, p) is None]
        if ev.player:
            players = [p for p in players if p == ev.player]
        if not players:
            self._refuse(ev, f"nobody on box {box} has a war-or-surrender decision to make")
            return
        choice = war.Choice(ev.action)
        for player in players:
            r.engine = r.engine.with_choice(box, player, choice)
        r.decisions.append({"war_choice": ev.action, "box": ev.box, "players": players, "who": ev.actor.who})
        self._after_card()

    def _next_round(self, ev: DealerAction) -> None:
        r = self.round
        if self.state != st.PAYING or r is None:
            self._refuse(ev, self._not_now("next round"))
            return
        if self.options.equipment == "continuous":
            self.shoe.awaiting_return.extend(self._cards_of(r))
        if self.on_round_closed is not None:
            self.on_round_closed(r.to_json())
        self.round = None
        if self.shoe.ended and self.options.equipment != "continuous":
            self.carried = None  # bets left on after a final Tie go back to their owners
            self._emit(out.ShoeEnded(self.shoe.number, self.shoe.rounds))
            self._trigger("end_shoe")
            if self.options.equipment == "batch" and self.shoe.ready_set:
                self._batch_set_ready(ev)
            return
        self._open_round()
        self._trigger("next_round")

    @staticmethod
    def _cards_of(r: Round) -> list[Card]:
        return [c for _, c in r.dealt] + list(r.burned) + list(r.dummy)

    # --- bets -------------------------------------------------------------------------------

    def _bet_target(self, ev: Event, region: str) -> dict[BetKey, int] | None:
        """The layout a bet change goes to now, or ``None`` (with a refusal) when closed."""
        if self.state == st.BETTING and self.round is not None:
            return self.round.bets
        if self.state == st.PAYING and self.carried is not None and region in ("banker", "player"):
            return self.carried  # after a Tie, before the next round (5.16)
        if self.state in (st.DEALING, st.REVEALING) and self.round is not None and not self.round.revealed:
            self._refuse(ev, "no more bets: a supervisor may allow late bets while no card is revealed (5.14)")
        else:
            self._refuse(ev, f"bets are closed: {self.expectation}")
        return None

    def _on_bet_placed(self, ev: BetPlaced) -> None:
        layout = self._bet_target(ev, ev.region)
        if layout is None:
            return
        key = (ev.box, ev.player, ev.region)
        reason = wagers.refusal(self.options.game, key, ev.amount, layout, self.table)
        if reason:
            self._refuse(ev, reason)
            return
        layout[key] = layout.get(key, 0) + ev.amount
        self._note_override(ev.actor, "placed", key, ev.amount)
        if self.live:
            self._emit(out.BetAccepted(self._bet_round_id(), ev.box, ev.player, ev.region, layout[key]))

    def _on_bet_changed(self, ev: BetChanged) -> None:
        layout = self._bet_target(ev, ev.region)
        if layout is None:
            return
        key = (ev.box, ev.player, ev.region)
        if key not in layout:
            self._refuse(ev, f"{ev.player} has no {ev.region} bet on box {ev.box} to change")
            return
        others = {k: a for k, a in layout.items() if k != key}
        reason = wagers.refusal(self.options.game, key, ev.amount, others, self.table)
        if reason:
            self._refuse(ev, reason)
            return
        layout[key] = ev.amount
        self._note_override(ev.actor, "changed", key, ev.amount)
        if self.live:
            self._emit(out.BetAccepted(self._bet_round_id(), ev.box, ev.player, ev.region, ev.amount))

    def _on_bet_withdrawn(self, ev: BetWithdrawn) -> None:
        layout = self._bet_target(ev, ev.region)
        if layout is None:
            return
        key = (ev.box, ev.player, ev.region)
        if key not in layout:
            self._refuse(ev, f"{ev.player} has no {ev.region} bet on box {ev.box}")
            return
        del layout[key]
        self._note_override(ev.actor, "withdrawn", key, 0)
        self._emit(out.BetRemoved(self._bet_round_id(), ev.box, ev.player, ev.region))

    def _note_override(self, actor: Actor, what: str, key: BetKey, amount: int) -> None:
        r = self.round
        if r is not None and r.dealt:  # a late change, allowed by a supervisor
            r.decisions.append({"late_bet": what, "bet": [*key, amount], "role": actor.role, "who": actor.who})

    def _bet_round_id(self) -> str:
        if self.state == st.PAYING:  # carried bets belong to the next round
            return round_id(self.shoe.number, self.shoe.rounds + 1)
        assert self.round is not None
        return self.round.round_id

    def _on_late_bets(self, ev: LateBetOverride) -> None:
        r = self.round
        if ev.actor.role not in SUPERVISOR_ROLES:
            self._refuse(ev, "only a supervisor may allow late bets")
        elif self.state not in (st.DEALING, st.REVEALING) or r is None or isinstance(r, WarRound):
            self._refuse(ev, self._not_now("allow late bets"))
        elif r.revealed:
            self._refuse(ev, "a card of this round has been revealed: no late bets (5.14)")
        else:
            r.bets_closed = False
            r.decisions.append({"late_bets_allowed": ev.reason, "role": ev.actor.role, "who": ev.actor.who})
            self.betting_openings += 1
            self._trigger("late_bets")

    def _on_payout_option(self, ev: PayoutOptionChanged) -> None:
        if self.options.game != "baccarat":
            self._refuse(ev, "payout options are for baccarat")
        elif ev.actor.role not in SUPERVISOR_ROLES:
            self._refuse(ev, "only a supervisor may change the payout option")
        elif ev.option not in ("commission", "no_commission"):
            self._refuse(ev, f"unknown payout option {ev.option!r}: use commission or no_commission")
        else:
            self.pending_payout = {"option": ev.option, "role": ev.actor.role, "who": ev.actor.who}
            self._emit(out.PayoutOptionScheduled(ev.option, "next round"))

    # --- dealer actions, pause --------------------------------------------------------------

    def _on_button(self, ev: ButtonPressed) -> None:
        action = "call_supervisor" if ev.long_press else self.options.buttons.get(ev.button, ev.button)
        self._on_action(DealerAction(action, actor=Actor("dealer", ev.device)))

    def _on_action(self, ev: DealerAction) -> None:
        action = ev.action
        handler = self._actions.get(action)
        if handler is None:
            self._refuse(ev, f"unknown dealer action {action!r}")
        elif self.state in (st.IRREGULARITY, st.PAUSED) and action != "call_supervisor":
            self._refuse(ev, self.expectation)
        else:
            handler(ev)

    def _not_now(self, what: str) -> str:
        return f"cannot {what} now: {self.expectation}"

    def _call_supervisor(self, ev: DealerAction) -> None:
        if self.state in (st.IRREGULARITY, st.PAUSED):
            self._refuse(ev, self.expectation)
            return
        self._raise("supervisor_called", f"called by {ev.actor.who or 'the dealer'}")

    @property
    def paused_from(self) -> str:
        return self._pause_return if self.state == st.PAUSED else ""

    def _on_pause(self, ev: PauseRequested) -> None:
        if self.state not in st.PAUSABLE:
            self._refuse(ev, f"cannot pause with cards in flight: {self.expectation}")
            return
        self.paused_by = {"role": ev.actor.role, "who": ev.actor.who, "reason": ev.reason}
        self._pause_return = self.state
        self._trigger("pause")

    def _on_resume(self, ev: ResumeRequested) -> None:
        if self.state != st.PAUSED:
            self._refuse(ev, "the table is not paused")
            return
        self.paused_by = {}
        self._trigger("resume")
        self._pause_return = ""

    def _on_timer(self, ev: Timer) -> None:
        wanted = self.wanted_timer()
        if wanted is not None and wanted[0] == ev.name:
            self._no_more_bets(ev)

    # --- faults and irregularities ----------------------------------------------------------

    def _on_fault(self, ev: DeviceFault) -> None:
        self.faulted[ev.device] = ev.reason
        self._emit(out.DeviceFaulted(ev.device, ev.reason, ev.code))
        if self.state in st.MID_ROUND and self._critical(ev.device):
            self._raise("device_fault", f"{ev.device}: {ev.reason}", device=ev.device)

    def _on_recovered(self, ev: DeviceRecovered) -> None:
        if self.faulted.pop(ev.device, None) is not None:
            self._emit(out.DeviceBack(ev.device))

    def _raise_for_card(self, reason: str, detail: str, card: Card, device: str) -> None:
        """Stop the round over a card read from the shoe: it leaves the composition if it can
        (an impossible card read during a fault is held without touching the composition)."""
        in_shoe = self.shoe.can_take(card)
        if in_shoe:
            self.shoe.take(card)
        self._raise(reason, detail, HeldCard(card, in_shoe, device))

    def _raise(self, reason: str, detail: str, held: HeldCard | None = None, device: str = "") -> None:
        r = self.round
        round_open = r is not None and not r.settled
        decisions = irr.allowed_decisions(reason, round_open=round_open, settled=bool(r and r.settled))
        if r is None:
            decisions = tuple(d for d in decisions if d not in (irr.DUMMY, irr.VOID)) or (irr.BURN,)
        self.irregularities_raised += 1
        self.irregularity = Irregularity(
            ident=self.irregularities_raised,
            reason=reason,
            detail=detail,
            round_id=r.round_id if r else "",
            return_state=self.state,
            decisions=decisions,
            device=device,
            held=[held] if held else [],
        )
        self._return_state = self.state
        self._trigger("stop")
        self._emit(out.IrregularityRaised(self.irregularity.ident, reason, detail, self.irregularity.round_id, decisions))

    def _on_decision(self, ev: SupervisorDecision) -> None:
        problem = self.irregularity
        if self.state != st.IRREGULARITY or problem is None:
            self._refuse(ev, "there is no irregularity to decide")
            return
        if ev.actor.role not in SUPERVISOR_ROLES:
            self._refuse(ev, "only a supervisor may decide an irregularity")
            return
        if ev.decision not in problem.decisions:
            self._refuse(ev, f"{ev.decision!r} is not allowed here: choose {', '.join(problem.decisions)}")
            return
        blocking = self._blocking_faults()
        if ev.decision == irr.RESUME and blocking:
            self._refuse(ev, f"{', '.join(blocking)} still faulted: wait for it to recover, or void the round")
            return
        record = {
            "irregularity": problem.ident,
            "reason": problem.reason,
            "detail": problem.detail,
            "decision": ev.decision,
            "role": ev.actor.role,
            "who": ev.actor.who,
            "note": ev.detail,
            "held": [h.card.code for h in problem.held],
        }
        r = self.round
        if r is not None:
            r.decisions.append(record)
        self.irregularity = None
        self._emit(out.IrregularityResolved(problem.ident, problem.reason, ev.decision, ev.actor.role, ev.actor.who))
        held = problem.held
        self._return_state = problem.return_state
        if ev.decision == irr.VOID:
            assert r is not None
            r.burned.extend(h.card for h in held)
            self._void_round(f"{problem.words}: voided by {ev.actor.who or 'supervisor'}")
            self._trigger("void")
        elif ev.decision == irr.BURN:
            self._trigger("resolve")
            self._burn_held(held, problem.return_state)
        elif ev.decision == irr.DUMMY:
            assert r is not None
            r.dummy.extend(h.card for h in held)
            self._trigger("resolve")
        else:
            self._trigger("resolve")
            self.shoe.put_back([h.card for h in held if h.in_shoe])
            for h in held:
                self._on_card(CardDrawn(h.device, h.card))

    def _burn_held(self, held: list[HeldCard], where: str) -> None:
        """Burned by decision: in the shoe's burn they count as burn cards; in a war they
        count toward the three burned; otherwise they are set aside with the round."""
        r = self.round
        for h in held:
            if where == st.BURNING and self.state == st.BURNING:
                self._burn_card(h.card)
            elif where == st.WAR_BURNING and self.state == st.WAR_BURNING:
                self._deal(h.card, h.device)
            elif r is not None:
                r.burned.append(h.card)
            else:
                self.discarded.append(h.card)

    def _void_round(self, reason: str) -> None:
        r = self.round
        assert r is not None
        r.voided = True
        r.void_reason = reason
        returned = wagers.returned(r.bets)
        self.voided_rounds.append(r.round_id)
        if r.dealt or r.burned:
            self.shoe.round_completed()
        self._emit(out.RoundVoided(r.round_id, reason, returned))
