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

What arrives from outside is contained here. An event the journal refuses to store (text that
is not valid Unicode, say) is refused on its own, with a journaled note of the refusal, and the
rest of its batch goes on. When the journal cannot be written at all (the disk is full), nothing
is applied: the loop says so once (:class:`~station.core.outputs.JournalUnwritable`), keeps the
batch, keeps its heartbeat (the station is alive and waiting), tries again every
``JOURNAL_RETRY_S`` and goes on by itself once the write succeeds. An exception while applying
an event latches the table into an irregularity (:func:`~station.core.replay.apply_safely`).

Whoever posts an event may ask to hear what became of it (:meth:`CoreLoop.post` with
``on_done``): :class:`Verdict` says whether it was applied or refused, with the rule's reason.

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
from dataclasses import dataclass
from typing import Any

import structlog

from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.core.outputs import (
    DeviceFaulted,
    ExpectationChanged,
    IrregularityRaised,
    JournalUnwritable,
    JournalWritable,
    Output,
    Refused,
    StateChanged,
)
from station.core.queues import take_waiting
from station.core.replay import CoreReplayError, apply_safely, replay
from station.events import Event, Timer, event_to_dict
from station.journal import Journal, JournalError, RecordError
from station.journal.store import check_record

__all__ = ["CommitHook", "CoreLoop", "CoreReplayError", "Subscriber", "Verdict"]

#: The kind of the journal record noting an input that could not be journaled itself.
UNJOURNALABLE_INPUT = "UnjournalableInput"
#: Seconds between attempts to write a journal that could not be written.
JOURNAL_RETRY_S = 1.0

log = structlog.get_logger("station.core")

Subscriber = Callable[[Output], None]
#: Told of every commit on the loop's thread, right after it: (seconds the append took, records
#: in it, seq and hash of its last record). It must be quick and must not raise (anchors,
#: metrics and the floor feed's wake-up use it).
CommitHook = Callable[[float, int, int, str], None]

#: How often the loop looks for more events while it gathers a batch (see ``CoreLoop._gather``).
GATHER_SLICE_S = 0.0005


@dataclass(frozen=True)
class Verdict:
    """What became of one posted event: applied, or refused with the reason a person reads."""

    applied: bool
    reason: str = ""
    outputs: tuple[Output, ...] = ()


