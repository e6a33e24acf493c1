"""Driver of the RFID chip reader under a table's layout (protocol: ``docs/protocols/chipreader.md``).

The reader numbers its antennas 1..N and reports the chips (8-byte UIDs) each one reads; which
spot an antenna is under is the station's configuration, not the driver's. Two things are the
driver's:

* **Never half a stack.** A report may come in parts; the driver hands a read on only when its
  last part is in (:class:`PartAssembler`). A set whose parts stop (the reader restarted, moved on
  to a newer round, lost the antenna) is discarded and counted, never emitted as a read, and
  :meth:`ChipReaderDriver.inventory` raises :class:`IncompleteRead` rather than answer with it.
* **The mode survives the reader.** A reader that restarts (``Boot``) has forgotten its mode, and
  one that was away may have restarted unseen; so after every ``Boot`` and every reconnection
  the driver sends the mode (and RF power) it was last given again, from a thread of its own (the
  link's reader thread must not wait on a command), and reads the antenna list again, so its
  faults are reported from what the reader says now (:class:`RepaintedDriver` says when: the
  same moments a board's picture must be painted again).

Continuous mode's ``AntennaChanged`` events become :class:`~station.chip_events.ChipsRead`;
``AntennaFault`` a ``DeviceFault`` (code ``antenna_fault``; once per fault, however often the
reader or its antenna list says it), and the ``AntennaRestored`` that leaves no antenna faulted a
``DeviceRecovered``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from drivers.codec import chipreader as wire
from drivers.codec.protocol import Ack, Boot, IdentityReport, Message
from drivers.devices.errors import DeviceError, DeviceProtocolError, DeviceRefused
from drivers.devices.repainted import RepaintedDriver
from station.chip_events import ChipsRead
from station.events import DeviceFault, DeviceRecovered

log = structlog.get_logger(__name__)

__all__ = ["AntennaInfo", "AntennaRead", "ChipReaderDriver", "ChipReaderInfo", "IncompleteRead", "PartAssembler"]

#: The continuous mode's period unless told (ms): a chip put down is reported within a quarter second.
DEFAULT_PERIOD_MS = 250
#: The fault code of a ``DeviceFault`` for an antenna (the reason names the antenna and the fault).
ANTENNA_FAULT = "antenna_fault"
#: After a re-application that failed for want of an answer, the next try comes this much later (s).
RETRY_S = 0.5


class IncompleteRead(DeviceError):
    """The parts of a round's report stopped before its last one: there is no read, only half a stack."""


@dataclass(frozen=True)
class AntennaRead:
    """What one round of one antenna read: ``uids`` (16 uppercase hex digits each, sorted, each
    once), the slots where chips answered together unread (``collisions``), and the parts its
    report came in."""

    antenna: int
    round_no: int
    uids: tuple[str, ...]
    collisions: int = 0
    parts: int = 1


@dataclass(frozen=True)
class AntennaInfo:
    """One antenna as the reader lists it; ``fault`` is ``""`` when it reads, else what is wrong
    (``disconnected``, ``short_circuit``, ``detuned``)."""

    antenna: int
    fault: str = ""

    @property
    def ok(self) -> bool:
        return not self.fault


@dataclass(frozen=True)
class ChipReaderInfo:
    """What the reader says of itself: its mode (``period_ms`` 0 when not continuous), RF power
    (percent), inventory rounds since power-up, and the antennas that cannot read."""

    continuous: bool
    period_ms: int
    rf_power: int
    rounds: int
    faulted: tuple[int, ...]


def read_of(parts: list[wire.ReportPart]) -> AntennaRead:
    """The read the parts of one round's report make (the caller made sure they are all there)."""
    uids = sorted({uid for part in parts for uid in part.uids})
    last = parts[-1]
    return AntennaRead(last.antenna, last.round_no, tuple(map(wire.uid_text, uids)), last.collisions, len(parts))


