"""The core loop: one queue in, journal first, then the machine, then the subscribers.

Everything that changes the table's state is a typed event posted with :meth:`CoreLoop.post`
(thread-safe: drivers, the control socket and the dealer's buttons post). On its own thread:

1. drains what is queued (up to ``batch_limit`` events),
2. appends the batch to the journal in one transaction (group commit, one fsync),
3. only then applies each event to the :class:`~station.core.machine.TableMachine`,
4. hands each output to the subscribers.

A crash between 2 and 3 loses nothing: on open the loop replays the journal through the
projection (:mod:`station.core.projection`) before anything else (replay-on-open), from the
newest checkpoint of the projection (:mod:`station.core.checkpoints`), and the replay applies
the journaled but unapplied events. The loop writes those checkpoints itself: at every shoe
end, after at most ``EVERY_RECORDS`` records, and on opening a journal whose newest checkpoint
is further back than that; so a restart costs the same on the table's three-hundredth day as
on its first. The outputs of that replay are the same the live run gave, and the loop hands
none of them to its subscribers: a subscriber never hears an output twice and no command
reaches a device before replay is complete (after the replay :meth:`CoreLoop.announce` says
where the table stands). Settlement is part of the machine's state, so replay never pays twice.

When the table is busy, the loop gathers a little before it writes: if events arrived while it
was processing the last batch (a backlog), it waits up to ``commit_window`` for more to join the
next batch. Every fsync costs the same whatever the batch holds, so under a burst (a dealer at
full speed, a shoe emptying its buffer after a reconnection) fewer, fuller batches keep the
journal ahead. When the loop has caught up, an event is written at once: at a dealer's pace, and
whenever someone waits for the station's answer (a burn card, a confirmed cut), nothing waits
for a window nobody else will join.

What arrives from outside is contained here. An event the journal refuses to store (text that is
not valid Unicode, say) is refused on its own, with a journaled note of the refusal; the rest of
its batch goes on. When the journal cannot be written at all (the disk is full), nothing is
applied: the loop says so once (:class:`~station.core.outputs.JournalUnwritable`), keeps the batch
and its heartbeat, tries again every ``JOURNAL_RETRY_S`` and goes on once the write succeeds. An
exception while applying an event latches an irregularity (:func:`~station.core.projection.apply_safely`).

Whoever posts an event may hear what became of it (:meth:`CoreLoop.post` with ``on_done``):
a :class:`Verdict`, applied or refused with the rule's reason.

Timers live on the loop, not on threads: the machine says which timer it wants
(:meth:`TableMachine.wanted_timer`), the loop notes its due time on a monotonic clock and then
posts a :class:`~station.events.Timer` event, journaled like any other.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import structlog

from station.core.checkpoints import (
    CHECKPOINT,
    EVERY_RECORDS,
    checkpoint_payload,
)
from station.core.history import History
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
    ShoeEnded,
    StateChanged,
)
from station.core.projection import UNJOURNALABLE_INPUT, CoreReplayError
from station.core.queues import take_waiting
from station.core.snapshot import Snapshots, TableSnapshot
from station.core.tap import CommitHook, LoopTaps, Subscriber
from station.core.verdicts import Done, Note, Verdict, verdict_of
from station.event_codec import event_to_dict
from station.events import Event, Timer
from station.journal import Journal, JournalError, JournalRecord, RecordError
from station.journal.store import check_record

__all__ = ["UNJOURNALABLE_INPUT", "CommitHook", "CoreLoop", "CoreReplayError", "Subscriber", "Verdict"]
T = TypeVar("T")

#: Seconds between attempts to write a journal that could not be written.
JOURNAL_RETRY_S = 1.0

log = structlog.get_logger("station.core")

#: How often the loop looks for more events while it gathers a batch (see ``CoreLoop._gather``).
GATHER_SLICE_S = 0.0005


class CoreLoop(LoopTaps):
    """The single owner of the table's state machine and of the journal's writing end.

    ``journal`` is an open :class:`~station.journal.Journal` or a path to one. Opening the loop
    replays the journal (``replayed`` says how many events); then call :meth:`run` (or :meth:`start`
    for a thread of its own), or :meth:`run_pending` to process what is queued now (tests, tools).
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
        checkpoint_every: int = EVERY_RECORDS,
    ) -> None:
        super().__init__()  # the features' taps (station/core/tap.py)
        self.journal = journal if isinstance(journal, Journal) else Journal(journal)
        self._checkpoint_every = max(1, checkpoint_every)
        started = time.perf_counter()
        # The one reader of history (station/core/history.py), under its policy: the newest
        # usable checkpoint of the live file, else the whole history across the archives.
        history = History.resumed(self.journal.path, options)
        self.projection = history.projection
        self.machine: TableMachine = self.projection.machine
        self.checkpoint_seq = history.checkpoint_seq  # the newest checkpoint's record (0: none)
        self._shoe_ended = False  # a batch ended the shoe: checkpoint after it
        self._clock = clock
        self._batch_limit = max(1, batch_limit)
        self._commit_window = max(0.0, commit_window)
        self._backlog = False  # events were waiting when the last batch was done
        self._heartbeat = heartbeat
        # queue.Queue, not SimpleQueue: see station.core.queues.
        self._queue: queue.Queue[Event | Note] = queue.Queue()
        self._timer: tuple[str, float] | None = None  # (name, due on the clock)
        self._fired = ""  # the last timer posted: never armed again
        self._stop = threading.Event()
        self._unwritable_since = 0.0
        self._thread: threading.Thread | None = None
        self.unjournalable = 0  # events refused because the journal could not store them
        self.journal_error: str | None = None  # why the journal cannot be written, while it cannot
        self._waiters: dict[int, Done] = {}  # id(event) -> who waits for its verdict
        applied_before = self.projection.applied
        history.replay()
        self.replayed = self.projection.applied - applied_before  # inputs applied, not records read
        self.replay_seconds = time.perf_counter() - started
        self._owner = threading.get_ident()  # the thread that may touch the machine (:meth:`inspect`)
        self._snapshots = Snapshots()
        #: Where the table stands, for every other thread: replaced whole after each batch.
        self.published: TableSnapshot = self._snapshots.take(self.machine, self.projection.seq)
        self._sync_timer()
        log.info("core.replayed", events=self.replayed, seconds=round(self.replay_seconds, 3),
                 from_checkpoint=self.checkpoint_seq or None, state=self.machine.state,
                 expectation=self.machine.expectation)
        if self.projection.seq - self.checkpoint_seq >= self._checkpoint_every:
            self._checkpoint("opened")  # an old journal, or a long way since its last checkpoint

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

    def note(self, kind: str, payload: dict[str, Any]) -> None:
        """Journal a record of the station's own (derived data, not an input: the projection
        passes over it), in order with every input posted before it (any thread). The
        integrity monitor journals its checkpoints this way, after the alerts it posted."""
        self._queue.put(Note(kind, payload))

    def write_own(self, kind: str, payload: dict[str, Any]) -> None:
        """A :meth:`note` journaled now, on the caller's thread, before the loop runs (the
        start-up's configuration and software records): the projection takes it as a replay
        will, so no checkpoint after it differs from ``verify --deep``'s."""
        assert self._thread is None, "write_own is for start-up, before the loop's thread runs"
        self._process([Note(kind, payload)])

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
        self._tell_batch_end()

    # --- state --------------------------------------------------------------------------

    @property
    def state(self) -> str:
        return self.machine.state

    @property
    def failures(self) -> int:
        """Events whose application raised (each latched an irregularity), replay included."""
        return self.projection.failures

    @property
    def expectation(self) -> str:
        return self.machine.announced_expectation

    def snapshot(self) -> dict[str, Any]:
        return self.machine.snapshot()

    def inspect(self, read: Callable[[TableMachine], T]) -> T:
        """``read(machine)`` on the thread that owns the machine (the one running the loop, or
        before it runs the one that opened it): any other thread reads :attr:`published`."""
        if threading.get_ident() != self._owner:
            raise RuntimeError("the table's machine is read on the core loop's thread only: read loop.published")
        return read(self.machine)

    # --- running ------------------------------------------------------------------------

    def run_pending(self) -> int:
        """Process every event queued now (and any timer now due); returns how many inputs."""
        done = 0
        while True:
            self._fire_due_timer()
            batch = self._drain(block=False)
            if not batch:
                return done
            done += self._process(batch)

    def run(self, poll_seconds: float = 0.25) -> None:
        """Process events until :meth:`stop`; calls ``heartbeat`` from this loop when healthy."""
        self._owner = threading.get_ident()
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

    def _drain(self, *, block: bool, timeout: float | None = None) -> list[Event | Note]:
        batch: list[Event | Note] = []
        if block:
            try:
                batch.append(self._queue.get(timeout=timeout))
            except queue.Empty:
                return batch
        take_waiting(self._queue, batch, self._batch_limit)
        if batch and self._commit_window:
            self._gather(batch)
        return batch

    def _gather(self, batch: list[Event | Note]) -> None:
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

    def _process(self, batch: list[Event | Note]) -> int:
        """Journal and apply a batch; returns how many of it were inputs."""
        # Journal first: nothing of the batch is applied before it is on disk.
        items = [(item.kind, item.payload if isinstance(item, Note) else event_to_dict(item)) for item in batch]
        records = self._journal_batch(batch, items)
        if records is None:
            return 0  # stopping while the journal could not be written: nothing was applied
        waiters = self._waiters
        take, heard = self.projection.take_event, self._heard
        inputs = 0
        for event, record in zip(batch, records, strict=True):
            if isinstance(event, Note):
                self._deliver(heard(self.projection.take(record)))
                continue
            inputs += 1
            outputs = heard(take(event, record))
            self._deliver(outputs)
            if waiters:
                done = waiters.pop(id(event), None)
                if done is not None:
                    self._safely("core.verdict_callback_failed", done, verdict_of(event, outputs))
        self._sync_timer()
        self.published = self._snapshots.take(self.machine, self.projection.seq)
        self._tell_batch_end()
        if self._shoe_ended:
            self._shoe_ended = False
            self._checkpoint("shoe_end")
        elif self.projection.seq - self.checkpoint_seq >= self._checkpoint_every:
            self._checkpoint("records")
        self._backlog = not self._queue.empty()
        return inputs

    def _checkpoint(self, reason: str) -> None:
        """Journal the projection's state as it stands (derived data: replay skips the record,
        and ``verify --deep`` checks it). A journal that cannot take it now gets one later."""
        payload = checkpoint_payload(self.projection, reason)
        started = time.perf_counter()
        try:
            record = self.journal.append(CHECKPOINT, payload)
        except JournalError as exc:
            log.warning("core.checkpoint_not_written", reason=str(exc))
            return
        self._tell_commit(started, 1, record)
        self.checkpoint_seq = record.seq
        self._deliver(self._heard(self.projection.take(record)))  # in step with a replay, which takes it too

    def _journal_batch(self, batch: list[Event | Note], items: list[tuple[str, dict[str, Any]]]
                       ) -> list[Any] | None:
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
            if records:
                self._tell_commit(started, len(records), records[-1])
            if self.journal_error is not None:
                self._journal_back()
            return records

    def _refuse_unjournalable(self, batch: list[Event | Note], items: list[tuple[str, dict[str, Any]]]) -> None:
        """Take out of ``batch`` (in place) each event the journal cannot store, refusing it with
        its reason; a note of the refusal (which the journal can store) takes its place."""
        for index in range(len(batch) - 1, -1, -1):
            event, (kind, payload) = batch[index], items[index]
            try:
                check_record(kind, payload)
            except RecordError as exc:
                reason = f"cannot be journaled: {exc}"
                if isinstance(event, Note):  # the station's own: a defect to log, not an input to refuse
                    log.error("core.note_not_journalable", kind=kind, reason=reason)
                    del batch[index], items[index]
                    continue
                self.unjournalable += 1
                log.warning("core.input_refused", input=kind, reason=reason)
                del batch[index], items[index]
                # Journaled on its own: it has no place in the batch of events. Its record
                # gives the refusal, now and in every replay.
                record = self._append_note(UNJOURNALABLE_INPUT, {"kind": kind, "reason": reason})
                outputs = self._heard(self.projection.take(record)) if record is not None else (Refused(kind, reason),)
                self._deliver(outputs)
                done = self._waiters.pop(id(event), None)
                if done is not None:
                    self._safely("core.verdict_callback_failed", done, Verdict(False, reason, tuple(outputs)))

    def _append_note(self, kind: str, payload: dict[str, Any]) -> JournalRecord | None:
        """Journal one record of the station's own; None only when asked to stop meanwhile."""
        while True:
            started = time.perf_counter()
            try:
                record = self.journal.append(kind, payload)
            except JournalError as exc:
                if not self._wait_for_journal(str(exc)):
                    return None
                continue
            self._tell_commit(started, 1, record)
            return record

    def _wait_for_journal(self, reason: str) -> bool:
        """The journal cannot be written: say so (once per outage), wait, and let the caller
        retry. Returns False when asked to stop meanwhile."""
        if self.journal_error is None:
            self.journal_error = reason
            self._unwritable_since = time.monotonic()
            log.error("core.journal_unwritable", reason=reason)
            self._deliver([JournalUnwritable(reason)])
            self._tell_batch_end()
        if self._heartbeat is not None:
            self._heartbeat()
        return not self._stop.wait(JOURNAL_RETRY_S)

    def _journal_back(self) -> None:
        waited = time.monotonic() - self._unwritable_since
        self.journal_error = None
        log.info("core.journal_writable", waited_s=round(waited, 1))
        self._deliver([JournalWritable(round(waited, 1))])
        self._tell_batch_end()

    def _deliver(self, outputs: Iterable[Output]) -> None:
        for output in outputs:
            if type(output) is ShoeEnded:
                self._shoe_ended = True
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

