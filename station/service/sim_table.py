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
card leaves the shoe only once the actions made before it are confirmed in the loop's queue.

The child is forked before the station starts any thread or opens its journal, so it starts
in milliseconds and inherits nothing it could disturb; it ignores SIGINT and SIGTERM (the
station stops it) and ends when the pipe closes, so it never outlives the station.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import structlog

from drivers.simulators import start_simulator
from station.cards import Card, ShoeComposition
from station.core import outputs as out
from station.core.options import CoreOptions
from station.events import Event
from station.service.sim_dealer import DealerScript, SimulatedDealer

log = structlog.get_logger(__name__)

#: What the dealer acts on besides the state and the expectation (see ``SimulatedDealer._take``).
DEALER_OUTPUTS = (out.RoundSettled, out.RoundVoided, out.WarDecisionNeeded, out.IrregularityRaised)
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
        self._seen: queue.Queue[object] = queue.Queue()  # not SimpleQueue: see CoreLoop._queue
        self._last_view: tuple[str, str] | None = None
        self.error: str | None = None
        self.stopped = threading.Event()
        self._stopping = False
        self._shoe_delivered = 0  # events the shoe's link has handed over to the core loop
        self._awaited = 0  # the count an action is waiting for (0: none is)
        self._delivery = threading.Condition()

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> dict[str, str]:
        """Start the child and its simulators; returns each simulated device's port."""
        # Fork while the station has no other thread (its start-up has not begun); a process
        # with threads gets a fresh interpreter instead, which is slower but safe.
        method = "fork" if threading.active_count() == 1 else "spawn"
        context: Any = multiprocessing.get_context(method)
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
        log.info("simulated_table_started", pid=self._process.pid, method=method, ports=payload)
        return dict(payload)

    def follow_shoe(self, link: Any) -> None:
        """Count the events the shoe's driver hands over: the dealer's actions wait for the
        cards it slid out before making them (see :meth:`_post_in_order`)."""
        link.on_delivered = self._on_shoe_delivered

    def _on_shoe_delivered(self, count: int) -> None:
        # Called by the shoe's reader before it acknowledges the card: wake the waiting action
        # only when its count is reached, not for every card (each wake-up would take the
        # interpreter from the reader just as the acknowledgement is due).
        with self._delivery:
            self._shoe_delivered = count
            if self._awaited and count >= self._awaited:
                self._delivery.notify_all()

    def _post_in_order(self, after: int, event: Event) -> None:
        """Post a screen action once the core loop has every shoe event the dealer had set off
        before making it (``after``: the simulated shoe's count of events queued then).

        The action travels over this pipe and the cards over the shoe's serial line; a dealer
        who clears the layout right after sliding the last card must not have the clearing
        reach the station before that card. The count only runs short if the shoe lost events
        (it was switched off): after ``ORDER_TIMEOUT_S`` the action goes in with a warning."""
        with self._delivery:
            self._awaited = after
            try:
                if not self._delivery.wait_for(lambda: self._shoe_delivered >= after, ORDER_TIMEOUT_S):
                    log.warning("dealer_action_ahead_of_cards", action=event.kind, waited_for=after,
                                delivered=self._shoe_delivered)
            finally:
                self._awaited = 0
        self._post(event)

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
            item = self._seen.get()
            batch = [item]
            while True:
                try:
                    batch.append(self._seen.get_nowait())
                except queue.Empty:
                    break
            if None in batch:
                return
            try:
                self._send(("seen", batch))
            except (OSError, ValueError):
                return

    def _receive(self) -> None:
        conn = self._conn
        assert conn is not None
        unconfirmed = 0  # the last action posted and not yet confirmed to the dealer
        try:
            while True:
                kind, payload = conn.recv()
                if kind == "post":
                    unconfirmed, after, event = payload
                    self._post_in_order(after, event)
                elif kind == "press":
                    self._press(payload)
                elif kind == "stopped":
                    self.error = payload
                    self.stopped.set()
                if unconfirmed and not conn.poll():
                    # One confirmation for a burst of actions: the last number covers them all.
                    self._send(("posted", unconfirmed))
                    unconfirmed = 0
        except (EOFError, OSError, ValueError, TypeError) as exc:  # TypeError: closed under the read
            if not self._stopping:
                self.error = f"the simulated table went away: {exc or type(exc).__name__}"
        finally:
            self.stopped.set()


# --- the child process -----------------------------------------------------------------------


class _Screen:
    """The dealer's screen, in the child: actions and bets go to the station in order.

    A card slid out of the shoe travels over the shoe's serial line, not this pipe; so before
    a card is drawn, every action posted before it must be in the station's queue, or the
    station could see the card first. :meth:`wait_posted` is that barrier."""

    def __init__(self, conn: Connection, lock: threading.Lock, shoe: Any) -> None:
        self._conn = conn
        self._lock = lock
        self._shoe = shoe
        self._posted = threading.Condition()
        self._sent = 0
        self._confirmed = 0

    def post(self, event: Event) -> None:
        """Send an action, marked with the shoe events set off before it: the station posts
        it only after those (the other half of the ordering, see ``_post_in_order``)."""
        with self._lock:
            self._sent += 1
            self._conn.send(("post", (self._sent, self._shoe.events_queued, event)))

    def confirmed(self, number: int) -> None:
        with self._posted:
            self._confirmed = max(self._confirmed, number)
            self._posted.notify_all()

    def wait_posted(self, timeout: float = 10.0) -> bool:
        with self._posted:
            return self._posted.wait_for(lambda: self._confirmed >= self._sent, timeout)


class _ShoeAfterScreen:
    """The simulated shoe as the dealer handles it: every draw waits until the actions made
    before it have reached the station (see :class:`_Screen`)."""

    def __init__(self, shoe: Any, screen: _Screen) -> None:
        self._shoe = shoe
        self._screen = screen

    def draw(self) -> Any:
        if not self._screen.wait_posted():
            raise RuntimeError("the station has not confirmed the dealer's last actions")
        return self._shoe.draw()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._shoe, name)


def _child_main(conn: Connection, spec: TableSpec) -> None:
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

    dealer = SimulatedDealer(screen.post, spec.options, spec.script, shoe=_ShoeAfterScreen(shoe, screen),
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
