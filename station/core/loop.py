"""The core loop: one queue in, journal first, then the machine, then the subscribers.

Everything that changes the table's state is a typed event posted with :meth:`CoreLoop.post`
(thread-safe: drivers get ``post`` as their ``emit`` sink; the control socket and the dealer's
buttons use it too). The loop, on its own single thread:

1. drains what is queued (up to ``batch_limit`` events),
2. appends the batch to the journal in one transaction (group commit, one fsync),
3. only then applies each event to the :class:`~station.core.machine.TableMachine`,
4. hands each output to the subscribers.

A crash between 2 and 3 loses nothing: on open the loop replays the whole journal into a
fresh machine before anything else (replay-on-open), and the replay applies the journaled but
unapplied events. Outputs are not produced while replaying, so a subscriber never hears an
output twice and no command reaches a device before replay is complete. Settlement is part of
the machine's state, so replay never pays twice either.

When the table is busy, the loop gathers a little before it writes: if events arrived while
it was processing the last batch (a backlog: more are coming back to back), it waits up to
``commit_window`` for more events to join the next batch. Every fsync costs the same whatever
the batch holds, so under a burst (a dealer at full speed, a shoe emptying its buffer after a
reconnection) fewer, fuller batches keep the journal ahead. When the loop has caught up, an
event is written at once: at a dealer's pace, and whenever someone is waiting for the station's
answer to what they just did (a burn card, a confirmed cut), nothing waits for a window nobody
else will join.

Timers live on the loop, not on threads: the machine says which timer it wants
(:meth:`TableMachine.wanted_timer`), the loop notes its due time on a monotonic clock and, when
it is due, posts a :class:`~station.events.Timer` event, which is journaled like any other.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import structlog

from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.core.outputs import DeviceFaulted, ExpectationChanged, IrregularityRaised, Output, StateChanged
from station.core.queues import take_waiting
from station.core.replay import CoreReplayError, apply_safely, replay
from station.events import Event, Timer, event_to_dict
from station.journal import Journal

__all__ = ["CoreLoop", "CoreReplayError", "Subscriber"]

log = structlog.get_logger("station.core")

Subscriber = Callable[[Output], None]

#: How often the loop looks for more events while it gathers a batch (see ``CoreLoop._gather``).
GATHER_SLICE_S = 0.0005


class CoreLoop:
    """The single owner of the table's state machine and of the journal's writing end.

    ``journal`` is an open :class:`~station.journal.Journal` or a path to one. Opening the
    loop replays the journal (``replayed`` says how many events); then call :meth:`run` (or
    :meth:`start` for a thread of its own), or :meth:`run_pending` to process what is queued
    now (tests, tools).
    """

    def __init__(
        self,
        journal: Journal | str | os.PathLike[str],
        options: CoreOptions | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        batch_limit: int = 64,
        commit_window: float = 0.002,
        heartbeat: Callable[[], None] | None = None,
        on_round_closed: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.journal = journal if isinstance(journal, Journal) else Journal(journal)
        self.machine = TableMachine(options)
        self.machine.on_round_closed = on_round_closed
        self._clock = clock
        self._batch_limit = max(1, batch_limit)
        self._commit_window = max(0.0, commit_window)
        self._backlog = False  # events were waiting when the last batch was done
        self._heartbeat = heartbeat
        # queue.Queue, not SimpleQueue: see station.core.queues.
        self._queue: queue.Queue[Event] = queue.Queue()
        self._subscribers: list[tuple[Subscriber, tuple[type[Output], ...] | None]] = []
        self._routes: dict[type[Output], list[Subscriber]] = {}  # replaced whole on (un)subscribe
        self._lock = threading.Lock()
        self._timer: tuple[str, float] | None = None  # (name, due on the clock)
        self._fired = ""  # the last timer posted: never armed again
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.failures = 0  # events whose application raised (logged; the table goes on)
        self.skipped_records = 0  # journal records that are not input events
        started = time.perf_counter()
        self.replayed = self._replay()
        self.replay_seconds = time.perf_counter() - started
        self.machine.go_live()
        self._sync_timer()
        log.info("core.replayed", events=self.replayed, seconds=round(self.replay_seconds, 3),
                 state=self.machine.state, expectation=self.machine.expectation)

    # --- inputs and outputs -------------------------------------------------------------

    def post(self, event: Event) -> None:
        """Queue an input event (any thread). It is journaled, then applied, in order."""
        if not isinstance(event, Event):
            raise TypeError(f"only station events may be posted, not {type(event).__name__}")
        self._queue.put(event)

    def subscribe(self, callback: Subscriber, kinds: tuple[type[Output], ...] | None = None) -> Callable[[], None]:
        """Hear every output from now on, or only those of ``kinds``; returns a function that
        unsubscribes. A subscriber that names its kinds is not called for the rest (a table at
        full speed makes about twenty outputs a round, most of them of interest to one
        subscriber or none)."""
        entry = (callback, kinds)
        with self._lock:
            self._subscribers.append(entry)
            self._routes = {}

        def unsubscribe() -> None:
            with self._lock:
                if entry in self._subscribers:
                    self._subscribers.remove(entry)
                    self._routes = {}

        return unsubscribe

    def _route(self, kind: type[Output]) -> list[Subscriber]:
        """The subscribers of outputs of type ``kind``, worked out once per type."""
        routes = self._routes
        route = routes.get(kind)
        if route is None:
            with self._lock:
                route = [callback for callback, kinds in self._subscribers if kinds is None or issubclass(kind, kinds)]
            routes[kind] = route
        return route

    def announce(self) -> None:
        """Publish the present state, expectation, devices still faulted and any active
        irregularity (after a restart the display and scoreboard learn where the table is; an
        irregularity or fault active before the restart is shown again)."""
        m = self.machine
        outputs: list[Output] = [StateChanged(m.state, m.state), ExpectationChanged(m.expectation)]
        outputs.extend(DeviceFaulted(device, reason) for device, reason in sorted(m.faulted.items()))
        if m.irregularity is not None:
            i = m.irregularity
            outputs.append(IrregularityRaised(i.ident, i.reason, i.detail, i.round_id, i.decisions))
        self._deliver(outputs)

    # --- state --------------------------------------------------------------------------

    @property
    def state(self) -> str:
        return self.machine.state

    @property
    def expectation(self) -> str:
        return self.machine.announced_expectation

    def snapshot(self) -> dict[str, Any]:
        return self.machine.snapshot()

    # --- running ------------------------------------------------------------------------

    def run_pending(self) -> int:
        """Process every event queued now (and any timer now due); returns how many."""
        done = 0
        while True:
            self._fire_due_timer()
            batch = self._drain(block=False)
            if not batch:
                return done
            self._process(batch)
            done += len(batch)

    def run(self, poll_seconds: float = 0.25) -> None:
        """Process events until :meth:`stop`; calls ``heartbeat`` from this loop when healthy."""
        self._stop.clear()
        while not self._stop.is_set():
            self._fire_due_timer()
            batch = self._drain(block=True, timeout=self._wait_seconds(poll_seconds))
            if batch:
                self._process(batch)
            if self._heartbeat is not None:
                self._heartbeat()

    def start(self) -> threading.Thread:
        """Run the loop on its own thread (the only thread that touches the machine)."""
        if self._thread is not None and self._thread.is_alive():
            return self._thread
        self._thread = threading.Thread(target=self.run, name="core-loop", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self, timeout: float | None = 5.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
            self._thread = None

    def close(self) -> None:
        """Stop, process nothing more, and close the journal."""
        self.stop()
        self.journal.close()

    def __enter__(self) -> CoreLoop:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- internals ----------------------------------------------------------------------

    def _replay(self) -> int:
        applied, self.skipped_records, self.failures = replay(self.machine, self.journal.records())
        return applied

    def _drain(self, *, block: bool, timeout: float | None = None) -> list[Event]:
        batch: list[Event] = []
        if block:
            try:
                batch.append(self._queue.get(timeout=timeout))
            except queue.Empty:
                return batch
        take_waiting(self._queue, batch, self._batch_limit)
        if batch and self._commit_window:
            self._gather(batch)
        return batch

    def _gather(self, batch: list[Event]) -> None:
        """Busy table: let events arriving within the commit window join this batch.

        Only after a backlog (see the module docstring). The loop looks at the queue every
        ``GATHER_SLICE_S`` rather than waiting on it: a wait on the queue would wake this
        thread for every event posted, taking the interpreter from the thread that posted it
        (a device's reader, which has yet to acknowledge the event)."""
        if not self._backlog:
            return
        deadline = time.perf_counter() + self._commit_window
        while len(take_waiting(self._queue, batch, self._batch_limit)) < self._batch_limit:
            left = deadline - time.perf_counter()
            if left <= 0:
                return
            time.sleep(min(left, GATHER_SLICE_S))

    def _process(self, batch: list[Event]) -> None:
        # Journal first: if this raises, nothing of the batch is applied.
        records = self.journal.append_many([(event.kind, event_to_dict(event)) for event in batch])
        for event, record in zip(batch, records, strict=True):
            self._apply(event, seq=record.seq)
            self._deliver(self.machine.take_outputs())
        self._sync_timer()
        self._backlog = not self._queue.empty()

    def _apply(self, event: Event, *, seq: int) -> None:
        if not apply_safely(self.machine, event, seq):
            self.failures += 1

    def _deliver(self, outputs: list[Output]) -> None:
        for output in outputs:
            for callback in self._route(type(output)):
                try:
                    callback(output)
                except Exception:
                    log.exception("core.subscriber_failed", output=output.kind)

    def _sync_timer(self) -> None:
        wanted = self.machine.wanted_timer()
        if wanted is None:
            self._timer = None
        elif wanted[0] != self._fired and (self._timer is None or self._timer[0] != wanted[0]):
            self._timer = (wanted[0], self._clock() + wanted[1])

    def _fire_due_timer(self) -> None:
        if self._timer is not None and self._clock() >= self._timer[1]:
            name = self._timer[0]
            self._timer = None
            self._fired = name
            self.post(Timer(name))

    def _wait_seconds(self, poll: float) -> float:
        if self._timer is None:
            return poll
        return max(0.0, min(poll, self._timer[1] - self._clock()))
