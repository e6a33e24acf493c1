"""The one way a feature hears and feeds the core loop: :class:`LoopTap`.

A feature of the station (the floor feed and its anchors, the metrics, the meters, the
integrity monitor, the console, the publisher, an extension) used to reach the loop in one of
five ways: a subscription to outputs, a single ``on_commit`` slot, a single ``on_applied`` slot,
a listener appended to the projection, and notes. Two of those slots held one feature each,
so a second one replaced the first without a word. A tap has four ways to hear and two to
speak, each open to any number of features:

* :meth:`~LoopTap.subscribe`: the outputs of the kinds it names, as each input is applied;
* :meth:`~LoopTap.hear_records`: every record the loop takes from now on, each with the input
  it holds (None for the station's own records) and all its outputs, in journal order;
* :meth:`~LoopTap.hear_commits`: each journal commit, right after it (seconds it took, records
  in it, the last record's seq and hash): the anchors and the floor feed follow the tip so;
* :meth:`~LoopTap.hear_batches`: the end of each batch, once its inputs are applied, their
  outputs handed over and :attr:`~LoopTap.published` replaced (and after an output the loop
  gives between batches: the journal unwritable, writable again): a feature that shows a
  picture draws it once the batch's outputs are all in, never from half of them;
* :meth:`~LoopTap.post` an input, :meth:`~LoopTap.note` a record of the feature's own.

and three ways to read: :attr:`~LoopTap.published` (where the table stands, the snapshot the
loop replaces whole after each batch: any thread), :attr:`~LoopTap.journal` (where the journal
is and where it ends) and :meth:`~LoopTap.inspect` (the machine itself, on the loop's thread
only: a subscriber as it hears an output, or a feature attaching before the loop runs).

Everything heard is called on the loop's thread and must be quick and never raise (a
failure is logged and the loop goes on); a feature with work to do queues it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import structlog

from station.core.outputs import Output
from station.core.projection import ProjectedRecord
from station.core.snapshot import TableSnapshot
from station.core.verdicts import Done
from station.events import Event
from station.journal import JournalRecord

if TYPE_CHECKING:
    from station.core.machine import TableMachine

T = TypeVar("T")

log = structlog.get_logger("station.core")

#: Hears outputs, on the loop's thread.
Subscriber = Callable[[Output], None]
#: Hears every record the loop takes, with its input and outputs, on the loop's thread.
RecordHearer = Callable[[ProjectedRecord], None]
#: Hears every commit, right after it, on the loop's thread: (seconds the append took, records
#: in it, seq and hash of its last record).
CommitHook = Callable[[float, int, int, str], None]


class JournalEnd(Protocol):
    """What a feature may read of the journal the loop writes: where it is and where it ends
    (:class:`~station.journal.Journal` is one). History is read with
    :class:`~station.core.history.History`, never through the writer."""

    @property
    def path(self) -> Path: ...

    def head(self) -> tuple[int, str]:
        """The seq and hash of the newest record (0 and "" for an empty journal)."""
        ...

    def first_hash(self) -> str | None: ...

    def last(self) -> JournalRecord | None: ...

    def records(self, since_seq: int = 0) -> Iterator[JournalRecord]:
        """The live file's records after ``since_seq``."""
        ...

    def last_of_kind(self, kind: str, *, before: int | None = None) -> JournalRecord | None:
        """The newest record of one kind in the live file, or None."""
        ...


class LoopTap(Protocol):
    """What a feature may do with the core loop (:class:`~station.core.loop.CoreLoop` is one)."""

    @property
    def published(self) -> TableSnapshot:
        """Where the table stands after the last batch (any thread)."""
        ...

    @property
    def journal(self) -> JournalEnd: ...

    @property
    def journal_error(self) -> str | None:
        """Why the journal cannot be written, while it cannot (None: it can)."""
        ...

    def inspect(self, read: Callable[[TableMachine], T]) -> T:
        """``read`` the table's machine, on the loop's thread only (raises on any other)."""
        ...

    def subscribe(self, callback: Subscriber, kinds: tuple[type[Output], ...] | None = None) -> Callable[[], None]:
        """Hear the outputs of ``kinds`` (every output when None); returns the unsubscription."""
        ...

    def hear_records(self, hearer: RecordHearer) -> Callable[[], None]:
        """Hear every record taken from now on; returns the way to stop hearing them."""
        ...

    def hear_commits(self, hook: CommitHook) -> Callable[[], None]:
        """Hear every commit from now on; returns the way to stop hearing them."""
        ...

    def hear_batches(self, hook: Callable[[], None]) -> Callable[[], None]:
        """Hear the end of every batch from now on; returns the way to stop hearing them."""
        ...

    def post(self, event: Event, on_done: Done | None = None) -> None:
        """Queue an input (any thread): journaled, then applied, in order."""
        ...

    def note(self, kind: str, payload: dict[str, Any]) -> None:
        """Journal a record of the feature's own, in order with the inputs posted before it."""
        ...


