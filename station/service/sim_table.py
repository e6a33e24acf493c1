"""The simulated table in a process of its own: the simulators behind the ``sim:`` serial
devices, and the simulated dealer who plays them.

Real devices are other machines, and the station reaches them over serial lines. Simulators
run inside the station's process would instead share Python's interpreter lock with the core
loop: every frame they read or write, and every move of the dealer, would queue behind the
loop's work, and the loop behind theirs, all on one core of the table PC. So
a station with a simulated dealer starts them in a child process: the station opens each
simulator's pseudo-terminal exactly as it opens a real device's port, and everything else the
dealer does goes over one pipe:

- station to table: what the dealer sees (the state and expectation after each event, and the
  outputs it acts on: settlements, voids, war decisions, irregularities);
- table to station: the dealer's screen (actions and bets) and its presses of the USB pedals,
  which stay in the station's process behind their simulated pyusb backend.

The screen and the shoe are two paths, and the station must see their inputs in the order the
dealer made them. Each action carries the number of events the simulated shoe had set off
before it, and the station posts it only once the shoe's driver has handed over that many; a
card drawn after an action is held in the simulated shoe until the station confirms the
action is in the loop's queue.

The child is forked before the station starts any thread or opens its journal, so it starts
in milliseconds and inherits nothing it could disturb; it ignores SIGINT and SIGTERM (the
station stops it) and ends when the pipe closes, so it never outlives the station.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import structlog

from drivers.simulators import start_simulator
from station.cards import Card, ShoeComposition
from station.core import outputs as out
from station.core.options import CoreOptions
from station.core.queues import take_waiting
from station.events import Event
from station.service.cpus import allowed_cpus, pin_process, split_for_table
from station.service.sim_dealer import DealerScript, SimulatedDealer

log = structlog.get_logger(__name__)

#: What the dealer acts on besides the state and the expectation (see ``SimulatedDealer._take``).
DEALER_OUTPUTS = (out.RoundSettled, out.RoundVoided, out.WarDecisionNeeded, out.IrregularityRaised)
#: Every output :meth:`SimulatedTable.on_output` relays (the rest it has no use for).
TABLE_OUTPUTS = (out.StateChanged, out.ExpectationChanged, *DEALER_OUTPUTS)
START_TIMEOUT_S = 15.0
ORDER_TIMEOUT_S = 5.0


class SimulatedTableError(RuntimeError):
    """The simulated table could not be started."""


@dataclass
class TableSpec:
    """Everything the child needs, fixed before it starts."""

    devices: dict[str, tuple[str, dict[str, Any]]]
    """Serial devices to simulate: name -> (kind, simulator options)."""
    options: CoreOptions
    script: DealerScript
    pedal_buttons: frozenset[str] = field(default_factory=frozenset)
    """Buttons of the (in-station) simulated pedals; the dealer presses them through the pipe."""
    cpu: int | None = None
    """The CPU the table keeps to (see :mod:`station.service.cpus`); None: any."""


@dataclass
class Resume:
    """Where the station stands when the dealer takes over (after replaying its journal)."""

    state: str
    expectation: str
    remaining: ShoeComposition | None = None
    cut_card_out: bool = False
    shoe_in_progress: bool = False
    """The journal has a shoe under way (a continuous shuffler's pool must then be resumed)."""
    out_cards: list[Card] = field(default_factory=list)
    """Continuous shuffler: cards the journal says are out of it (dealt or awaiting return)."""


class SimulatedTable:
    """The station's side: starts the child, relays the dealer's actions and what it sees."""

    def __init__(self, spec: TableSpec, *, post: Callable[[Event], None], press: Callable[[str], None]) -> None:
        self.spec = spec
        self._post = post
        self._press = press
        self._conn: Connection | None = None
        self._process: Any = None
        self._receiver: threading.Thread | None = None
        self._send_lock = threading.Lock()
        self._seen: queue.Queue[object] = queue.Queue()  # not SimpleQueue: see station.core.queues
        self._last_view: tuple[str, str] | None = None
        self._station_cpus: set[int] | None = None  # the station's own CPUs before the table took one
        self.error: str | None = None
        self.stopped = threading.Event()
        self._stopping = False
        self._order = ScreenOrder(post, self._confirm)

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> dict[str, str]:
        """Start the child and its simulators; returns each simulated device's port."""
        # Fork while the station has no other thread (its start-up has not begun); a process
        # with threads gets a fresh interpreter instead, which is slower but safe.
        method = "fork" if threading.active_count() == 1 else "spawn"
        context: Any = multiprocessing.get_context(method)
        allowed = allowed_cpus()
        split = split_for_table(allowed)
        if split is not None:
            self.spec = dataclasses.replace(self.spec, cpu=split[1])
        parent, child = context.Pipe()
        process = context.Process(target=_child_main, args=(child, self.spec), name="station-sim-table", daemon=True)
        try:
            process.start()
        finally:
            child.close()
        self._process = process
        self._conn = parent
        if not parent.poll(START_TIMEOUT_S):
            self.stop()
            raise SimulatedTableError(f"the simulated table did not start within {START_TIMEOUT_S:.0f} s")
        try:
            kind, payload = parent.recv()
        except (EOFError, OSError) as exc:
            self.stop()
            raise SimulatedTableError(f"the simulated table stopped while starting: {exc}") from None
        if kind != "ready":
            self.stop()
            raise SimulatedTableError(f"the simulated table could not start: {payload}")
        if split is not None and allowed is not None and pin_process(split[0]):
            self._station_cpus = allowed  # given back when the table stops
        log.info("simulated_table_started", pid=self._process.pid, method=method, ports=payload,
                 table_cpu=self.spec.cpu, station_cpus=sorted(split[0]) if split else None)
        return dict(payload)

    def follow_shoe(self, link: Any) -> None:
        """Count the events the shoe's driver hands over: the dealer's actions wait for the
        cards it slid out before making them (see :class:`ScreenOrder`)."""
        link.on_delivered = self._order.delivered

    def _confirm(self, number: int) -> None:
        try:
            self._send(("posted", number))
        except (OSError, ValueError):
            pass  # the table is gone; the receiving thread reports it

    def begin(self, resume: Resume) -> None:
        """Let the dealer play from where the station stands."""
        self._last_view = (resume.state, resume.expectation)
        self._send(("begin", resume))
        self._receiver = threading.Thread(target=self._receive, name="sim-table-rx", daemon=True)
        self._receiver.start()
        threading.Thread(target=self._relay, name="sim-table-tx", daemon=True).start()

    def halt_dealer(self) -> None:
        """The dealer stops dealing; the simulated devices stay up (the station's drivers are
        still talking to them while it shuts down)."""
        self._stopping = True
        try:
            self._send(("halt", None))
        except (OSError, ValueError):
            pass  # already gone

    def stop(self) -> None:
        """Stop the dealer and the simulators, and end the child."""
        self._stopping = True
        self._seen.put(None)
        try:
            self._send(("stop", None))
        except (OSError, ValueError):
            pass  # already gone
        if self._process is not None:
            self._process.join(5)
            if self._process.is_alive():
                self._process.kill()
                self._process.join(2)
        if self._receiver is not None:
            self._receiver.join(2)  # it sees the end of the pipe once the child is gone
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        cpus, self._station_cpus = self._station_cpus, None
        if cpus is not None:
            pin_process(cpus)

    # --- core-loop side ----------------------------------------------------------------------

    def on_output(self, output: out.Output, view: tuple[str, str]) -> None:
        """Called on the core loop's thread with the state and expectation after the event:
        queue only what the dealer acts on; never block the loop."""
        if isinstance(output, (out.StateChanged, out.ExpectationChanged)):
            if view != self._last_view:
                self._last_view = view
                self._seen.put(view)
        elif isinstance(output, DEALER_OUTPUTS):
            self._seen.put(output)

    # --- threads -----------------------------------------------------------------------------

    def _send(self, message: tuple[str, Any]) -> None:
        conn = self._conn
        if conn is None:
            return
        with self._send_lock:
            conn.send(message)

    def _relay(self) -> None:
        """Send what the dealer sees, everything queued at once in one message."""
        while True:
            batch = take_waiting(self._seen, [self._seen.get()])
            if None in batch:
                return
            try:
                self._send(("seen", batch))
            except (OSError, ValueError):
                return

    def _receive(self) -> None:
        conn = self._conn
        assert conn is not None
        order = self._order
        try:
            while True:
                wait = order.due_in()
                if wait is not None and not conn.poll(wait):
                    order.post_overdue()
                    continue
                kind, payload = conn.recv()
                if kind == "post":
                    for number, after, event in payload:
                        order.arrived(number, after, event)
                elif kind == "press":
                    self._press(payload)
                elif kind == "stopped":
                    self.error = payload
                    self.stopped.set()
                if not conn.poll():
                    order.caught_up()  # one confirmation for a burst of actions
        except (EOFError, OSError, ValueError, TypeError) as exc:  # TypeError: closed under the read
            if not self._stopping:
                self.error = f"the simulated table went away: {exc or type(exc).__name__}"
        finally:
            self.stopped.set()


class ScreenOrder:
    """Posts the dealer's screen actions in order with the cards, on the station's side.

    An action travels over the pipe and the cards over the shoe's serial line; a dealer who
    clears the layout right after sliding the last card must not have the clearing reach the
    station before that card. Each action comes with ``after``, the number of events the
    simulated shoe had queued when it was made, and is posted once the shoe's driver has
    handed over that many. One that must wait is parked; the shoe's reader posts it itself
    when it hands over the card it waited for (no thread is woken for it, and the reader
    does this before it acknowledges the card). The count only runs short if the shoe lost
    events (it was switched off): after ``ORDER_TIMEOUT_S`` the action goes in with a warning.

    Posted actions are confirmed to the dealer's side (``confirm(number)`` covers every action
    up to ``number``), which holds the cards drawn after them until then. So before an action
    is parked, the ones posted so far are confirmed: the cards it waits for may be held
    behind them."""

    def __init__(self, post: Callable[[Event], None], confirm: Callable[[int], None]) -> None:
        self._post = post
        self._confirm = confirm
        self._lock = threading.Lock()
        self._delivered = 0  # events the shoe's link has handed over to the core loop
        self._parked: deque[tuple[int, int, Event, float]] = deque()  # (number, after, event, overdue at)
        self._posted = 0  # the last action posted
        self._confirmed = 0  # the last action confirmed

    def delivered(self, count: int) -> None:
        """The shoe's reader, before it acknowledges an event: ``count`` handed over in all."""
        with self._lock:
            self._delivered = count
            if self._parked and self._parked[0][1] <= count:
                self._post_ready()
                self._confirm_posted()

    def arrived(self, number: int, after: int, event: Event) -> None:
        """Action ``number`` from the dealer's screen, made after ``after`` shoe events."""
        with self._lock:
            if self._parked or after > self._delivered:
                self._confirm_posted()
                self._parked.append((number, after, event, time.monotonic() + ORDER_TIMEOUT_S))
            else:
                self._post(event)
                self._posted = number

    def caught_up(self) -> None:
        """Nothing more is on its way for now: confirm what has been posted."""
        with self._lock:
            self._confirm_posted()

    def due_in(self) -> float | None:
        """Seconds until the oldest parked action is overdue; None when none is parked."""
        with self._lock:
            return max(0.0, self._parked[0][3] - time.monotonic()) if self._parked else None

    def post_overdue(self) -> None:
        """Post the oldest parked action if it has waited ``ORDER_TIMEOUT_S`` (with a warning:
        the cards it waited for are not coming), then any it was holding up."""
        with self._lock:
            if not self._parked or time.monotonic() < self._parked[0][3]:
                return
            number, after, event, _ = self._parked.popleft()
            log.warning("dealer_action_ahead_of_cards", action=event.kind, waited_for=after, delivered=self._delivered)
            self._post(event)
            self._posted = number
            self._post_ready()
            self._confirm_posted()

    def _post_ready(self) -> None:
        while self._parked and self._parked[0][1] <= self._delivered:
            number, _, event, _ = self._parked.popleft()
            self._post(event)
            self._posted = number

    def _confirm_posted(self) -> None:
        if self._posted > self._confirmed:
            self._confirmed = self._posted
            self._confirm(self._posted)


# --- the child process -----------------------------------------------------------------------


class _Screen:
    """The dealer's screen, in the child: actions and bets go to the station in order.

    A card slid out of the shoe travels over the shoe's serial line, not this pipe; so a card
    drawn after an action must not reach the station before the action is in the station's
    queue. Each action notes how many events the shoe had queued when it was made, and the
    shoe holds every event queued after the note of the oldest action the station has not
    yet confirmed (:meth:`~drivers.simulators.base.SimulatedDevice.hold_after`). The dealer
    never waits: it goes on drawing (the cards wait in the shoe's outbox), and the first card
    freed by a confirmation leaves from the thread that reads it."""

    def __init__(self, conn: Connection, lock: threading.Lock, shoe: Any) -> None:
        self._conn = conn
        self._lock = lock
        self._shoe = shoe
        self._sent = 0
        self._unconfirmed: deque[tuple[int, int]] = deque()  # (action number, shoe events before it)

    def post(self, event: Event) -> None:
        """Send an action, marked with the shoe events set off before it: the station posts
        it only after those (the other half of the ordering, see :class:`ScreenOrder`)."""
        self.post_burst((event,))

    def post_burst(self, events: Sequence[Event]) -> None:
        """Send actions made in one go, in one message."""
        with self._lock:
            before = self._shoe.events_queued
            numbered = []
            for event in events:
                self._sent += 1
                self._unconfirmed.append((self._sent, before))
                numbered.append((self._sent, before, event))
            if len(self._unconfirmed) == len(numbered):
                self._shoe.hold_after(before)
            self._conn.send(("post", numbered))

    def confirmed(self, number: int) -> None:
        """The station has posted every action up to ``number``: free the cards drawn before
        the next action still unconfirmed (all of them when there is none)."""
        with self._lock:
            while self._unconfirmed and self._unconfirmed[0][0] <= number:
                self._unconfirmed.popleft()
            self._shoe.hold_after(self._unconfirmed[0][1] if self._unconfirmed else None)


def _child_main(conn: Connection, spec: TableSpec) -> None:
    if spec.cpu is not None:
        pin_process({spec.cpu})
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the station stops the table; a terminal's
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # Ctrl-C or systemd's SIGTERM goes to it
    lock = threading.Lock()
    running: dict[str, Any] = {}
    try:
        for name, (kind, options) in spec.devices.items():
            running[name] = start_simulator(kind, **options)
    except Exception as exc:
        for sim in running.values():
            sim.stop()
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", {name: sim.url for name, sim in running.items()}))
    dealer: SimulatedDealer | None = None
    screen = _Screen(conn, lock, running["shoe"].device)
    try:
        while True:
            try:
                kind, payload = conn.recv()
            except (EOFError, OSError):
                return  # the station is gone
            if kind == "begin":
                dealer = _start_dealer(spec, running, payload, screen, conn, lock)
            elif kind == "seen" and dealer is not None:
                for item in payload:
                    if isinstance(item, tuple):
                        dealer.observed(*item)
                    else:
                        dealer.on_output(item)
            elif kind == "posted":
                screen.confirmed(payload)
            elif kind == "halt" and dealer is not None:
                dealer.stop()
            elif kind == "stop":
                return
    finally:
        if dealer is not None:
            dealer.stop()
        for sim in running.values():
            sim.stop()
        conn.close()
        os._exit(0)  # nothing of the station's state (inherited by fork) is torn down here


def _start_dealer(spec: TableSpec, running: dict[str, Any], resume: Resume, screen: _Screen,
                  conn: Connection, lock: threading.Lock) -> SimulatedDealer:
    shoe = running["shoe"].device
    shuffler = running["shuffler"].device if "shuffler" in running else None
    pool = getattr(shuffler, "pool", None) if spec.options.equipment == "continuous" else None

    def press(button: str) -> bool:
        if button not in spec.pedal_buttons:
            return False
        with lock:
            conn.send(("press", button))
        return True

    dealer = SimulatedDealer(screen.post, spec.options, spec.script, shoe=shoe, post_burst=screen.post_burst,
                             press=press, shuffler=shuffler, pool=pool)
    if pool is not None and resume.shoe_in_progress:
        # After a restart the simulated continuous shuffler starts full: the cards the journal
        # says are out of it come out of its pool and go back to the dealer, who returns them.
        for card in resume.out_cards:
            pool.remove(card)
        dealer.hand_back(list(resume.out_cards))
        shoe.attach_pool(pool)

    def report() -> None:
        dealer.stopped.wait()
        try:
            with lock:
                conn.send(("stopped", dealer.error))
        except (OSError, ValueError):
            pass

    dealer.start(resume.state, resume.expectation, resume.remaining, resume.cut_card_out)
    threading.Thread(target=report, name="sim-dealer-watch", daemon=True).start()
    return dealer
