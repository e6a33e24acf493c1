"""The rounds as the simulated dealer deals them: the cards out in the round in play, the rest
of a round dealt by the game's rules, at full speed whole rounds dealt a little ahead of the
station, and after a stop the round dealt card by card as the station asks.

Every card the dealer slides out is noted with the view it answers: the station's state and
expectation until it takes that card (the one on the screen for a card dealt on sight; for a
card dealt ahead, the one the game's rules say the station will show before it). Each card
the station takes changes that view (the next position, the next burn, or the round's end),
so while the station still shows the view one of the dealer's cards answers, that card has
not reached it yet, and drawing another would give it a card too many.

After the table has stopped for a person (an irregularity, a pause) or the shoe has lost
cards, the dealer no longer goes by its own count: it takes back the cards whose reports have
not gone out (they would meet a stopped round), and from then on, until it opens the next
round itself, draws one card at a time and only when the station asks for one once everything
the shoe reported has been delivered and the station's view is no longer one an earlier card
answers. A station that shows such a view for longer than the dealer's patience allows for
(a supervisor burned the card, say) is taken at its word.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

import structlog

from drivers.simulators.pool import ShoeItem
from station.cards import Card
from station.core import states as st
from station.core.dealer_steps import BURN_WORDS
from station.core.options import CoreOptions
from station.events import DealerAction, Event
from station.games.interface import Play
from station.sim.equipment import DealerEquipment
from station.sim.script import DealerScript
from station.sim.watch import StationWatch

log = structlog.get_logger(__name__)

View = tuple[str, str]  # (state, expectation), as the dealer sees the station
#: What the station's "paying" expectation says while payouts wait for the dealer's confirmation.
CONFIRM_WORDS = "confirm the payouts"
#: How often the dealer looks at the station while the shoe still has reports to deliver.
DELIVERY_SLICE_S = 0.05
#: A station that still shows the view one of the dealer's cards answers, this many patiences
#: after the shoe delivered it, is taken at its word (the card went elsewhere: burned by a
#: supervisor, say). Never less than ``MIN_TRUST_S``: the station takes a card in milliseconds.
TRUST_PATIENCES = 2
MIN_TRUST_S = 2.0


def answers(view: View, answered: View) -> bool:
    """Whether the station's ``view`` is the one a card was dealt to answer (words a pending
    pause or a holder adds after the position leave it the same position)."""
    return view[0] == answered[0] and (view[1] == answered[1] or view[1].startswith(answered[1] + " "))


class RoundDealing:
    """Deals the cards of a round: one at a time when the dealer watches the screen, or the
    whole round (and the next ones) in one go at full speed."""

    #: Cards a round can take at most: below this many left in the shoe, the dealer watches.
    ROUND_CARDS = 6
    #: Rounds dealt and not yet settled by the station, at most, when the dealer starts another.
    #: The station settles a round some milliseconds after its last card (a journal commit
    #: later, and the news takes the pipe back to the dealer), and while the cards stream in
    #: it runs two or three rounds behind them; with fewer rounds in hand the shoe idled
    #: every few rounds waiting for a settlement (measured: with three, a 4-9 ms wait every
    #: third round; with six, none).
    MAX_UNSETTLED = 6

    def __init__(self, options: CoreOptions, script: DealerScript, watch: StationWatch, equipment: DealerEquipment,
                 *, opening: Callable[[], Sequence[Event]], post_burst: Callable[[Sequence[Event]], None],
                 stop: threading.Event) -> None:
        self.options = options
        self.script = script
        self.watch = watch
        self.equipment = equipment
        self._opening = opening  # the next round's screen actions: next round, bets, no more bets
        self._post_burst = post_burst
        self._stop = stop
        self.round_cards: list[Card] = []  # cards dealt to the hands in the round in play
        self.burst_pending = False  # a whole round was handed to the station at once
        self.lost_track = False  # since a stop or a loss: the round's cards are the station's to say
        self._play: Play | None = None  # the round last dealt in one go
        self.next_for = ""  # the round after which "next round" went with its payouts' confirmation
        self.next_for_at = (0, 0)  # the watch's (stops, times_paid) when they went
        #: Each card out and not known to be taken: (the rounds the station has closed while it
        #: plays that card's round, the card, the view it answers). See the module's docstring.
        self._answering: list[tuple[int, ShoeItem, View]] = []
        self.stops_seen = 0  # the watch's stops the dealer has acted on
        self.look_again_s: float | None = None  # a wait for change that must end by then, to look again
        self._stale: tuple[View, float] | None = None  # the view waited on, and since when
        #: Told when cards were taken back or lost: nothing drawn from now on waits behind the
        #: screen actions made before (see ``DealerScreen.start_afresh``).
        self.start_afresh: Callable[[], None] = lambda: None
        #: Holds the shoe's events numbered above its argument (None: none); see :meth:`_gate_rounds_ahead`.
        self.gate: Callable[[int | None], None] = lambda number: None
        #: Whether the table is being hurt now (the fault door did something lately): only then
        #: are the cards of a round dealt ahead held back (:meth:`_gate_rounds_ahead`). Without
        #: the door's say, always.
        self.cautious: Callable[[], bool] = lambda: True
        self._gates: deque[tuple[int, int]] = deque()  # (rounds closed before it goes, last event before it)
        watch.on_closed = self._gate_rounds_ahead

    def new_round(self) -> None:
        """The layout is cleared: no card is out in the round about to open."""
        self.round_cards = []
        self.lost_track = False

    def stopped_for_a_person(self) -> None:
        """The station stopped the round for a supervisor, who may burn a card, void the round
        or let it go on (or paused the table): until the next round the dealer deals card by
        card, as the station asks, instead of by its own count of the round's cards. The cards
        it slid out ahead whose reports have not gone out go back in the shoe: the station
        would hear them after the stop, in a round stopped or voided, or one it never opens."""
        self.stops_seen = self.watch.stops
        self.lost_track = True
        self.burst_pending = False
        taken = self.equipment.take_back()
        self._gates.clear()
        if taken:
            log.info("simulated_dealer_took_back_cards", cards=" ".join(str(item) for item in taken))
            self._forget(taken)
        else:
            self.gate(None)

    def shoe_lost_cards(self) -> None:
        """The shoe restarted and lost the reports of cards the dealer slid out: they go back
        in the shoe, and the dealer goes on by the station's word, not its own count (the
        station waits for cards it never heard of; rounds dealt ahead never reach it)."""
        self.watch.nudged = False
        lost = self.equipment.lost_cards()
        if lost is not None:
            self.lost_track = True
            self.burst_pending = False
            self._gates.clear()
            self._forget(lost)
            self._replan()

    def _forget(self, items: list[ShoeItem]) -> None:
        """Cards that never reached the station: out of the round and of the cards answering."""
        for item in reversed(items):
            if item in self.round_cards:
                del self.round_cards[len(self.round_cards) - 1 - self.round_cards[::-1].index(item)]
            for at in range(len(self._answering) - 1, -1, -1):
                if self._answering[at][1] == item:
                    del self._answering[at]
                    break
        self.start_afresh()

    def _replan(self) -> None:
        """The shoe lost cards from the middle of what the dealer slid out (the cards it drew
        after the restart still go): the cards of each round dealt by the rules now reach the
        station in other places, so the views they answer are worked out again."""
        if self.options.rules.choices:
            return  # dealt card by card: each answers the view it was drawn on
        for tag in sorted({entry[0] for entry in self._answering}):
            play, replanned = self.options.rules.open_round(), []
            for at, (closed, item, view) in enumerate(self._answering):
                if closed != tag or view[0] != st.DEALING or view[1] == BURN_WORDS:
                    continue
                if not isinstance(item, Card) or not play.step().wants_card:
                    break
                replanned.append((at, (closed, item, (st.DEALING, play.instruction()))))
                play = play.place(item).play
            for at, entry in replanned:
                self._answering[at] = entry

    def out_in_this_round(self) -> bool:
        """Cards the dealer slid out for the round the station plays now (dealt ahead with its
        opening), not known to be taken: a "place your bets" view is one the station has left,
        or is about to leave, for those cards."""
        return any(entry[0] == self.watch.rounds_closed for entry in self._answering)

    def draw(self, into_round: bool, answers_view: View | None = None, closed: int | None = None) -> Card:
        """One card out of the shoe; ``into_round`` when it goes to the round's hands (not a
        burn). It answers ``answers_view`` (default: the station's view now) in the round the
        station plays after closing ``closed`` rounds (default: the one it plays now)."""
        watch = self.watch
        card = self.equipment.draw()
        if into_round or self.burst_pending:
            self.round_cards.append(card)
        view = answers_view or (watch.state, watch.expectation)
        # Those of rounds the station has closed were all taken.
        self._answering = [entry for entry in self._answering if entry[0] >= watch.rounds_closed]
        self._answering.append((watch.rounds_closed if closed is None else closed, card, view))
        return card

    def deal_as_asked(self) -> bool:
        """Since a stop: one card, if the station still asks for one once everything the shoe
        reported has been delivered and taken in (see the module's docstring). True when the
        station moved on meanwhile, so the dealer looks again at once."""
        watch = self.watch
        view = (watch.state, watch.expectation)
        while not self.equipment.delivered(DELIVERY_SLICE_S):
            if self._stop.is_set():
                return False
            if watch.catch_up() or watch.person_needed:
                return True
        if watch.catch_up():
            return True
        closed = watch.rounds_closed
        self._answering = [entry for entry in self._answering if entry[0] >= closed]
        if any(entry[0] == closed and answers(view, entry[2]) for entry in self._answering):
            if not self.waited_long_enough(view):
                return False
            log.info("simulated_dealer_follows_the_station", state=view[0], expecting=view[1])
        self._stale = None
        self._answering = [entry for entry in self._answering if entry[0] > closed]  # all taken
        self.draw(into_round=view[0] == st.DEALING and view[1] != BURN_WORDS)
        if view[1] == BURN_WORDS:
            watch.burn_due = False
        return False

    def waited_long_enough(self, view: View) -> bool:
        """The station still shows a view one of the dealer's cards answers: wait for it to take
        that card (ask to look again after a while); True once it has shown it so long that it
        must be taken at its word."""
        now = time.monotonic()
        if self._stale is None or self._stale[0] != view:
            self._stale = (view, now)
        trust_s = max(MIN_TRUST_S, TRUST_PATIENCES * self.watch.patience_s)
        left = self._stale[1] + trust_s - now
        if left <= 0:
            return True
        self.look_again_s = left
        return False

    def can_deal_ahead(self) -> bool:
        """At full speed a dealer who knows the third-card rules deals the whole round without
        looking up between cards (styles A and C, where nothing is squeezed in between). The
        station still checks every card against the rules and stops the round on a wrong one."""
        return (self.script.pace_s == 0 and not self.options.rules.choices and self.options.dealing_style in ("A", "C")
                and not self.lost_track and self.script.chips is None)

    def burn_for_new_dealer(self, closed: int | None = None) -> None:
        """The card a dealer who took over burns before their first card (docs/dealers.md):
        out of the shoe, face down, to none of the round's hands."""
        self.draw(into_round=False, answers_view=(st.DEALING, BURN_WORDS), closed=closed)
        self.watch.burn_due = False

    def deal_rest_of_round(self, closed: int | None = None) -> None:
        """Deal the round's cards by the game's rules, after those already out in it (the burn
        card first, when a dealer who took over owes one). ``closed``: the rounds the station
        will have closed while it plays this one (default: those it has closed now)."""
        if self.watch.burn_due and not self.round_cards:
            self.burn_for_new_dealer(closed)
        play = self.options.rules.open_round()
        for card in self.round_cards:  # cards already out in this round go where the rules sent them
            if not play.step().wants_card:
                break
            play = play.place(card).play
        while play.step().wants_card:
            play = play.place(self.draw(True, (st.DEALING, play.instruction()), closed)).play
        self._play = play

    def confirmed_and_on_its_way(self) -> bool:
        """The last round's payouts are confirmed and "next round" sent after them: the
        station is on its way to the next round, though it still says it is paying."""
        watch = self.watch
        return bool(self.next_for) and self.next_for == watch.paid_round and self.next_for_at == (
            watch.stops, watch.times_paid)

    def confirm_again(self) -> None:
        """The dealer confirmed the payouts of the round being paid and sent "next round", and
        since then: the station stopped for a person, and still pays that round (both may have
        been refused: they go again, the confirmation if the station's screen still asks for it);
        or the station went on, and now pays another round (whose settlement and payouts to
        confirm come after the view that says so when a supervisor's decision settled it)."""
        watch = self.watch
        if not self.next_for or self.next_for_at == (watch.stops, watch.times_paid):
            return
        same_round = self.next_for == watch.paid_round and self.next_for_at[1] == watch.times_paid
        if same_round and CONFIRM_WORDS in watch.expectation and not watch.payouts_due:
            watch.payouts_due = self.next_for
        self.next_for = ""

    def whole_round(self, closed: int) -> None:
        """Full speed: confirm the last round's payouts (when the table asks for that), clear
        the layout, take the next round's bets, close them and deal the
        round, all in one go, as a dealer does who does not look up at the screen between
        steps. The actions go through the dealer's screen rather than the pedals so that they
        reach the station's queue in the order they were made (a pedal press travels through
        its own USB thread); the cards follow over the shoe's serial line. The station journals
        and checks every one of them exactly as at human pace, and stops the round on any card
        the rules did not call for. Where the cards are turned only at the end (style C), the
        dealer then presses reveal, on the screen too so that it reaches the station after the
        round's cards."""
        self._post_burst(self._opening())
        self.burst_pending = True
        if closed > self.watch.rounds_closed and self.cautious():
            self._gates.append((closed, self.equipment.shoe.events_queued))
            self._gate_rounds_ahead()
        self.deal_rest_of_round(closed)
        if self.options.hidden_cards:
            self._post_burst([DealerAction("reveal")])

    def may_run_ahead(self, in_flight: int) -> bool:
        """Whether to deal the next round before the station has settled the one in flight.

        Only at full speed in a shoe of styles A and C (what :meth:`can_deal_ahead` allows),
        never once the cut card is out (the end of the shoe is the station's call, so the
        dealer watches the screen again), never near the bottom of the shoe, and never past
        the session's round limit."""
        if not self.can_deal_ahead() or self.options.equipment == "continuous" or self.equipment.cut_card_out:
            return False
        if self.watch.confirming:
            return False  # the table wants each round's payouts confirmed: one round at a time
        if self.watch.burn_due:
            return False  # a new dealer's burn card is due: the station says which round takes it
        if self.script.rounds and self.watch.rounds_settled + in_flight + 1 > self.script.rounds:
            return False
        return self.equipment.remaining() >= 2 * self.ROUND_CARDS

    def run_ahead(self) -> None:
        """Full speed: deal round after round, a little ahead of the station.

        A dealer who trusts the table deals the next round while the station is still
        settling the last one. The next round's actions reach the station after the last
        round's cards, and its cards after those actions, because the simulated table keeps
        the dealer's screen and the shoe in order (:mod:`station.sim.table`). The dealer reads the
        result off its own cards (it needs it for the bets a Tie leaves on the layout) and
        never starts a round while the station has ``MAX_UNSETTLED`` rounds unsettled. Any
        irregularity or pause ends dealing ahead; the dealer then waits as at human pace. When dealing
        ahead ends (the cut card came out, say), the dealer waits until the station has
        settled every round dealt and carries on from where the station stands."""
        watch = self.watch
        closed_at_start = watch.rounds_closed
        dealt = 1  # the round :meth:`whole_round` just dealt
        while not self._stop.is_set():
            # The station may lag behind, but not by more than MAX_UNSETTLED rounds.
            watch.wait_for_rounds_closed(closed_at_start + dealt - self.MAX_UNSETTLED + 1, self._stop,
                                         self.stops_seen)
            unsettled = closed_at_start + dealt - watch.rounds_closed
            if self._interrupted() or not self.may_run_ahead(in_flight=unsettled):
                break
            watch.last_outcome = self._own_outcome()
            log.info("dealt_ahead", unsettled=unsettled, last_outcome=watch.last_outcome)
            self.whole_round(closed_at_start + dealt)
            dealt += 1
        watch.wait_for_rounds_closed(closed_at_start + dealt, self._stop, self.stops_seen)
        if self._interrupted():
            self.burst_pending = False  # the rounds dealt ahead wait for the decision, card by card
        # Otherwise the burst stays pending until the station says it is paying the last round:
        # its settlement can arrive before that state does, and the state heard before it
        # ("press reveal") is one the station has already left.

    def _gate_rounds_ahead(self) -> None:
        """The cards of a round dealt ahead stay in the shoe until the station has settled the
        round before it. Its opening goes to the station at once and waits there for that round's
        cards; but if the station stops in that round (a shuffler lost, say), it refuses the
        opening, and cards let go once it had the opening would reach a stopped round (and go
        into it when the supervisor lets it go on). Held, the dealer takes them back. The station
        takes the opening's actions meanwhile, so the cards are there before it wants them.

        The hold costs a round trip a round (the settlement's news back to the table before the
        next round's cards go): at full speed the demo dealt 380 rounds a second without it and
        176 with it. So rounds are held only while the table is being hurt (:attr:`cautious`:
        a fault done through the door lately); a stop with no fault behind it (an integrity
        alarm) may meet cards already on their way, a card the rules did not call for, which a
        supervisor decides as at a real table."""
        while self._gates and self.watch.rounds_closed >= self._gates[0][0]:
            self._gates.popleft()
        self.gate(self._gates[0][1] if self._gates else None)

    def _interrupted(self) -> bool:
        """The station stopped for a person (now, or since the dealer last looked), or the shoe
        lost cards: the dealer stops dealing ahead and looks."""
        watch = self.watch
        return watch.person_needed or watch.stops != self.stops_seen or watch.nudged

    def _own_outcome(self) -> str:
        """The result of the round just dealt, as the dealer reads it off the cards."""
        assert self._play is not None, "a round was dealt"
        return self._play.result().outcome