class LoopTaps:
    """The hearers of one core loop, kept for it: who subscribed to which outputs, who hears
    records and commits. Each collection is replaced whole under a lock when someone starts or
    stops hearing, so the loop's thread reads them without one."""

    def __init__(self) -> None:
        self._taps_lock = threading.Lock()
        self._subscribers: tuple[tuple[Subscriber, tuple[type[Output], ...] | None], ...] = ()
        self._routes: dict[type[Output], list[Subscriber]] = {}  # replaced whole on (un)subscribe
        self._record_hearers: tuple[RecordHearer, ...] = ()
        self._commit_hooks: tuple[CommitHook, ...] = ()
        self._batch_hooks: tuple[Callable[[], None], ...] = ()

    def subscribe(self, callback: Subscriber, kinds: tuple[type[Output], ...] | None = None) -> Callable[[], None]:
        """Hear every output from now on, or only those of ``kinds``; returns a function that
        unsubscribes. A subscriber that names its kinds is not called for the rest (a table at
        full speed makes about twenty outputs a round, most of them of interest to one
        subscriber or none)."""
        entry = (callback, kinds)
        with self._taps_lock:
            self._subscribers, self._routes = (*self._subscribers, entry), {}

        def unsubscribe() -> None:
            with self._taps_lock:
                self._subscribers = tuple(e for e in self._subscribers if e is not entry)
                self._routes = {}

        return unsubscribe

    def hear_records(self, hearer: RecordHearer) -> Callable[[], None]:
        """Hear every record taken from now on, with its input and outputs."""
        return self._join("_record_hearers", hearer)

    def hear_commits(self, hook: CommitHook) -> Callable[[], None]:
        """Hear every commit from now on."""
        return self._join("_commit_hooks", hook)

    def hear_batches(self, hook: Callable[[], None]) -> Callable[[], None]:
        """Hear the end of every batch from now on (see the module's docstring)."""
        return self._join("_batch_hooks", hook)

    def _join(self, hearers: str, hearer: Any) -> Callable[[], None]:
        """Add ``hearer`` to the tuple named ``hearers`` (replaced whole); returns its removal."""
        with self._taps_lock:
            setattr(self, hearers, (*getattr(self, hearers), hearer))

        def stop() -> None:
            with self._taps_lock:
                setattr(self, hearers, tuple(h for h in getattr(self, hearers) if h is not hearer))

        return stop

    # --- the loop's side (its thread) ----------------------------------------------------------

    def _route(self, kind: type[Output]) -> list[Subscriber]:
        """The subscribers of outputs of type ``kind``, worked out once per type."""
        routes = self._routes
        route = routes.get(kind)
        if route is None:
            route = [callback for callback, kinds in self._subscribers if kinds is None or issubclass(kind, kinds)]
            routes[kind] = route
        return route

    def _tell_commit(self, started: float, count: int, last: JournalRecord) -> None:
        """Tell the commit hooks of a commit that began at ``started`` (perf_counter)."""
        for hook in self._commit_hooks:
            _safely("core.commit_hook_failed", hook, time.perf_counter() - started, count, last.seq, last.hash)

    def _tell_batch_end(self) -> None:
        """Tell the batch hooks that a batch's outputs are all handed over."""
        for hook in self._batch_hooks:
            _safely("core.batch_hook_failed", hook)

    def _heard(self, step: ProjectedRecord) -> tuple[Output, ...]:
        """Hand ``step`` to the record hearers; its outputs."""
        for hearer in self._record_hearers:
            _safely("core.record_hearer_failed", hearer, step)
        return step.outputs

    @staticmethod
    def _safely(failure: str, call: Callable[..., None], *args: Any) -> None:
        _safely(failure, call, *args)


def _safely(failure: str, call: Callable[..., None], *args: Any) -> None:
    """Call a hearer or a waiter's callback, which must never stop the loop: a failure is logged."""
    try:
        call(*args)
    except Exception:
        log.exception(failure)
