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

This module is the station's side; the child's is :mod:`station.sim.table_process`, and the
messages between them are :mod:`station.sim.messages`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import multiprocessing
import queue
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

import structlog

from station.core import outputs as out
from station.core.queues import take_waiting
from station.events import Event
from station.sim.cpus import allowed_cpus, pin_process, split_for_table
from station.sim.messages import (
    Begin,
    DealerEnded,
    HaltDealer,
    PedalPress,
    Posted,
    Ready,
    Resume,
    ScreenActions,
    Seen,
    StartFailed,
    StopTable,
    TableStopping,
    ToTable,
    View,
)
from station.sim.screen_order import ScreenOrder
from station.sim.spec import TableSpec
from station.sim.table_process import table_main

log = structlog.get_logger(__name__)

#: What the dealer acts on besides the state and the expectation (see ``StationWatch._take``).
DEALER_OUTPUTS = (out.RoundSettled, out.RoundVoided, out.WarDecisionNeeded, out.IrregularityRaised, out.PayoutsDue,
                  out.DealerChanged, out.ChipsSeen, out.ChipBetsProposed, out.ChipPaymentChecked)
#: Every output :meth:`SimulatedTable.on_output` relays (the rest it has no use for).
TABLE_OUTPUTS = (out.StateChanged, out.ExpectationChanged, *DEALER_OUTPUTS)
START_TIMEOUT_S = 15.0


class SimulatedTableError(RuntimeError):
    """The simulated table could not be started."""


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
        self._seen: queue.Queue[View | out.Output | None] = queue.Queue()  # see station.core.queues
        self._last_view: View | None = None
        self._station_cpus: set[int] | None = None  # the station's own CPUs before the table took one
        self.error: str | None = None
        #: The table was told to stop (a signal to its process): a stop asked for, not a failure.
        self.asked_to_stop = False
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
        station_end = parent.fileno() if method == "fork" else None  # the child closes its copy
        process = context.Process(target=table_main, args=(child, self.spec, station_end), name="station-sim-table",
                                  daemon=True)
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
            message = parent.recv()
        except (EOFError, OSError) as exc:
            self.stop()
            raise SimulatedTableError(f"the simulated table stopped while starting: {exc}") from None
        if not isinstance(message, Ready):
            self.stop()
            detail = message.error if isinstance(message, StartFailed) else f"unexpected {type(message).__name__}"
            raise SimulatedTableError(f"the simulated table could not start: {detail}")
        if split is not None and allowed is not None and pin_process(split[0]):
            self._station_cpus = allowed  # given back when the table stops
        log.info("simulated_table_started", pid=self._process.pid, method=method, ports=message.ports,
                 table_cpu=self.spec.cpu, station_cpus=sorted(split[0]) if split else None)
        return dict(message.ports)

    def shoe_delivered(self, count: int) -> None:
        """The shoe's driver has handed ``count`` events to the core loop in all: the dealer's
        actions wait for the cards it slid out before making them (see :class:`ScreenOrder`).
        Called on the shoe's reader thread, before it acknowledges the event."""
        self._order.delivered(count)

    def _confirm(self, number: int) -> None:
        with contextlib.suppress(OSError, ValueError):  # the table is gone; the receiver reports it
            self._send(Posted(number))

    def begin(self, resume: Resume) -> None:
        """Let the dealer play from where the station stands."""
        self._last_view = View(resume.state, resume.expectation)
        self._send(Begin(resume))
        self._receiver = threading.Thread(target=self._receive, name="sim-table-rx", daemon=True)
        self._receiver.start()
        threading.Thread(target=self._relay, name="sim-table-tx", daemon=True).start()

    def halt_dealer(self) -> None:
        """The dealer stops dealing; the simulated devices stay up (the station's drivers are
        still talking to them while it shuts down)."""
        self._stopping = True
        with contextlib.suppress(OSError, ValueError):  # already gone
            self._send(HaltDealer())

    def stop(self) -> None:
        """Stop the dealer and the simulators, and end the child."""
        self._stopping = True
        self._seen.put(None)
        with contextlib.suppress(OSError, ValueError):  # already gone
            self._send(StopTable())
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

    def on_output(self, output: out.Output, view: View) -> None:
        """Called on the core loop's thread with the state and expectation after the event:
        queue only what the dealer acts on; never block the loop."""
        if isinstance(output, (out.StateChanged, out.ExpectationChanged)):
            if view != self._last_view:
                self._last_view = view
                self._seen.put(view)
        elif isinstance(output, DEALER_OUTPUTS):
            self._seen.put(output)

    # --- threads -----------------------------------------------------------------------------

    def _send(self, message: ToTable) -> None:
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
                self._send(Seen(tuple(item for item in batch if item is not None)))
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
                match conn.recv():
                    case ScreenActions(actions):
                        for action in actions:
                            order.arrived(action.number, action.after, action.event)
                    case PedalPress(button):
                        order.then(functools.partial(self._press, button))
                    case DealerEnded(error):
                        self.error = error
                        self.stopped.set()
                    case TableStopping(reason):
                        self.error = reason
                        self.asked_to_stop = True
                        self.stopped.set()
                    case other:
                        log.error("simulated_table_unexpected_message", message=type(other).__name__)
                if not conn.poll():
                    order.caught_up()  # one confirmation for a burst of actions
        except (EOFError, OSError, ValueError, TypeError) as exc:  # TypeError: closed under the read
            if not self._stopping:
                why = str(exc) or ("its pipe closed" if isinstance(exc, EOFError) else type(exc).__name__)
                self.error = f"the simulated table's process ended ({why})"
        finally:
            self.stopped.set()
