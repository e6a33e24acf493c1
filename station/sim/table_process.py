"""The simulated table's own process: the simulators behind the ``sim:`` serial devices, and
the simulated dealer who plays them.

It starts from :func:`table_main` (forked, or spawned when the station already has threads),
reports :class:`~station.sim.messages.Ready` with each simulator's port, and from then on
answers the station's messages (:data:`~station.sim.messages.ToTable`) until it is told to
stop or its pipe closes. The station's half is :mod:`station.sim.table`. Beside the pipe, the
table serves its fault door (:mod:`station.sim.faults`, ``faults.sock`` in its folder): faults
injected into its simulators from outside the station while it runs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

import setproctitle
import structlog

from drivers.simulators import start_simulator
from station.child_process import die_with
from station.events import Event
from station.sim.cpus import pin_process
from station.sim.dealer import SimulatedDealer
from station.sim.faults import FaultDoor
from station.sim.messages import (
    Begin,
    DealerEnded,
    FromTable,
    HaltDealer,
    PedalPress,
    Posted,
    Ready,
    Resume,
    ScreenAction,
    ScreenActions,
    Seen,
    StartFailed,
    StopTable,
    TableStopping,
    View,
)
from station.sim.screen_order import DROP_EPOCH
from station.sim.spec import TableSpec
from station.sim.table_folder import TableFolder, remove_dead_tables

log = structlog.get_logger(__name__)

#: How long after a fault done through the door the dealer deals ahead with care.
CAUTIOUS_S = 30.0
#: After asking the station to stop, how long the table waits to be stopped in order.
STOP_GRACE_S = 20.0


class _Outbox:
    """The table's end of the pipe: one sender at a time (the dealer's and the watcher's threads)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        # Re-entrant: the screen sends a burst while holding it, so that the numbering of its
        # actions and the order they leave in are one step.
        self.lock = threading.RLock()

    def send(self, message: FromTable) -> None:
        """Send ``message``; when the station is gone (killed: its end of the pipe closed) the
        table ends at once and quietly, from whichever thread found out: there is nobody left
        to deal for, and its folder is removed by the next table that starts."""
        with self.lock:
            try:
                self._conn.send(message)
            except (BrokenPipeError, ConnectionResetError):
                os._exit(0)


