"""The dealer's screen actions, posted in order with the cards the shoe slid out before them.

The simulated dealer's screen reaches the station over the simulated table's pipe and its
cards over the shoe's serial line: two paths, and the station must see their inputs in the
order the dealer made them. This is the station's half of keeping that order; the table's
half is :class:`station.sim.table_process.Screen`.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from station.events import Event

log = structlog.get_logger(__name__)

#: How long an action waits for shoe events that may never come (the shoe lost them).
ORDER_TIMEOUT_S = 5.0
#: Actions made after the shoe dropped events are numbered from the next multiple of this.
DROP_EPOCH = 1 << 40


class ScreenOrder:
    """Posts the dealer's screen actions in order with the cards, on the station's side.

    An action travels over the pipe and the cards over the shoe's serial line; a dealer who
    clears the layout right after sliding the last card must not have the clearing reach the
    station before that card. Each action comes with ``after``, the number of events the
    simulated shoe had queued when it was made, and is posted once the shoe's driver has
    handed over that many. One that must wait is parked; the shoe's reader posts it itself
    when it hands over the card it waited for (no thread is woken for it, and the reader
    does this before it acknowledges the card). ``after`` leaves out the events the shoe
    dropped before the action was made (a reboot lost them, or the dealer took back cards it
    had slid out); an action made before the drop still counts them. The dealer's side numbers
    the actions it makes after a drop from the next multiple of ``DROP_EPOCH``, and the first
    of them tells this side that the parked actions wait for events that never come
    (:meth:`_dropped_before`). Otherwise the count only runs short if events were lost
    unannounced: after ``ORDER_TIMEOUT_S`` the action goes in with a warning.

    Posted actions are confirmed to the dealer's side (``confirm(number)`` covers every action
    up to ``number``), which holds the cards drawn after them until then. So before an action
    is parked, the ones posted so far are confirmed: the cards it waits for may be held
    behind them."""

    def __init__(self, post: Callable[[Event], None], confirm: Callable[[int], None]) -> None:
        self._post = post
        self._confirm = confirm
        self._lock = threading.Lock()
        self._delivered = 0  # events the shoe's link has handed over to the core loop
        self._parked: deque[_Parked] = deque()
        self._posted = 0  # the last action posted
        self._confirmed = 0  # the last action confirmed
        self._epoch = 0  # the actions' numbers // DROP_EPOCH: how many drops the dealer announced

    def delivered(self, count: int) -> None:
        """The shoe's reader, before it acknowledges an event: ``count`` handed over in all."""
        with self._lock:
            self._delivered = count
            if self._parked and self._parked[0].after <= count:
                self._post_ready()
                self._confirm_posted()

    def arrived(self, number: int, after: int, event: Event) -> None:
        """Action ``number`` from the dealer's screen, made after ``after`` shoe events."""
        with self._lock:
            if number // DROP_EPOCH > self._epoch:
                self._epoch = number // DROP_EPOCH
                self._dropped_before(after)
            if self._parked or after > self._delivered:
                self._confirm_posted()
                self._parked.append(_Parked(number, after, event, None, time.monotonic() + ORDER_TIMEOUT_S))
            else:
                self._post(event)
                self._posted = number

    def then(self, run: Callable[[], None]) -> None:
        """Something the dealer did after its screen actions that reaches the station by
        another path (a press of the simulated pedals): done now when nothing waits, else in
        its turn after the actions parked before it, so it never overtakes them (a "no more
        bets" pedal must not reach the station before the bets)."""
        with self._lock:
            if self._parked:
                self._parked.append(_Parked(None, 0, None, run, time.monotonic() + ORDER_TIMEOUT_S))
                return
        run()

    def caught_up(self) -> None:
        """Nothing more is on its way for now: confirm what has been posted."""
        with self._lock:
            self._confirm_posted()

    def due_in(self) -> float | None:
        """Seconds until the oldest parked action is overdue; None when none is parked."""
        with self._lock:
            return max(0.0, self._parked[0].overdue_at - time.monotonic()) if self._parked else None

    def post_overdue(self) -> None:
        """Post the oldest parked action if it has waited ``ORDER_TIMEOUT_S`` (with a warning:
        the cards it waited for are not coming), then any it was holding up."""
        with self._lock:
            if not self._parked or time.monotonic() < self._parked[0].overdue_at:
                return
            item = self._parked.popleft()
            log.warning("dealer_action_ahead_of_cards", action=item.event.kind if item.event else "pedal press",
                        waited_for=item.after, delivered=self._delivered)
            self._release(item)
            self._post_ready()
            self._confirm_posted()

    def _dropped_before(self, after: int) -> None:
        """The first action made after the shoe dropped events (it rebooted, or the dealer took
        back cards it had slid out when the table stopped): the actions parked before it may
        wait for events that never come. They wait only for what it waits for (otherwise each
        would sit out ``ORDER_TIMEOUT_S``, and every action after it with it); in their turn,
        the station takes or refuses each as it stands then."""
        self._parked = deque(dataclasses.replace(item, after=min(item.after, after)) for item in self._parked)
        self._post_ready()

    def _post_ready(self) -> None:
        while self._parked and self._parked[0].after <= self._delivered:
            self._release(self._parked.popleft())

    def _release(self, item: _Parked) -> None:
        if item.event is not None and item.number is not None:
            self._post(item.event)
            self._posted = item.number
        elif item.run is not None:
            item.run()

    def _confirm_posted(self) -> None:
        if self._posted > self._confirmed:
            self._confirmed = self._posted
            self._confirm(self._posted)


@dataclass(frozen=True, slots=True)
class _Parked:
    """A screen action (``number``, ``event``) or something done after one (``run``), waiting
    until the shoe has handed over ``after`` events and everything before it has gone."""

    number: int | None
    after: int
    event: Event | None
    run: Callable[[], None] | None
    overdue_at: float