class PartAssembler:
    """Puts each antenna's report parts together into whole reads, one round at a time.

    Parts come in order (events are stop-and-wait), so a part that is not the next one of the
    round being put together means that round's report stopped: it is dropped, and so is a part
    that does not begin a round when none is under way. Only a ``complete`` part ends a read."""

    def __init__(self) -> None:
        self._pending: dict[int, list[wire.ReportPart]] = {}
        self._count_lock = threading.Lock()  # the link's reader and a caller's inventory both count
        self._discarded = 0

    @property
    def discarded(self) -> int:
        """Sets dropped before their last part (events and requested rounds): reads that never were."""
        return self._discarded

    def count_discarded(self) -> None:
        with self._count_lock:
            self._discarded += 1

    def add(self, part: wire.ReportPart) -> AntennaRead | None:
        """The whole read if ``part`` completes one, else None."""
        pending = self._pending.pop(part.antenna, None)
        if part.part == 1:
            if pending:
                self._drop(pending, f"round {part.round_no} began before its last part")
            pending = [part]
        elif pending and pending[-1].round_no == part.round_no and pending[-1].part + 1 == part.part:
            pending.append(part)
        else:
            self._drop(pending or [part], f"part {part.part} of round {part.round_no} is not the next one expected")
            return None
        if part.complete:
            return read_of(pending)
        self._pending[part.antenna] = pending
        return None

    def drop(self, antenna: int | None, why: str) -> None:
        """Drop what is under way for ``antenna`` (every antenna for None): the reader cannot finish it."""
        for number in [antenna] if antenna is not None else list(self._pending):
            pending = self._pending.pop(number, None)
            if pending:
                self._drop(pending, why)

    def _drop(self, parts: list[wire.ReportPart], why: str) -> None:
        self.count_discarded()
        first = parts[0]
        log.warning("chip_read_discarded", antenna=first.antenna, round_no=first.round_no, parts=len(parts),
                    uids=sum(len(p.uids) for p in parts), why=why)


def _check_antenna(antenna: Any) -> None:
    if not isinstance(antenna, int) or isinstance(antenna, bool):
        raise TypeError(f"an antenna is a number from 1, not {antenna!r}")
    if not 1 <= antenna <= wire.MAX_ANTENNAS:
        raise ValueError(f"antennas are numbered 1 to {wire.MAX_ANTENNAS}, not {antenna}")


def _check_mode(continuous: Any, period_ms: Any) -> None:
    if not isinstance(continuous, bool):
        raise TypeError(f"continuous is True or False, not {continuous!r}")
    if not isinstance(period_ms, int) or isinstance(period_ms, bool):
        raise TypeError(f"the period is a whole number of milliseconds, not {period_ms!r}")
    if continuous and not wire.MIN_PERIOD_MS <= period_ms <= wire.MAX_PERIOD_MS:
        raise ValueError(f"the period is {wire.MIN_PERIOD_MS} to {wire.MAX_PERIOD_MS} ms, not {period_ms}")


