"""What the simulated dealer knows of the station: what it has heard, and its waits for more.

The dealer never reads the state machine. It hears what a dealer at the table sees (the state
and the expectation after each event, and the outputs it acts on: settlements, voids, war
decisions, irregularities, payouts to confirm) from any thread, in order, and waits on this
one queue for the station to move.

How long it waits is the script's patience, and what it does when the station stands still
that long, or stops for a person (a pause, an irregularity), is the script's too: in ``station
run`` it waits for as long as the people take, and says so in the log now and then (after one
patience, then two, four, eight...); in ``station demo`` it gives up (:class:`DealerStopped`).
It never decides for them.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

import structlog

from station.core import outputs as out
from station.core import states as st
from station.core.progressive_steps import JACKPOT_WORDS
from station.sim.script import DealerScript, DealerStopped

#: The door a person signs in at to take the dealer's decisions on the screen.
CONSOLE_DOOR = "console"
log = structlog.get_logger(__name__)


class Nudge:
    """Not the station's: news of the dealer's own equipment that it must look at (the shoe
    lost cards it had slid out), queued with what the station says so one wait hears both."""


NUDGE = Nudge()
#: One thing heard: an output, a (state, expectation) pair, a nudge, or None (stop listening).
Heard = out.Output | tuple[str, str] | Nudge | None
#: The outputs that complete a "paying" view heard before them (see :attr:`StationWatch.wake_on_settlement`).
SETTLEMENT = (out.RoundSettled, out.RoundVoided, out.PayoutsDue)
#: The states in which the table waits for a person (a supervisor's decision, a resume).
WAITING_FOR_PEOPLE = (st.IRREGULARITY, st.PAUSED)
#: The states between two shoes: the last shoe has ended (or none has started yet).
BETWEEN_SHOES = (st.SHUFFLING, st.CUTTING, st.BURNING)


class StationWatch:
    """The station as the dealer sees it, kept from what it hears."""

    def __init__(self, script: DealerScript) -> None:
        self._heard: queue.Queue[Heard] = queue.Queue()  # see station.core.queues
        self.patience_s = script.patience_s
        self.gives_up = script.gives_up
        self.state = ""
        self.expectation = ""
        self.last_outcome = ""  # of the last round of this shoe ("tie": its Banker/Player bets stay on)
        self.rounds_closed = 0  # RoundSettled and RoundVoided heard
        self.rounds_settled = 0  # RoundSettled alone: what a session's round limit counts
        self.war_boxes: tuple[str, ...] = ()
        self.war_answered = -1  # the dealer decided for the war boxes when it had heard this many stops
        self.payouts_due = ""  # the round whose payouts the table waits for the dealer to confirm
        self.paid_round = ""  # the round last settled or voided
        self.confirming = False  # the table has asked for a confirmation: it wants them all
        self.irregularity = ""  # the one raised and not yet decided, in the station's words
        self.burn_due = False  # a dealer took over with [table] burn_on_dealer_change: one card to burn
        #: The person signed in at the console as the table's dealer ("" for none): while there
        #: is one, they take the dealer's decisions and the simulated dealer only handles the
        #: equipment. A sign-in at the button box or by ``ctl`` names whose rounds they are;
        #: the simulated dealer goes on playing them (docs/dealers.md).
        self.person = ""
        #: Times the station stopped for a person (an irregularity raised, a pause begun), heard
        #: even when the stop was over before the dealer looked: the cards it slid out ahead may
        #: have met the stop, so it goes on by the station's word, not its own count.
        self.stops = 0
        #: Times the station has been seen leaving "paying" (for anything but a stop for a person,
        #: after which it may pay the same round again): what the dealer did while it paid one
        #: round says nothing of the next.
        self.times_paid = 0
        self._went_on_from = ""  # the last state heard that was not a stop for a person
        #: The dealer's equipment has news (:meth:`nudge`), not yet looked at.
        self.nudged = False
        #: Set by the dealer who waits, on a "paying" view, for the settlement or the payouts of
        #: the round being paid: a supervisor's decision that lets a round go on can settle it in
        #: the same event, and the view after that event is heard before its outputs; those
        #: outputs then count as a change.
        self.wake_on_settlement = False
        #: Called (on the dealer's thread) each time a round is heard closed.
        self.on_closed: Callable[[], None] = lambda: None
        self._closed = False

    @property
    def person_needed(self) -> bool:
        """The table waits for a person: nothing the dealer deals or presses counts until then."""
        return (bool(self.irregularity) or self.state in WAITING_FOR_PEOPLE
                or (self.state == st.PAYING and JACKPOT_WORDS in self.expectation))

    def start_from(self, state: str, expectation: str) -> None:
        """Where the station stands when the dealer takes over."""
        self.state, self.expectation = state, expectation
        if state not in WAITING_FOR_PEOPLE:
            self._went_on_from = state

    def hear(self, item: out.Output | tuple[str, str]) -> None:
        """Something the station said (from any thread)."""
        self._heard.put(item)

    def nudge(self) -> None:
        """Wake the dealer to look at its equipment (from any thread), as a change would."""
        self._heard.put(NUDGE)

    def close(self) -> None:
        """Wake any wait: the dealer is stopping."""
        self._closed = True
        self._heard.put(None)

    def wait_for_change(self, look_again_s: float | None = None) -> bool:
        """Take what the station says until its state or expectation changes, then whatever
        else is already there. True once it has changed, or once ``look_again_s`` has passed
        without a change (the dealer looks again at a station that stands still); False when
        the watch is closed."""
        wait = _Wait(self, "moved")
        until = None if look_again_s is None else time.monotonic() + look_again_s
        while (item := self._next(wait, until)) is not None:
            if isinstance(item, _LookAgain) or self._take(item):
                wait.ended()
                self.catch_up()
                return not self._closed
        return False

    def wait_for_rounds_closed(self, count: int, stop: threading.Event, stops: int | None = None) -> None:
        """Take what the station says until it has closed ``count`` rounds in all, or stops
        for a person (the rounds dealt ahead then wait for the decision, and the dealer
        watches the screen again), or has stopped since the dealer counted ``stops`` (default:
        since now), or the dealer's equipment has news; then take what else is already there,
        so the state noted is the station's latest."""
        wait = _Wait(self, "settled the rounds dealt ahead")
        stops = self.stops if stops is None else stops
        while self.rounds_closed < count and not self.person_needed and not self.nudged and self.stops == stops:
            if stop.is_set() or (item := self._next(wait)) is None or isinstance(item, _LookAgain):
                return
            self._take(item)
        wait.ended()
        self.catch_up()

    def _next(self, wait: _Wait, until: float | None = None) -> Heard | _LookAgain:
        """The next thing the station says, however long it takes (each patience that passes
        first is ``wait``'s to act on), or :data:`_LOOK_AGAIN` at ``until`` (monotonic); None
        once the watch is closed (the sentinel may have been taken already, by a catch-up)."""
        while not self._closed:
            timeout = wait.timeout()
            if until is not None:
                if until <= time.monotonic():
                    return _LOOK_AGAIN
                timeout = min(timeout, until - time.monotonic())
            try:
                return self._heard.get(timeout=max(0.0, timeout))
            except queue.Empty:
                if wait.timeout() <= 0:
                    wait.another_patience()
        return None

    def catch_up(self) -> bool:
        """Take what the station has already said, without waiting; True when its state or
        expectation changed."""
        changed = False
        while True:
            try:
                item = self._heard.get_nowait()
            except queue.Empty:
                return changed
            if item is None:
                return changed
            changed = self._take(item) or changed

    def _take(self, item: out.Output | tuple[str, str] | Nudge) -> bool:
        """Note one thing the station said; True when its state or expectation changed (or
        the dealer's equipment has news, or the outputs of a paying view it waits for came)."""
        if isinstance(item, Nudge):
            self.nudged = True
            return True
        if isinstance(item, tuple):
            changed = item != (self.state, self.expectation)
            if changed:
                self.wake_on_settlement = False  # the dealer looks at the new view anyway
            if item[0] == st.PAUSED and self.state != st.PAUSED:
                self.stops += 1
            if item[0] not in WAITING_FOR_PEOPLE:
                if self._went_on_from == st.PAYING and item[0] != st.PAYING:
                    self.times_paid += 1
                self._went_on_from = item[0]
            self.state, self.expectation = item
            if self.state != st.IRREGULARITY:
                self.irregularity = ""  # decided
            if self.state in BETWEEN_SHOES:
                # The shoe has ended: the bets a final Tie left on the layout went back to their
                # owners (the core's ``carried`` is dropped at the shoe's end), so the first round
                # of the next shoe takes every bet afresh. A batch shuffler's next set may be
                # ready at once, so the dealer may hear "cutting" without "shuffling" before it.
                self.last_outcome = ""
            return changed
        news = False
        if isinstance(item, SETTLEMENT) and self.wake_on_settlement and self.state == st.PAYING:
            self.wake_on_settlement, news = False, True
        if isinstance(item, out.PayoutsDue):
            self.payouts_due = item.round_id
            self.confirming = True
        elif isinstance(item, out.RoundSettled):
            self.paid_round = item.round_id
            self.last_outcome = item.outcome
            self.rounds_closed += 1
            self.rounds_settled += 1
            self.on_closed()
        elif isinstance(item, out.RoundVoided):
            self.paid_round = item.round_id
            self.last_outcome = "void"
            self.rounds_closed += 1
            self.on_closed()
        elif isinstance(item, out.DealerChanged):
            self.burn_due = item.burn
            person = item.dealer if item.door == CONSOLE_DOOR else ""
            if bool(person) != bool(self.person):
                # A person took the table at the console, or left it: the dealer's own count of
                # the round no longer holds (they placed bets and took decisions it did not).
                self.stops += 1
                news = True
            self.person = person
        elif isinstance(item, out.WarDecisionNeeded):
            self.war_boxes, self.war_answered = item.boxes, -1
            news = news or self.state == st.WAR_DECISION  # heard after its view (a decision's event)
        elif isinstance(item, out.IrregularityRaised):
            decisions = ", ".join(item.decisions)
            if self.gives_up:
                raise DealerStopped(f"irregularity: {item.detail} (a supervisor must decide: {decisions})")
            self.irregularity = item.detail
            self.stops += 1
            log.info("simulated_dealer_waits_for_a_supervisor", detail=item.detail, decisions=decisions)
        return news


