"""A simulated dealer who plays the simulated devices, so a station can run with no one at it.

It behaves as a dealer does, through the same paths a dealer uses: it slides cards out of
the simulated shoe (the card goes over the wire to the shoe driver, exactly like a real
shoe's), presses the simulated USB pedals (through the real pyusb code path) for the actions
mapped to pedals, and uses the dealer's screen (a ``DealerAction`` event) for the rest. It
decides what to do from what the station says it expects next, and does one thing per
change of state or expectation; it never reads or writes the state machine itself.

A simulated dealer never decides an irregularity: that is a supervisor's job. It stops and
reports instead, which is what ``station demo`` turns into an error.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import structlog

from drivers.simulators import CUT_CARD, shuffled_shoe
from drivers.simulators.pool import CardPool, ShoeItem
from station.cards import Card, ShoeComposition
from station.core import outputs as out
from station.core import states as st
from station.core.options import CoreOptions
from station.events import BetPlaced, DealerAction, Event
from station.games.interface import Play

log = structlog.get_logger(__name__)

#: Cards left behind the cut card in a dealt shoe (casinos place it 14-16 from the back).
CUT_FROM_BACK = 15


class SimulatedShoe(Protocol):
    """What the dealer does with the simulated shoe (:class:`drivers.simulators.shoe.ShoeSimulator`)."""

    def load(self, items: Iterable[ShoeItem]) -> None: ...
    def attach_pool(self, pool: CardPool) -> None: ...
    def remaining(self) -> int: ...
    def draw(self) -> ShoeItem: ...


class SimulatedShuffler(Protocol):
    """What the dealer does with the simulated shuffler
    (:class:`drivers.simulators.shuffler.ShufflerSimulator`)."""

    def held_cards(self) -> list[Card]: ...
    def load_set(self, cards: Iterable[Card] | None = None, colour: str | None = None) -> None: ...
    def start_shuffle(self) -> object: ...
    def wait_shuffled(self, timeout: float = 10.0) -> bool: ...
    def take_set(self) -> list[Card]: ...
    def return_cards(self, cards: Iterable[Card]) -> None: ...


@dataclass
class DealerScript:
    """What the simulated dealer deals and bets."""

    decks: int = 8
    seed: int = 1
    pace_s: float = 1.5
    stacked_shoe: Sequence[ShoeItem] | None = None
    bets: Mapping[str, int] = field(default_factory=dict)
    box: str = "1"
    player: str = "P1"
    rounds: int = 0
    """The session ends after this many rounds (0: no limit): a dealer who knows it never
    starts a round beyond it, even when dealing ahead."""

    def shoe(self, number: int) -> list[ShoeItem]:
        if self.stacked_shoe is not None:
            return list(self.stacked_shoe)
        size = 52 * self.decks
        return shuffled_shoe(self.decks, self.seed * 1000 + number, size - CUT_FROM_BACK)


class DealerStopped(RuntimeError):
    """The simulated dealer cannot go on (an irregularity, an empty shoe, a stall)."""


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
        stall_s: float = 15.0,
        post_burst: Callable[[Sequence[Event]], None] | None = None,
    ) -> None:
        self._post = post
        self._burst_sink = post_burst
        self.options = options
        self.script = script
        self.shoe = shoe
        self.shuffler = shuffler
        self.pool = pool
        self._press = press
        self.stall_s = stall_s
        self._outputs: queue.Queue[out.Output | tuple[str, str] | None] = queue.Queue()  # see station.core.queues
        self._thread = threading.Thread(target=self._run, name="sim-dealer", daemon=True)
        self._stop = threading.Event()
        self.state = ""
        self.expectation = ""
        self.shoes_loaded = 0
        self._last_outcome = ""
        self._drawn: list[Card] = []  # cards out of the shoe, not yet back in a shuffler
        self._round_cards: list[Card] = []  # cards dealt to the hands in the round in play
        self._burst_pending = False  # a whole round was handed to the station at once
        self._rounds_closed = 0  # RoundSettled and RoundVoided seen from the station
        self._rounds_settled = 0  # RoundSettled alone: what a session's round limit counts
        self._play: Play | None = None  # the round last dealt in one go
        self._cut_card_out = False  # in the shoe being dealt
        self._war_boxes: tuple[str, ...] = ()
        self._set_shuffled = False  # batch: a set shuffled and waiting for the station to take it
        self.error: str | None = None
        self.stopped = threading.Event()

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self, state: str, expectation: str, remaining: ShoeComposition | None = None,
              cut_card_out: bool = False) -> None:
        """Start dealing from where the station stands. After a restart in the middle of a
        shoe, ``remaining`` (the cards the station knows are still in the shoe) refills the
        simulated shoe: a real shoe keeps its cards when the PC restarts; a simulated one
        has to be given them back."""
        self.state, self.expectation = state, expectation
        if remaining is not None and len(remaining) and state not in (st.SHUFFLING, st.CUTTING):
            self._refill(remaining, cut_card_out)
        self._thread.start()

    def resume_round(self, dealt: list[Card], last_outcome: str, shoes_dealt: int = 0) -> None:
        """Where the station left the round after a restart: the cards it has already dealt
        in it (the dealer deals the rest, by the rules, rather than the round again), how
        the last round ended (after a Tie the Banker and Player bets are still on the layout)
        and how many shoes the table has had (the next one is a new shoe, never a repeat)."""
        self._round_cards = list(dealt)
        self._last_outcome = last_outcome
        self.shoes_loaded = max(self.shoes_loaded, shoes_dealt)

    def hand_back(self, cards: list[Card]) -> None:
        """Cards already out of a continuous shuffler when the dealer takes over (a restart):
        they go back with the next return."""
        self._drawn = list(cards)
        self.shoes_loaded = max(self.shoes_loaded, 1)

    def _refill(self, remaining: ShoeComposition, cut_card_out: bool) -> None:
        cards: list[ShoeItem] = [card for card, count in remaining for _ in range(count)]
        random.Random(self.script.seed * 7919 + len(cards)).shuffle(cards)
        if not cut_card_out:
            cards.insert(max(0, len(cards) - CUT_FROM_BACK), CUT_CARD)
        self.shoes_loaded = max(self.shoes_loaded, 1)
        self._cut_card_out = cut_card_out
        self.shoe.load(cards)
        log.info("simulated_shoe_refilled", cards=len(remaining), cut_card_out=cut_card_out)

    def stop(self) -> None:
        self._stop.set()
        self._outputs.put(None)
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(5)

    def on_output(self, output: out.Output) -> None:
        """An output the dealer acts on (a settlement, a void, a war decision, an irregularity)."""
        self._outputs.put(output)

    def observed(self, state: str, expectation: str) -> None:
        """The station's state and expectation once an event is applied (from any thread).
        Read after the event, never between its outputs, so the dealer never acts on half of
        a change (a new state whose expectation has not arrived yet)."""
        self._outputs.put((state, expectation))

    # --- the dealer's loop ------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while self._act() and not self._stop.is_set():
                pass  # dealt ahead and the station caught up: act on where it stands now
            while not self._stop.is_set():
                changed = self._wait_for_change()
                if self._stop.is_set():
                    return
                if not changed:
                    raise DealerStopped(
                        f"the station has not moved for {self.stall_s:.0f} s (state {self.state!r}, "
                        f"expecting {self.expectation!r})"
                    )
                while self._act() and not self._stop.is_set():
                    pass
        except DealerStopped as exc:
            self.error = str(exc)
            log.error("simulated_dealer_stopped", reason=self.error)
        except Exception as exc:  # report, do not die silently
            self.error = f"{type(exc).__name__}: {exc}"
            log.exception("simulated_dealer_failed")
        finally:
            self.stopped.set()

    def _wait_for_change(self) -> bool:
        """Take outputs until the state or the expectation changes (or time runs out)."""
        deadline = time.monotonic() + self.stall_s
        changed = False
        while True:
            timeout = deadline - time.monotonic()
            try:
                item = self._outputs.get(timeout=max(0.0, timeout)) if not changed else self._outputs.get_nowait()
            except queue.Empty:
                return changed
            if item is None:
                return changed
            changed = self._take(item) or changed

    def _take(self, item: out.Output | tuple[str, str]) -> bool:
        """Note one thing the station said; True when its state or expectation changed."""
        if isinstance(item, tuple):
            changed = item != (self.state, self.expectation)
            self.state, self.expectation = item
            return changed
        if isinstance(item, out.RoundSettled):
            self._last_outcome = item.outcome
            self._rounds_closed += 1
            self._rounds_settled += 1
        elif isinstance(item, out.RoundVoided):
            self._last_outcome = "void"
            self._rounds_closed += 1
        elif isinstance(item, out.WarDecisionNeeded):
            self._war_boxes = item.boxes
        elif isinstance(item, out.IrregularityRaised):
            raise DealerStopped(f"irregularity: {item.detail} (a supervisor must decide: {', '.join(item.decisions)})")
        return False

    def _wait_for_rounds_closed(self, count: int) -> None:
        """Take outputs until the station has closed ``count`` rounds in all; then take what
        else is already there, so the state noted is the station's latest."""
        deadline = time.monotonic() + self.stall_s
        while self._rounds_closed < count:
            if self._stop.is_set():
                return
            try:
                item = self._outputs.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise DealerStopped(
                    f"the station has not settled the rounds dealt ahead for {self.stall_s:.0f} s "
                    f"(state {self.state!r}, expecting {self.expectation!r})"
                ) from None
            if item is None:
                return
            self._take(item)
        while True:
            try:
                item = self._outputs.get_nowait()
            except queue.Empty:
                return
            if item is None:
                return
            self._take(item)

    def _pause(self) -> None:
        if self.script.pace_s:
            self._stop.wait(self.script.pace_s)

    def _act(self) -> bool:
        """Do the one thing the station's state calls for. True when the station is already
        where the dealer must act again (after dealing ahead), so no change is to be waited for."""
        state = self.state
        if state == st.IRREGULARITY:
            raise DealerStopped(f"the station is waiting for a supervisor: {self.expectation}")
        if state == st.PAUSED:
            return False
        self._pause()
        if self._stop.is_set():
            return False
        if self._burst_pending:
            # A whole round was handed over at once: wait for it to come back to paying.
            if state not in (st.BETTING, st.DEALING, st.REVEALING):
                self._burst_pending = False
            else:
                return False
        if state == st.SHUFFLING:
            self._shuffle()
        elif state == st.CUTTING:
            if self._set_shuffled:
                self._fill_shoe_from_shuffler()
            self._action("confirm_cut")
        elif state == st.DEALING and self._can_deal_ahead():
            self._deal_rest_of_round()
        elif state in (st.BURNING, st.DEALING, st.WAR_BURNING, st.WAR_DEALING):
            self._draw()
        elif state == st.BETTING:
            self._bet_and_close()
        elif state == st.REVEALING:
            self._action("reveal")
        elif state == st.WAR_DECISION:
            for box in self._war_boxes:
                self._post(DealerAction("war", box=box))
            self._war_boxes = ()
        elif state == st.PAYING:
            if self.script.rounds and self._rounds_settled >= self.script.rounds:
                return False  # the session is over: the station is stopping
            if self.shoe.remaining() == 0 and "shoe finished" not in self.expectation:
                return False  # the shoe's last card is out: the station hears it is empty, then ends the shoe
            if self._can_deal_ahead() and "shoe finished" not in self.expectation:
                self._whole_round()
                if self._may_run_ahead(in_flight=1):
                    self._run_ahead()
                    return True
            else:
                self._action("next_round")
        return False

    # --- dealer actions ----------------------------------------------------------------------

    def _action(self, action: str) -> None:
        """A pedal when one is mapped to the action, otherwise the dealer's screen."""
        for button, mapped in self.options.buttons.items():
            if mapped == action and self._press(button):
                return
        self._post(DealerAction(action))

    def _shuffle(self) -> None:
        equipment = self.options.equipment
        if equipment == "manual":
            self.shoes_loaded += 1
            self.shoe.load(self.script.shoe(self.shoes_loaded))
            self._cut_card_out = False
            self._drawn = []
            self._action("shuffle_done")
        elif equipment == "batch":
            self._batch_shuffle()
        else:
            self._continuous_ready()

    def _batch_shuffle(self) -> None:
        """Shuffle the next set in the shuffler. The shuffler's DONE tells the station, which has
        the set counted (its deck check) and only then calls for the cut: the dealer takes the
        set out of the shuffler when the station says so (:meth:`_fill_shoe_from_shuffler`)."""
        if self._set_shuffled:
            return  # shuffled: the station is checking it
        shuffler = self.shuffler
        assert shuffler is not None, "a batch shuffler table needs a simulated shuffler"
        self.shoes_loaded += 1
        if not shuffler.held_cards():
            colour = self.options.set_colours[(self.shoes_loaded - 1) % 2]
            order = [c for c in self.script.shoe(self.shoes_loaded) if isinstance(c, Card)]
            shuffler.load_set(order, colour=colour)
        shuffler.start_shuffle()
        if not shuffler.wait_shuffled(timeout=30):
            raise DealerStopped("the simulated shuffler did not finish its shuffle")
        self._set_shuffled = True

    def _fill_shoe_from_shuffler(self) -> None:
        """The station took the shuffled set: it goes from the shuffler into the shoe with the cut card."""
        assert self.shuffler is not None
        cards: list[ShoeItem] = list(self.shuffler.take_set())
        cards.insert(max(0, len(cards) - CUT_FROM_BACK), CUT_CARD)
        self._set_shuffled = False
        self._cut_card_out = False
        self.shoe.load(cards)

    def _continuous_ready(self) -> None:
        shuffler = self.shuffler
        assert shuffler is not None and self.pool is not None, "a continuous shuffler needs a simulated shuffler"
        if self.shoes_loaded == 0:
            self.shoes_loaded = 1
            self.shoe.attach_pool(self.pool)
        # Dropping nothing in makes the shuffler report its state (READY), which is what
        # the station waits for before the first round.
        shuffler.return_cards([])

    def _return_cards(self) -> None:
        """Continuous shuffler: the round's cards, collected from the layout, go back in."""
        assert self.shuffler is not None, "a continuous shuffler needs a simulated shuffler"
        cards, self._drawn = self._drawn, []
        self.shuffler.return_cards(cards)

    def _draw(self) -> Card:
        """Slide one card out; the cut card, if it comes first, is set aside and the next
        card drawn, as a dealer does."""
        try:
            item = self.shoe.draw()
            if item is CUT_CARD:
                self._cut_card_out = True
                self._pause()
                item = self.shoe.draw()
        except Exception as exc:
            raise DealerStopped(f"cannot draw a card: {exc}") from None
        assert isinstance(item, Card)
        self._drawn.append(item)
        if self.state == st.DEALING or self._burst_pending:
            self._round_cards.append(item)
        return item

    def _can_deal_ahead(self) -> bool:
        """At full speed a dealer who knows the third-card rules deals the whole round without
        looking up between cards (styles A and C, where nothing is squeezed in between). The
        station still checks every card against the rules and stops the round on a wrong one."""
        return self.script.pace_s == 0 and not self.options.rules.choices and self.options.dealing_style in ("A", "C")

    def _deal_rest_of_round(self) -> None:
        """Deal the round's cards by the game's rules, after those already out in it."""
        play = self.options.rules.open_round()
        for card in self._round_cards:  # cards already out in this round go where the rules sent them
            if not play.step().wants_card:
                break
            play = play.place(card).play
        while play.step().wants_card:
            play = play.place(self._draw()).play
        self._play = play

    # --- dealing ahead ----------------------------------------------------------------------

    #: Cards a round can take at most: below this many left in the shoe, the dealer watches.
    ROUND_CARDS = 6
    #: Rounds dealt and not yet settled by the station, at most, when the dealer starts another.
    #: The station settles a round some milliseconds after its last card (a journal commit
    #: later, and the news takes the pipe back to the dealer), and while the cards stream in
    #: it runs two or three rounds behind them; with fewer rounds in hand the shoe idled
    #: every few rounds waiting for a settlement (measured: with three, a 4-9 ms wait every
    #: third round; with six, none).
    MAX_UNSETTLED = 6

    def _may_run_ahead(self, in_flight: int) -> bool:
        """Whether to deal the next round before the station has settled the one in flight.

        Only at full speed in a shoe of styles A and C (what :meth:`_can_deal_ahead` allows),
        never once the cut card is out (the end of the shoe is the station's call, so the
        dealer watches the screen again), never near the bottom of the shoe, and never past
        the session's round limit."""
        if not self._can_deal_ahead() or self.options.equipment == "continuous" or self._cut_card_out:
            return False
        if self.script.rounds and self._rounds_settled + in_flight + 1 > self.script.rounds:
            return False
        return self.shoe.remaining() >= 2 * self.ROUND_CARDS

    def _run_ahead(self) -> None:
        """Full speed: deal round after round, a little ahead of the station.

        A dealer who trusts the table deals the next round while the station is still
        settling the last one. The next round's actions reach the station after the last
        round's cards, and its cards after those actions, because the simulated table keeps
        the dealer's screen and the shoe in order (:mod:`station.sim.table`). The dealer reads the
        result off its own cards (it needs it for the bets a Tie leaves on the layout) and
        never starts a round while the station has ``MAX_UNSETTLED`` rounds unsettled. Any
        irregularity the station raises stops the dealer as at human pace. When dealing
        ahead ends (the cut card came out, say), the dealer waits until the station has
        settled every round dealt and carries on from where the station stands."""
        closed_at_start = self._rounds_closed
        dealt = 1  # the round :meth:`_whole_round` just dealt
        while not self._stop.is_set():
            # The station may lag behind, but not by more than MAX_UNSETTLED rounds.
            self._wait_for_rounds_closed(closed_at_start + dealt - self.MAX_UNSETTLED + 1)
            unsettled = closed_at_start + dealt - self._rounds_closed
            if not self._may_run_ahead(in_flight=unsettled):
                break
            self._last_outcome = self._own_outcome()
            log.info("dealt_ahead", unsettled=unsettled, last_outcome=self._last_outcome)
            self._whole_round()
            dealt += 1
        self._wait_for_rounds_closed(closed_at_start + dealt)
        self._burst_pending = False

    def _own_outcome(self) -> str:
        """The result of the round just dealt, as the dealer reads it off the cards."""
        assert self._play is not None, "a round was dealt"
        return self._play.result().outcome

    def _whole_round(self) -> None:
        """Full speed: clear the layout, take the next round's bets, close them and deal the
        round, all in one go, as a dealer does who does not look up at the screen between
        steps. The actions go through the dealer's screen rather than the pedals so that they
        reach the station's queue in the order they were made (a pedal press travels through
        its own USB thread); the cards follow over the shoe's serial line. The station journals
        and checks every one of them exactly as at human pace, and stops the round on any card
        the rules did not call for."""
        self._post_burst([DealerAction("next_round"), *self._bets_for_round()])
        self._burst_pending = True
        self._deal_rest_of_round()

    def _post_burst(self, events: Sequence[Event]) -> None:
        """Several screen actions made in one go (one message to the station when the screen
        can carry them together)."""
        if self._burst_sink is not None:
            self._burst_sink(events)
        else:
            for event in events:
                self._post(event)

    def _bet_and_close(self) -> None:
        """Place the script's bets, then call no more bets (a pedal when one is mapped)."""
        bets = self._bets_for_round()
        for bet in bets[:-1]:
            self._post(bet)
        self._action("no_more_bets")

    def _bets_for_round(self) -> list[Event]:
        """The script's bets for the next round, then no more bets on the dealer's screen.

        After a Tie the Banker and Player bets stay on the layout for the next round (5.16),
        so only the regions that were cleared are bet again."""
        if self.options.equipment == "continuous" and self._drawn:
            # The last round's cards were cleared at "next round": they go back now, before
            # this round's first card leaves the shoe.
            self._return_cards()
        self._round_cards = []
        carried = self.options.rules.carry_regions if self._last_outcome == "tie" else ()
        events: list[Event] = [BetPlaced(self.script.box, self.script.player, region, amount)
                               for region, amount in self.script.bets.items() if region not in carried]
        return [*events, DealerAction("no_more_bets")]