class DealerScreen:
    """The dealer's screen, in the table's process: actions and bets go to the station in order.

    A card slid out of the shoe travels over the shoe's serial line, not this pipe; so a card
    drawn after an action must not reach the station before the action is in the station's
    queue. Each action notes how many events the shoe had queued when it was made, and the
    shoe holds every event queued after the note of the oldest action the station has not
    yet confirmed (:meth:`~drivers.simulators.base.SimulatedDevice.hold_after`). The dealer
    never waits: it goes on drawing (the cards wait in the shoe's outbox), and the first card
    freed by a confirmation leaves from the thread that reads it. The station's half is
    :class:`station.sim.screen_order.ScreenOrder`."""

    def __init__(self, outbox: _Outbox, shoe: Any) -> None:
        self._outbox = outbox
        self._shoe = shoe
        self._sent = 0
        self._unconfirmed: deque[tuple[int, int]] = deque()  # (action number, shoe events before it)
        self._gate: int | None = None  # the dealer's own hold (:meth:`gate`)

    def post(self, event: Event) -> None:
        """Send an action, marked with the shoe events set off before it."""
        self.post_burst((event,))

    def post_burst(self, events: Sequence[Event]) -> None:
        """Send actions made in one go, in one message. Each is marked with the shoe events the
        station must have before it, less those the shoe dropped (a reboot lost them, or the
        dealer took them back): those never come."""
        with self._outbox.lock:
            before = self._shoe.events_queued
            after = self._shoe.events_queued - self._shoe.events_dropped
            numbered = []
            for event in events:
                self._sent += 1
                self._unconfirmed.append((self._sent, before))
                numbered.append(ScreenAction(self._sent, after, event))
            if len(self._unconfirmed) == len(numbered):
                self._hold()
            self._outbox.send(ScreenActions(tuple(numbered)))

    def gate(self, number: int | None) -> None:
        """The dealer holds the shoe's events numbered above ``number`` itself (the cards of a
        round dealt ahead, until the station has settled the round before it); None: no more."""
        with self._outbox.lock:
            self._gate = number
            self._hold()

    def _hold(self) -> None:
        """Hold the shoe's events after the oldest action not yet confirmed, or the dealer's gate."""
        bounds = [bound for bound in (self._unconfirmed[0][1] if self._unconfirmed else None, self._gate)
                  if bound is not None]
        self._shoe.hold_after(min(bounds) if bounds else None)

    def start_afresh(self) -> None:
        """The shoe dropped events (the dealer took back cards it had slid out when the table
        stopped, or the shoe rebooted and lost them): nothing the dealer draws from now on is
        held behind the actions not yet confirmed, and the next action is numbered from the
        next multiple of ``DROP_EPOCH``, which tells the station's half that the actions it
        holds may wait for events that never come (:class:`~station.sim.screen_order.ScreenOrder`).
        The station posts them in their turn, and takes or refuses each as it stands then; the
        dealer goes on from that."""
        with self._outbox.lock:
            self._unconfirmed.clear()
            self._gate = None
            self._shoe.hold_after(None)
            self._sent = (self._sent // DROP_EPOCH + 1) * DROP_EPOCH

    def confirmed(self, number: int) -> None:
        """The station has posted every action up to ``number``: free the cards drawn before
        the next action still unconfirmed (all of them when there is none)."""
        with self._outbox.lock:
            while self._unconfirmed and self._unconfirmed[0][0] <= number:
                self._unconfirmed.popleft()
            self._hold()


def table_main(conn: Connection, spec: TableSpec, station_end: int | None = None) -> None:
    """The table's process from start to end (the target of its ``multiprocessing.Process``).

    ``station_end`` is the station's end of the pipe when the table was forked: the copy it
    inherited is closed at once, so that the pipe ends (and the table with it) when the station
    does, however the station ends."""
    if station_end is not None:
        os.close(station_end)
    else:  # spawned: a fresh interpreter, whose logging is not the station's until set
        spec.log.apply()
    outbox = _Outbox(conn)
    _become_the_tables_own_process(outbox)
    if spec.cpu is not None:
        pin_process({spec.cpu})
    remove_dead_tables()
    folder = TableFolder()  # the devices' links, removed at the end (or by the next table)
    running: dict[str, Any] = {}
    try:
        for name, (kind, options) in spec.devices.items():
            running[name] = start_simulator(kind, **{"directory": str(folder.path), **options})
    except Exception as exc:  # any failure to start is reported to the station, whatever it is
        for sim in running.values():
            sim.stop()
        folder.remove()
        outbox.send(StartFailed(f"{type(exc).__name__}: {exc}"))
        return
    # The fault door opens before the station hears the table is ready: whoever reads the
    # station's log for the table's folder finds the door there already.
    door = FaultDoor(folder.path, {name: sim.simulator for name, sim in running.items()})
    door.start()
    outbox.send(Ready({name: sim.url for name, sim in running.items()}))
    dealer: SimulatedDealer | None = None
    screen = DealerScreen(outbox, running["shoe"].simulator) if "shoe" in running else None
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return  # the station is gone
            match message:
                case Begin(resume) if screen is not None:
                    dealer = _start_dealer(spec, running, resume, screen, outbox, door)
                case Seen(items) if dealer is not None:
                    for item in items:
                        if isinstance(item, View):
                            dealer.observed(item.state, item.expectation)
                        else:
                            dealer.on_output(item)
                case Posted(number) if screen is not None:
                    screen.confirmed(number)
                case HaltDealer() if dealer is not None:
                    dealer.stop()
                case StopTable():
                    return
                case Begin() | Seen() | Posted() | HaltDealer():
                    pass  # nothing to act on yet (no dealer, or no shoe to deal from)
                case _:
                    log.error("simulated_table_unknown_message", message=type(message).__name__)
    finally:
        door.close()  # first: no fault lands, and no device is plugged back, while the table stops
        if dealer is not None:
            dealer.stop()
        for sim in running.values():
            sim.stop()
        folder.remove()
        conn.close()
        os._exit(0)  # nothing of the station's state (inherited by fork) is torn down here


def _become_the_tables_own_process(outbox: _Outbox) -> None:
    """Its own name in ``ps``, its own process group, an end with the station, and an orderly
    stop on SIGINT or SIGTERM.

    In its own process group, a terminal's Ctrl-C reaches only the station, which then stops
    the table after its drivers have let go of the simulated devices. A SIGINT or SIGTERM sent
    to the table itself (a ``kill`` of the wrong PID) asks the station to stop, in the same
    order. The parent-death signal ends the table if the station dies without closing the pipe."""
    station = os.getppid()
    setproctitle.setproctitle(f"station-sim-table (simulated devices and dealer of station {station})")
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    die_with(station)  # its SIGTERM is handled below, as an orderly stop

    def stop_requested(signum: int, _frame: object) -> None:
        # Only start a thread here: the handler may run while this thread holds the pipe.
        name = signal.Signals(signum).name
        threading.Thread(target=_ask_station_to_stop, args=(outbox, name), daemon=True).start()

    signal.signal(signal.SIGINT, stop_requested)
    signal.signal(signal.SIGTERM, stop_requested)


def _ask_station_to_stop(outbox: _Outbox, signal_name: str) -> None:
    try:
        outbox.send(TableStopping(f"the simulated table received {signal_name}"))
    except (OSError, ValueError):
        os._exit(0)  # the station is gone: nothing to stop in order
    time.sleep(STOP_GRACE_S)
    os._exit(0)  # the station did not stop the table in time


def _start_dealer(spec: TableSpec, running: dict[str, Any], resume: Resume, screen: DealerScreen,
                  outbox: _Outbox, door: FaultDoor) -> SimulatedDealer:
    shoe = running["shoe"].simulator
    shuffler = running["shuffler"].simulator if "shuffler" in running else None
    pool = getattr(shuffler, "pool", None) if spec.options.equipment == "continuous" else None

    def press(button: str) -> bool:
        if button not in spec.pedal_buttons:
            return False
        outbox.send(PedalPress(button))
        return True

    dealer = SimulatedDealer(screen.post, spec.options, spec.script, shoe=shoe, post_burst=screen.post_burst,
                             press=press, shuffler=shuffler, pool=pool, start_afresh=screen.start_afresh,
                             gate=screen.gate, cautious=lambda: door.injected_within(CAUTIOUS_S),
                             chip_layout=running["chipreader"].simulator if "chipreader" in running else None)
    if pool is not None and resume.shoe_in_progress:
        # After a restart the simulated continuous shuffler starts full: the cards the journal
        # says are out of it come out of its pool and go back to the dealer, who returns them.
        for card in resume.out_cards:
            pool.remove(card)
        dealer.hand_back(list(resume.out_cards))
        shoe.attach_pool(pool)
    elif pool is not None:
        dealer.equipment.feed_from_the_shuffler()

    def report() -> None:
        dealer.stopped.wait()
        with contextlib.suppress(OSError, ValueError):  # the station is gone; nobody is left to tell
            outbox.send(DealerEnded(dealer.error))

    dealer.resume_round(list(resume.round_cards), resume.last_outcome, resume.shoes_dealt)
    dealer.resume_payouts(resume.confirm_payouts, resume.payouts_due)
    dealer.resume_chips(resume.chips_on, resume.chips_owed, resume.last_outcome, resume.state)
    dealer.start(resume.state, resume.expectation, resume.remaining, resume.cut_card_out)
    threading.Thread(target=report, name="sim-dealer-watch", daemon=True).start()
    return dealer