Done = Callable[[Verdict], None]


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
        self._unwritable_since = 0.0
        self._thread: threading.Thread | None = None
        self.failures = 0  # events whose application raised (each latched an irregularity)
        self.unjournalable = 0  # events refused because the journal could not store them
        self.journal_error: str | None = None  # why the journal cannot be written, while it cannot
        self._waiters: dict[int, Done] = {}  # id(event) -> who waits for its verdict
        self.skipped_records = 0  # journal records that are not input events
        self.on_commit: CommitHook | None = None
        started = time.perf_counter()
        self.replayed = self._replay()
        self.replay_seconds = time.perf_counter() - started
        self.machine.go_live()
        self._sync_timer()
        log.info("core.replayed", events=self.replayed, seconds=round(self.replay_seconds, 3),
                 state=self.machine.state, expectation=self.machine.expectation)

    # --- inputs and outputs -------------------------------------------------------------

    def post(self, event: Event, on_done: Done | None = None) -> None:
        """Queue an input event (any thread). It is journaled, then applied, in order.

        ``on_done`` is called on the loop's thread with the event's :class:`Verdict` once it
        has been applied or refused; it must not block (it is usually a waiting thread's
        wake-up)."""
        if not isinstance(event, Event):
            raise TypeError(f"only station events may be posted, not {type(event).__name__}")
        if on_done is not None:
            self._waiters[id(event)] = on_done
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
        # Journal first: nothing of the batch is applied before it is on disk.
        items = [(event.kind, event_to_dict(event)) for event in batch]
        records = self._journal_batch(batch, items)
        if records is None:
            return  # stopping while the journal could not be written: nothing was applied
        waiters = self._waiters
        for event, record in zip(batch, records, strict=True):
            self._apply(event, seq=record.seq)
            outputs = self.machine.take_outputs()
            self._deliver(outputs)
            if waiters:
                done = waiters.pop(id(event), None)
                if done is not None:
                    self._tell(done, _verdict(event, outputs))
        self._sync_timer()
        self._backlog = not self._queue.empty()

    def _journal_batch(self, batch: list[Event], items: list[tuple[str, dict[str, Any]]]) -> list[Any] | None:
        """Append the batch, after taking out what the journal cannot store; while the journal
        cannot be written, wait and retry. None only when asked to stop meanwhile."""
        while True:
            started = time.perf_counter()
            try:
                records = self.journal.append_many(items)
            except RecordError:
                self._refuse_unjournalable(batch, items)
                continue
            except JournalError as exc:
                if not self._wait_for_journal(str(exc)):
                    return None
                continue
            if self.on_commit is not None and records:
                self._committed(time.perf_counter() - started, len(records), records[-1])
            if self.journal_error is not None:
                self._journal_back()
            return records

    def _committed(self, seconds: float, count: int, last: Any) -> None:
        assert self.on_commit is not None
        try:
            self.on_commit(seconds, count, last.seq, last.hash)
        except Exception:
            log.exception("core.commit_hook_failed")

    def _refuse_unjournalable(self, batch: list[Event], items: list[tuple[str, dict[str, Any]]]) -> None:
        """Take out of ``batch`` (in place) each event the journal cannot store, refusing it with
        its reason; a note of the refusal (which the journal can store) takes its place."""
        for index in range(len(batch) - 1, -1, -1):
            event, (kind, payload) = batch[index], items[index]
            try:
                check_record(kind, payload)
            except RecordError as exc:
                reason = f"cannot be journaled: {exc}"
                self.unjournalable += 1
                log.warning("core.input_refused", input=kind, reason=reason)
                del batch[index], items[index]
                refused = Refused(kind, reason)
                self._deliver([refused])
                done = self._waiters.pop(id(event), None)
                if done is not None:
                    self._tell(done, Verdict(False, reason, (refused,)))
                # Journaled on its own: it has no place in the batch of events (replay skips it).
                self._append_note(UNJOURNALABLE_INPUT, {"kind": kind, "reason": reason})

    def _append_note(self, kind: str, payload: dict[str, Any]) -> None:
        while True:
            started = time.perf_counter()
            try:
                record = self.journal.append(kind, payload)
                if self.on_commit is not None:
                    self._committed(time.perf_counter() - started, 1, record)
                return
            except JournalError as exc:
                if not self._wait_for_journal(str(exc)):
                    return

    def _wait_for_journal(self, reason: str) -> bool:
        """The journal cannot be written: say so (once per outage), wait, and let the caller
        retry. Returns False when asked to stop meanwhile."""
        if self.journal_error is None:
            self.journal_error = reason
            self._unwritable_since = time.monotonic()
            log.error("core.journal_unwritable", reason=reason)
            self._deliver([JournalUnwritable(reason)])
        if self._heartbeat is not None:
            self._heartbeat()
        return not self._stop.wait(JOURNAL_RETRY_S)

    def _journal_back(self) -> None:
        waited = time.monotonic() - self._unwritable_since
        self.journal_error = None
        log.info("core.journal_writable", waited_s=round(waited, 1))
        self._deliver([JournalWritable(round(waited, 1))])

    @staticmethod
    def _tell(done: Done, verdict: Verdict) -> None:
        try:
            done(verdict)
        except Exception:
            log.exception("core.verdict_callback_failed")

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


def _verdict(event: Event, outputs: list[Output]) -> Verdict:
    """Applied, unless the machine refused the event (a refusal of this event's kind)."""
    for output in outputs:
        if isinstance(output, Refused) and output.what == event.kind:
            return Verdict(False, output.reason, tuple(outputs))
    return Verdict(True, "", tuple(outputs))
