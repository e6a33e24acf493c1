"""The rounds as the simulated dealer deals them: the cards out in the round in play, the rest
of a round dealt by the game's rules, and at full speed whole rounds dealt a little ahead of
the station."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import structlog

from station.cards import Card
from station.core.options import CoreOptions
from station.events import DealerAction, Event
from station.games.interface import Play
from station.sim.equipment import DealerEquipment
from station.sim.script import DealerScript
from station.sim.watch import StationWatch

log = structlog.get_logger(__name__)


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
        self.lost_track = False  # since an irregularity: the round's cards are the station's to say
        self._play: Play | None = None  # the round last dealt in one go
        self.next_for = ""  # the round after which "next round" went with its payouts' confirmation

    def new_round(self) -> None:
        """The layout is cleared: no card is out in the round about to open."""
        self.round_cards = []
        self.lost_track = False

    def stopped_for_a_person(self) -> None:
        """The station stopped the round for a supervisor, who may burn a card, void the round
        or let it go on: until the next round the dealer deals card by card, as the station
        asks, instead of by its own count of the round's cards (and rounds it dealt ahead
        wait for the decision with the rest)."""
        self.lost_track = True
        self.burst_pending = False

    def draw(self, into_round: bool) -> Card:
        """One card out of the shoe; ``into_round`` when it goes to the round's hands (not a burn)."""
        card = self.equipment.draw()
        if into_round or self.burst_pending:
            self.round_cards.append(card)
        return card

    def can_deal_ahead(self) -> bool:
        """At full speed a dealer who knows the third-card rules deals the whole round without
        looking up between cards (styles A and C, where nothing is squeezed in between). The
        station still checks every card against the rules and stops the round on a wrong one."""
        return (self.script.pace_s == 0 and not self.options.rules.choices and self.options.dealing_style in ("A", "C")
                and not self.lost_track)

    def burn_for_new_dealer(self) -> None:
        """The card a dealer who took over burns before their first card (docs/dealers.md):
        out of the shoe, face down, to none of the round's hands."""
        self.equipment.draw()
        self.watch.burn_due = False

    def deal_rest_of_round(self) -> None:
        """Deal the round's cards by the game's rules, after those already out in it (the burn
        card first, when a dealer who took over owes one)."""
        if self.watch.burn_due and not self.round_cards:
            self.burn_for_new_dealer()
        play = self.options.rules.open_round()
        for card in self.round_cards:  # cards already out in this round go where the rules sent them
            if not play.step().wants_card:
                break
            play = play.place(card).play
        while play.step().wants_card:
            play = play.place(self.draw(into_round=True)).play
        self._play = play

    def confirmed_and_on_its_way(self) -> bool:
        """The last round's payouts are confirmed and "next round" sent after them: the
        station is on its way to the next round, though it still says it is paying."""
        return bool(self.next_for) and self.next_for == self.watch.paid_round

    def whole_round(self) -> None:
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
        self.deal_rest_of_round()
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
            watch.wait_for_rounds_closed(closed_at_start + dealt - self.MAX_UNSETTLED + 1, self._stop)
            unsettled = closed_at_start + dealt - watch.rounds_closed
            if watch.person_needed or not self.may_run_ahead(in_flight=unsettled):
                break
            watch.last_outcome = self._own_outcome()
            log.info("dealt_ahead", unsettled=unsettled, last_outcome=watch.last_outcome)
            self.whole_round()
            dealt += 1
        watch.wait_for_rounds_closed(closed_at_start + dealt, self._stop)
        if watch.person_needed:
            self.burst_pending = False  # the rounds dealt ahead wait for the decision, card by card
        # Otherwise the burst stays pending until the station says it is paying the last round:
        # its settlement can arrive before that state does, and the state heard before it
        # ("press reveal") is one the station has already left.

    def _own_outcome(self) -> str:
        """The result of the round just dealt, as the dealer reads it off the cards."""
        assert self._play is not None, "a round was dealt"
        return self._play.result().outcome