class ChipReaderDriver(RepaintedDriver):
    """Reads chips by antenna on request (:meth:`inventory`) or continuously (:meth:`set_mode`:
    then emits :class:`~station.chip_events.ChipsRead` for every antenna whose set changed)."""

    PROTOCOL = "chipreader"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.parts = PartAssembler()
        # What the station asked for, sent again after a Boot or a reconnection (None: never set).
        self._apply_lock = threading.Lock()  # one of (what is wanted, its sending) at a time
        self._mode: tuple[bool, int] | None = None
        self._rf_power: int | None = None
        # The antennas the station was told are faulted, and a count of fault events taken, so an
        # antenna list asked for before an event came is not applied over it.
        self._fault_lock = threading.Lock()
        self._faulted: dict[int, str] = {}
        self._fault_events = 0
        # The re-sync (mode, power, antenna list) wanted, and under way, on the worker thread.
        self._sync = threading.Condition()
        self._sync_wanted = False
        self._syncing = False
        self._halt = threading.Event()
        self._worker: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self, wait_s: float | None = 5.0) -> bool:
        """As every driver; besides, once connected the antenna list is read (a fault the reader
        had before the station started is reported) and the mode set before start is sent."""
        if self._worker is None or not self._worker.is_alive():
            self._halt.clear()
            self._want_sync()
            self._worker = threading.Thread(target=self._resync_loop, name=f"{self.name}-resync", daemon=True)
            self._worker.start()
        return super().start(wait_s)

    def stop(self) -> None:
        self._halt.set()
        with self._sync:
            self._sync.notify_all()
        super().stop()  # a command the worker waits on ends now
        worker, self._worker = self._worker, None
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout=5)

    # -- commands -------------------------------------------------------------------------------

    def inventory(self, antenna: int) -> AntennaRead:
        """One inventory round on ``antenna`` now, its report's parts fetched and put together.

        Raises :class:`IncompleteRead` when the reader no longer has a part of it (it restarted,
        or began a newer round): half a stack is never a read. A faulted antenna is refused
        (:class:`~drivers.devices.errors.DeviceRefused`, ``hardware_fault``)."""
        _check_antenna(antenna)
        first = self._expect(self.link.request(wire.Inventory(antenna)), wire.InventoryReport)
        if (first.antenna, first.part) != (antenna, 1):
            raise DeviceProtocolError(f"Inventory({antenna}) answered by part {first.part} of antenna {first.antenna}")
        parts: list[wire.ReportPart] = [first]
        while not parts[-1].complete:
            number = len(parts) + 1
            try:
                answer = self.link.request(wire.InventoryPart(antenna, first.round_no, number))
            except DeviceRefused as exc:
                self.parts.count_discarded()
                raise IncompleteRead(f"{self.name}: round {first.round_no} of antenna {antenna} stopped after "
                                     f"{len(parts)} part(s): {exc}") from None
            part = self._expect(answer, wire.InventoryReport)
            if (part.antenna, part.round_no, part.part) != (antenna, first.round_no, number):
                self.parts.count_discarded()
                raise IncompleteRead(f"{self.name}: asked for part {number} of round {first.round_no} of antenna "
                                     f"{antenna}, got part {part.part} of round {part.round_no} of antenna "
                                     f"{part.antenna}")
            parts.append(part)
        return read_of(parts)

    def antennas(self) -> tuple[AntennaInfo, ...]:
        """Every antenna the reader has, in its order, and what is wrong with those that cannot read."""
        answer = self._expect(self.link.request(wire.GetAntennas()), wire.AntennaList)
        return tuple(AntennaInfo(a.antenna, "" if a.state is wire.AntennaState.OK else a.state.name.lower())
                     for a in answer.antennas)

    def set_mode(self, continuous: bool, period_ms: int = DEFAULT_PERIOD_MS) -> bool:
        """Continuous reading every ``period_ms`` (events), or only on request (``continuous`` False).

        The mode is kept and sent again after every ``Boot`` and reconnection. Returns whether
        the reader has it now; False when it is away (it gets it when it answers). A mode the
        reader refuses raises :class:`~drivers.devices.errors.DeviceRefused` and is not kept."""
        _check_mode(continuous, period_ms)
        mode = (continuous, period_ms if continuous else 0)
        with self._apply_lock:
            before, self._mode = self._mode, mode
            return self._apply(wire.SetMode(*mode), lambda: setattr(self, "_mode", before))

    def set_rf_power(self, level: int) -> bool:
        """The antennas' field strength, percent 1-100, kept and sent again as the mode is."""
        if not isinstance(level, int) or isinstance(level, bool) or not 1 <= level <= 100:
            raise ValueError(f"RF power is a percentage from 1 to 100, not {level!r}")
        with self._apply_lock:
            before, self._rf_power = self._rf_power, level
            return self._apply(wire.SetRfPower(level), lambda: setattr(self, "_rf_power", before))

    def status(self) -> ChipReaderInfo:
        a = self._expect(self.link.request(wire.ReaderGetStatus()), wire.ReaderStatus)
        return ChipReaderInfo(a.continuous, a.period_ms, a.rf_power, a.rounds, a.faulted)

    @property
    def wanted_mode(self) -> tuple[bool, int] | None:
        """The mode last given (continuous, period in ms), sent again after a Boot; None if never."""
        return self._mode

    def _apply(self, command: Message, undo: Callable[[], None]) -> bool:
        """Send ``command`` (under the apply lock); a refusal undoes what was kept and raises."""
        if not self.connected:
            self._want_sync()
            return False
        try:
            self._send(command)
        except DeviceRefused:
            undo()
            raise
        except DeviceError as exc:
            log.info("chipreader_setting_pending", device=self.name, command=command.describe(), reason=str(exc))
            self._want_sync()
            return False
        return True

    def _send(self, command: Message) -> None:
        answer = self.link.request(command)
        if not isinstance(answer, Ack):
            raise DeviceProtocolError(f"{command.WIRE_NAME} answered by {answer.WIRE_NAME}")

    # -- after a Boot or a reconnection ---------------------------------------------------------

    def wait_synced(self, timeout: float) -> bool:
        """Wait until the reader has been sent the mode and power it was given and its antenna list
        read, since it last connected or booted; False if that is still to do after ``timeout``
        (the reader is away, or not answering)."""
        with self._sync:
            return self._sync.wait_for(lambda: not self._sync_wanted and not self._syncing, timeout)

    def _want_sync(self) -> None:
        with self._sync:
            self._sync_wanted = True
            self._sync.notify_all()

    def _tell_repaint(self, reason: str) -> None:
        self._want_sync()
        super()._tell_repaint(reason)

    def _on_up(self, identity: IdentityReport) -> None:
        # The station hears DeviceRecovered now: what it was told of the antennas is void, and
        # the antenna list read next says again which of them are faulted.
        with self._fault_lock:
            self._faulted.clear()
            self._fault_events += 1
        super()._on_up(identity)

    def _resync_loop(self) -> None:
        while not self._halt.is_set():
            with self._sync:
                if not self._sync.wait_for(lambda: self._sync_wanted or self._halt.is_set(), 0.5):
                    continue
            if self._halt.is_set() or not self.link.wait_connected(0.5):
                continue
            with self._sync:
                self._sync_wanted, self._syncing = False, True
            try:
                self._resync()
            except DeviceRefused as exc:  # final: sending it again would be refused again
                log.warning("chipreader_resync_refused", device=self.name, reason=str(exc))
            except DeviceError as exc:
                if not self._halt.is_set():
                    log.info("chipreader_resync_failed", device=self.name, reason=str(exc))
                    self._want_sync()
                    self._halt.wait(RETRY_S)
            finally:
                with self._sync:
                    self._syncing = False
                    self._sync.notify_all()

    def _resync(self) -> None:
        """Send what the reader was given, power first (the first pass reads at the power wanted)."""
        with self._apply_lock:
            if self._rf_power is not None:
                self._send(wire.SetRfPower(self._rf_power))
            if self._mode is not None:
                self._send(wire.SetMode(*self._mode))
        self._sync_antennas()

    def _sync_antennas(self) -> None:
        """Read the antenna list and report the faults it shows that the station was not told of
        (and the recovery, if none is left). An antenna event that came while the list was asked
        for is newer than the list: then it is asked for again."""
        for _ in range(5):
            with self._fault_lock:
                seen = self._fault_events
            listed = self.antennas()
            with self._fault_lock:
                if seen != self._fault_events:
                    continue
                now = {a.antenna: a.fault for a in listed if not a.ok}
                had = bool(self._faulted)
                for antenna, fault in sorted(now.items()):
                    if antenna not in self._faulted:
                        self.emit(DeviceFault(self.name, f"antenna {antenna}: {fault}", ANTENNA_FAULT))
                self._faulted = now
                if had and not now:
                    self.emit(DeviceRecovered(self.name))
                return

    # -- events ---------------------------------------------------------------------------------

    def on_message(self, message: Message) -> None:
        match message:
            case wire.AntennaChanged():
                read = self.parts.add(message)
                if read is not None:
                    self.emit(ChipsRead(self.name, read.antenna, read.uids, read.round_no, read.collisions))
            case wire.AntennaFault(antenna=antenna, code=code, detail=detail):
                self.parts.drop(antenna, "the antenna faulted")
                name = code.name.lower()
                with self._fault_lock:
                    self._fault_events += 1
                    # Told already (by the antenna list read after a connection, or an earlier event)
                    # of this very fault: the station hears each fault once.
                    if self._faulted.get(antenna) != name:
                        self._faulted[antenna] = name
                        reason = f"antenna {antenna}: {name}" + (f" ({detail})" if detail else "")
                        self.emit(DeviceFault(self.name, reason, ANTENNA_FAULT))
            case wire.AntennaRestored(antenna=antenna):
                with self._fault_lock:
                    self._fault_events += 1
                    if self._faulted.pop(antenna, None) is not None and not self._faulted:
                        self.emit(DeviceRecovered(self.name))
            case Boot():
                self.parts.drop(None, "the reader restarted")
                super().on_message(message)
            case _:
                super().on_message(message)