class _LookAgain:
    """A wait with a limit ran out before anything was heard."""


_LOOK_AGAIN = _LookAgain()


class _Wait:
    """One wait for news from the station, and what the dealer does each time it has lasted
    another patience: a demo's dealer gives up; a run's says so after one patience, two,
    four, eight... and waits on."""

    def __init__(self, watch: StationWatch, what: str) -> None:
        self.watch = watch
        self.what = what  # what the station has not done: "moved"
        self.since = time.monotonic()
        self.patiences = 0
        self.reports = 0

    def timeout(self) -> float:
        """Seconds until the next patience has passed."""
        return max(0.0, self.since + self.watch.patience_s * (self.patiences + 1) - time.monotonic())

    def another_patience(self) -> None:
        watch = self.watch
        self.patiences += 1
        waited = time.monotonic() - self.since
        if watch.gives_up:
            raise DealerStopped(f"the station has not {self.what} for {round(waited, 1):g} s "
                                f"(state {watch.state!r}, expecting {watch.expectation!r})")
        if self.patiences == 2 ** self.reports:
            report = log.info if watch.person_needed else log.warning
            report("simulated_dealer_waiting", waiting_for="a person" if watch.person_needed else "the station",
                   waited_s=round(waited, 2), state=watch.state, expecting=watch.expectation)
            self.reports += 1

    def ended(self) -> None:
        """The station moved: say so when the wait was reported."""
        if self.reports:
            log.info("simulated_dealer_goes_on", waited_s=round(time.monotonic() - self.since, 2),
                     state=self.watch.state, expecting=self.watch.expectation)
