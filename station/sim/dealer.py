"""A simulated dealer who plays the simulated devices, so a station can run with no one at it.

It behaves as a dealer does, through the same paths a dealer uses: it slides cards out of
the simulated shoe (the card goes over the wire to the shoe driver, exactly like a real
shoe's), presses the simulated USB pedals (through the real pyusb code path) for the actions
mapped to pedals, and uses the dealer's screen (a ``DealerAction`` event) for the rest. It
decides what to do from what the station says it expects next, and does one thing per
change of state or expectation; it never reads or writes the state machine itself.

When a person signs in as the table's dealer (the console, the button box, ``ctl``), the
simulated dealer yields: the person takes every decision (bets and no more bets, the reveal,
war or surrender, confirmed payouts and the next round) and the simulated dealer only handles
the equipment (shuffles, cuts, and draws each card the station asks for, one at a time), until
the person signs out; then it plays again, from where the table stands.

A simulated dealer never decides an irregularity or resumes a pause: that is a supervisor's
job. In ``station run`` it waits for them as long as they take (and for a journal that cannot
be written until it can), then goes on from where the station stands; in ``station demo``,
where nobody can decide, it stops and reports, which the demo turns into an error (the
script's ``gives_up``). After any stop, and after its shoe lost cards in a restart, it no
longer trusts its own count of the round: it deals card by card as the station asks
(:meth:`~station.sim.dealing.RoundDealing.deal_as_asked`), and uses the screen rather than the
pedals, until it opens the next round itself.

Its parts: what it knows of the station (:mod:`station.sim.watch`), the shoe and shuffler in
its hands (:mod:`station.sim.equipment`), the cards of the round and dealing ahead at full
speed (:mod:`station.sim.dealing`); this module decides, state by state, what to do next.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import structlog

from drivers.simulators.pool import CardPool
from station.cards import Card, ShoeComposition
from station.core import outputs as out
from station.core import states as st
from station.core.dealer_steps import BURN_WORDS
from station.core.options import CoreOptions
from station.events import Actor, BetPlaced, ChipBetsConfirmed, DealerAction, Event, PayoutsConfirmed
from station.sim.chip_hands import CHIP_OUTPUTS, ChipHands, ChipLayoutDevice, DealerHalted
from station.sim.dealing import CONFIRM_WORDS, RoundDealing
from station.sim.equipment import DealerEquipment, SimulatedShoe, SimulatedShuffler
from station.sim.script import DealerScript, DealerStopped
from station.sim.watch import StationWatch

log = structlog.get_logger(__name__)

#: Who the simulated dealer's confirmations of payouts name (recall says who confirmed).
SIMULATED_DEALER = Actor("dealer", "simulated dealer")
#: The states in which the station waits for a card.
DEALING_STATES = (st.BURNING, st.DEALING, st.WAR_BURNING, st.WAR_DEALING)
#: The states whose next step is a dealer's decision (bets and no more bets, the reveal, war
#: or surrender, payouts confirmed and the next round): a person signed in as the dealer takes
#: them, and the simulated dealer waits, however long they take.
PERSON_DECIDES = (st.BETTING, st.REVEALING, st.WAR_DECISION, st.PAYING)


class SimulatedDealer:
    """Plays rounds from what the station says: feed it the outputs it acts on with
    :meth:`on_output` and the state and expectation after each event with :meth:`observed`
    (the simulated table does both, from the station's side of its pipe)."""

    def __init__(
        self,
        post: Callable[[Event], None],
        options: CoreOptions,
        script: DealerScript,
        *,
        shoe: SimulatedShoe,
        press: Callable[[str], bool],
        shuffler: SimulatedShuffler | None = None,
        pool: CardPool | None = None,
        post_burst: Callable[[Sequence[Event]], None] | None = None,
        start_afresh: Callable[[], None] | None = None,
        gate: Callable[[int | None], None] | None = None,
        cautious: Callable[[], bool] | None = None,
        chip_layout: ChipLayoutDevice | None = None,
    ) -> None:
        self._post = post
        self._burst_sink = post_burst
        self.options = options
        self.script = script
        self._press = press
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sim-dealer", daemon=True)
        self.watch = StationWatch(script)
        self.equipment = DealerEquipment(options, script, shoe, shuffler, pool, self._pause, self._stop)
        self.equipment.on_lost = self.watch.nudge
        self.rounds = RoundDealing(options, script, self.watch, self.equipment, stop=self._stop,
                                   post_burst=self._post_burst,
                                   opening=lambda: [*self._confirmation(), DealerAction("next_round"),
                                                    *self._bets_for_round()])
        if start_afresh is not None:
            self.rounds.start_afresh = start_afresh
        if gate is not None:
            self.rounds.gate = gate
        if cautious is not None:
            self.rounds.cautious = cautious
        self.error: str | None = None
        self.stopped = threading.Event()
        #: At a table that reads its chips, the dealer bets, pays and clears with chips (None: keys bets).
        self.hands = (ChipHands(chip_layout, script.chips, self._stop, patience_s=script.patience_s,
                                gives_up=script.gives_up)
                      if chip_layout is not None and script.chips is not None else None)
        self._to_pay: out.RoundSettled | None = None
        self._to_clear = False
        self._resumed: tuple[dict[str, int], bool] | None = None  # owed, and a Tie's bets left on

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self, state: str, expectation: str, remaining: ShoeComposition | None = None,
              cut_card_out: bool = False) -> None:
        """Start dealing from where the station stands. After a restart in the middle of a
        shoe, ``remaining`` (the cards the station knows are still in the shoe) refills the
        simulated shoe: a real shoe keeps its cards when the PC restarts; a simulated one
        has to be given them back. Called after :meth:`resume_round` (which says how many
        shoes the table has had)."""
        self.watch.start_from(state, expectation)
        if state == st.CUTTING:
            # The station's count of the new shoe starts at the cut: ``remaining`` is still the
            # last shoe's. The shoe shuffled before the restart goes back in instead.
            self.equipment.reload_for_the_cut(self.equipment.shoes_loaded)
        elif remaining is not None and len(remaining) and state != st.SHUFFLING:
            self.equipment.refill(remaining, cut_card_out)
        self._thread.start()

    def resume_round(self, dealt: list[Card], last_outcome: str, shoes_dealt: int = 0) -> None:
        """Where the station left the round after a restart: the cards it has already dealt
        in it (the dealer deals the rest, by the rules, rather than the round again), how
        the last round ended (after a Tie the Banker and Player bets are still on the layout)
        and how many shoes the table has had (the next one is a new shoe, never a repeat)."""
        self.rounds.round_cards = list(dealt)
        self.watch.last_outcome = last_outcome
        self.equipment.shoes_loaded = max(self.equipment.shoes_loaded, shoes_dealt)

    def resume_payouts(self, required: bool, due: str) -> None:
        """After a restart: whether the table wants payouts confirmed, and the round whose
        payouts still wait for it (the station told the dealer before it stopped, and does not
        tell again), so the dealer confirms them before it asks for the next round."""
        self.watch.confirming = required
        if due:
            self.watch.payouts_due = self.watch.paid_round = due

    def resume_chips(self, on: Sequence[tuple[str, tuple[str, ...]]], owed: Sequence[tuple[str, int]] | None,
                     last_outcome: str, state: str) -> None:
        """After a restart at a chip table: the chips the journal read go back on the simulated
        layout, and a settled round not yet cleared is paid (what is not paid yet) and cleared."""
        if self.hands is None:
            return
        self.hands.restore(on)
        if owed is not None or state == st.PAYING:  # settled (or voided: every bet goes back) and not cleared
            self._resumed = (dict(owed or ()), owed is not None and last_outcome == "tie")
            self._to_clear = True

    def hand_back(self, cards: list[Card]) -> None:
        """Cards already out of a continuous shuffler when the dealer takes over (a restart):
        they go back with the next return."""
        self.equipment.hand_back(cards)

    def stop(self) -> None:
        self._stop.set()
        self.watch.close()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(5)

    def on_output(self, output: out.Output) -> None:
        """An output the dealer acts on (a settlement, a void, a war decision, an irregularity;
        at a chip table, what the station reads of the chips)."""
        if self.hands is not None:
            if isinstance(output, CHIP_OUTPUTS):
                self.hands.heard(output)
                return
            if isinstance(output, out.RoundSettled):
                self._to_pay, self._to_clear = output, True
            elif isinstance(output, out.RoundVoided):
                self._to_pay, self._to_clear = None, True
        self.watch.hear(output)

    def observed(self, state: str, expectation: str) -> None:
        """The station's state and expectation once an event is applied (from any thread).
        Read after the event, never between its outputs, so the dealer never acts on half of
        a change (a new state whose expectation has not arrived yet)."""
        self.watch.hear((state, expectation))

    # --- the dealer's loop ------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while self._act() and not self._stop.is_set():
                pass  # dealt ahead and the station caught up: act on where it stands now
            while not self._stop.is_set() and self.watch.wait_for_change(self._look_again()):
                while self._act() and not self._stop.is_set():
                    pass
        except DealerHalted:
            pass  # told to stop while it waited for the station to read its chips
        except DealerStopped as exc:
            self.error = str(exc)
            log.error("simulated_dealer_stopped", reason=self.error)
        except Exception as exc:  # report, do not die silently
            self.error = f"{type(exc).__name__}: {exc}"
            log.exception("simulated_dealer_failed")
        finally:
            self.stopped.set()

    def _pause(self) -> None:
        if self.script.pace_s:
            self._stop.wait(self.script.pace_s)

    def _look_again(self) -> float | None:
        """How long the next wait for a change may last before the dealer looks again (a
        station still showing a view one of the dealer's cards answers); None: as long as it takes."""
        after, self.rounds.look_again_s = self.rounds.look_again_s, None
        return after

    def _act(self) -> bool:
        """Do the one thing the station's state calls for. True when the station is already
        where the dealer must act again (after dealing ahead), so no change is to be waited for."""
        watch, rounds = self.watch, self.rounds
        if watch.nudged:
            rounds.shoe_lost_cards()
        if watch.person_needed or watch.stops != rounds.stops_seen:
            rounds.stopped_for_a_person()  # even one over before the dealer looked
        if watch.person_needed:
            if watch.gives_up and watch.state in (st.IRREGULARITY, st.PAYING):
                raise DealerStopped(f"the station is waiting for a supervisor: {watch.expectation}")
            return False  # until the station moves again
        self._pause()
        if self._stop.is_set():
            return False
        if self.script.pace_s:
            looked_at = watch.state
            if watch.catch_up() and watch.state != looked_at:
                return True  # the table moved on meanwhile (a person paused it, say): look again first
        state = watch.state
        if watch.person and state in PERSON_DECIDES:
            return False  # theirs to decide: the dealer waits for the table to move on
        if rounds.burst_pending:
            # A whole round was handed over at once: wait for it to come back to paying.
            # (Still paying the last round, its payouts just confirmed, is not back yet.)
            confirming = state == st.PAYING and rounds.confirmed_and_on_its_way()
            if state not in (st.BETTING, st.DEALING, st.REVEALING) and not confirming:
                rounds.burst_pending = False
            else:
                return False
        if state == st.SHUFFLING:
            if self.equipment.shuffle():
                self._action("shuffle_done")
        elif state == st.CUTTING:
            self.equipment.take_shuffled_set()
            self._action("confirm_cut")
        elif state in DEALING_STATES and rounds.lost_track:
            return rounds.deal_as_asked()
        elif state == st.DEALING and watch.expectation == BURN_WORDS:
            rounds.burn_for_new_dealer()
        elif state == st.DEALING and rounds.can_deal_ahead() and not watch.person:
            rounds.deal_rest_of_round()
        elif state in DEALING_STATES:
            rounds.draw(into_round=state == st.DEALING)
        elif (state == st.BETTING and rounds.lost_track and rounds.out_in_this_round()
              and not rounds.waited_long_enough((state, watch.expectation))):
            return False  # the station has moved on with the cards dealt for this round
        elif state == st.BETTING:
            self._bet_and_close()
        elif state == st.REVEALING:
            self._action("reveal")
        elif state == st.WAR_DECISION and watch.war_boxes and watch.war_answered != watch.stops:
            # Once per decision, and again after a stop: a decision made just before the table
            # stopped was refused, and the station asks for it again once it goes on.
            for box in watch.war_boxes:
                self._post(DealerAction("war", box=box))
            watch.war_answered = watch.stops
        elif state == st.PAYING:
            return self._after_the_round()
        return False

    def _after_the_round(self) -> bool:
        """Paying: clear the layout for the next round (at full speed, deal it too, and the
        ones after it while the station keeps up)."""
        rounds, watch, expectation = self.rounds, self.watch, self.watch.expectation
        if self.hands is not None and self._to_clear:
            self._pay_and_clear(self.hands)
        rounds.confirm_again()
        if rounds.confirmed_and_on_its_way() or (CONFIRM_WORDS in expectation and not watch.payouts_due):
            # Confirmed and "next round" sent: the station is on its way. Or the round's
            # settlement, or the payouts it says to confirm, are still on their way to the
            # dealer: a supervisor's decision that settled the round in one event shows
            # "paying" before them. They wake the dealer when they come.
            watch.wake_on_settlement = True
            return False
        if self.script.rounds and self.watch.rounds_settled >= self.script.rounds:
            return False  # the session is over: the station is stopping
        if self.equipment.remaining() == 0 and "shoe finished" not in expectation:
            return False  # the shoe's last card is out: the station hears it is empty, then ends the shoe
        if rounds.can_deal_ahead() and "shoe finished" not in expectation:
            rounds.whole_round(watch.rounds_closed)
            if rounds.may_run_ahead(in_flight=1):
                rounds.run_ahead()
                return True
        elif self.watch.payouts_due:
            # Confirmed on the screen, and "next round" after it there too, in that order.
            self._post_burst([*self._confirmation(), DealerAction("next_round")])
        else:
            self._action("next_round")
        return False

    # --- dealer actions ----------------------------------------------------------------------

    def _action(self, action: str, by_screen: bool = False) -> None:
        """A pedal when one is mapped to the action, otherwise the dealer's screen. The screen
        also ``by_screen``, and whenever the dealer has lost track of the round: its actions say
        how many of the shoe's reports they follow, so the station does not hold them (nor
        anything after them) for reports the shoe dropped, as it would a pedal's press."""
        if not (by_screen or self.rounds.lost_track):
            for button, mapped in self.options.buttons.items():
                if mapped == action and self._press(button):
                    return
        self._post(DealerAction(action))

    def _post_burst(self, events: Sequence[Event]) -> None:
        """Several screen actions made in one go (one message to the station when the screen
        can carry them together)."""
        if self._burst_sink is not None:
            self._burst_sink(events)
        else:
            for event in events:
                self._post(event)

    def _confirmation(self) -> list[Event]:
        """The payouts of the round being paid, confirmed (when the table waits for that); the
        dealer notes that "next round" goes after it."""
        round_id, self.watch.payouts_due = self.watch.payouts_due, ""
        if not round_id:
            return []
        self.rounds.next_for, self.rounds.next_for_at = self.watch.paid_round, (self.watch.stops, self.watch.times_paid)
        return [PayoutsConfirmed(round_id, (), SIMULATED_DEALER)]

    def _bet_and_close(self) -> None:
        """Place the script's bets, then call no more bets (a pedal when one is mapped)."""
        by_screen = self.rounds.lost_track
        bets = self._bets_for_round()
        for bet in bets[:-1]:
            self._post(bet)
        self._action("no_more_bets", by_screen)

    def _pay_and_clear(self, hands: ChipHands) -> None:
        """At a chip table: the winners paid in their payout zones, then the layout cleared (a
        Tie's Banker and Player bets stay on for the next round, 5.16)."""
        settled, resumed = self._to_pay, self._resumed
        self._to_pay, self._resumed, self._to_clear = None, None, False
        carry = self.options.rules.carry_regions
        keep: set[str] = set()
        if settled is not None:
            owed: dict[str, int] = {}
            for bet in settled.bets:
                owed[bet.box] = owed.get(bet.box, 0) + (bet.net if bet.outcome == "win" else 0)
            hands.pay(owed)
            keep = {f"spot:{b.box}:{b.region}" for b in settled.bets if b.outcome == "push" and b.region in carry}
        elif resumed is not None:
            hands.pay(resumed[0])
            keep = hands.spots_of(carry) if resumed[1] else set()
        hands.clear(keep)

    def _bets_for_round(self) -> list[Event]:
        """The script's bets for the next round, then no more bets on the dealer's screen.

        After a Tie the Banker and Player bets stay on the layout for the next round (5.16),
        so only the regions that were cleared are bet again."""
        self.equipment.collect()
        self.rounds.new_round()
        carried = self.options.rules.carry_regions if self.watch.last_outcome == "tie" else ()
        if self.hands is not None:
            # The chips are the bets: put down, read by the station, and (by tap) confirmed.
            self.hands.bet(self.script.box, self.script.bets)
            tap: list[Event] = [ChipBetsConfirmed(SIMULATED_DEALER)] if self.hands.confirm_by_tap else []
            return [*tap, DealerAction("no_more_bets")]
        events: list[Event] = [BetPlaced(self.script.box, self.script.player, region, amount)
                               for region, amount in self.script.bets.items() if region not in carried]
        return [*events, DealerAction("no_more_bets")]
