"""Keeping one device connected: open it, serve it until it is lost, report the outage once,
and open it again with capped exponential back-off, logging every attempt.

The serial link (:class:`~drivers.devices.link.DeviceLink`) and the USB pedals
(:class:`~drivers.devices.pedals.PedalDriver`) both run this loop; only how a device is
opened, served and closed differs, and that is the :class:`Connection` they hand it. So an
outage looks the same from every device: one ``DeviceFault`` (``on_down``) however many
attempts fail, a ``device_link_fault`` log line carrying the last frames, a
``reconnect_attempt`` line per failed attempt, and ``DeviceRecovered`` (``on_up``) once the
device has proved itself again (:meth:`ReconnectLoop.proven`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

import structlog

from drivers.devices.stats import DeviceStats

log = structlog.get_logger(__name__)

DRIVER_ERROR = "driver-error"
"""Outage code of an unexpected exception in the driver's own code (logged with its traceback)."""


@dataclass(frozen=True)
class Backoff:
    """Reconnect delays: ``initial_s``, times ``factor`` after each failure, at most ``cap_s``."""

    initial_s: float = 0.25
    factor: float = 2.0
    cap_s: float = 10.0

    def delays(self) -> Iterator[float]:
        delay = self.initial_s
        while True:
            yield delay
            delay = min(self.cap_s, delay * self.factor)


@dataclass(frozen=True)
class Outage:
    """Why a device is not usable: what ``DeviceFault`` says (``reason``) and its stable ``code``."""

    reason: str
    code: str


class Connection(Protocol):
    """One way of reaching a device, as :class:`ReconnectLoop` drives it (all on the loop's thread)."""

    def open(self) -> Outage | None:
        """Open the device and greet it; ``None`` once it is usable, else why not (cleaned up)."""
        ...

    def serve(self) -> Outage:
        """Keep the open device going until it is lost or the loop is stopping; why it ended."""
        ...

    def close(self, *, final: bool) -> None:
        """Close what :meth:`open` opened (idempotent); ``final`` on the way out, to give the
        device back to the system."""
        ...


class ReconnectLoop:
    """Runs a :class:`Connection` on a thread of its own until :meth:`stop`."""

    def __init__(
        self,
        name: str,
        connection: Connection,
        *,
        where: str,
        backoff: Backoff,
        stats: DeviceStats,
        stopping: threading.Event,
        on_down: Callable[[Outage], None],
        on_up: Callable[[], None],
        recent_frames: Callable[[], list[str]],
        thread_name: str,
    ) -> None:
        self.name = name
        self.where = where
        self.backoff = backoff
        self.stats = stats
        #: Set to stop; shared with the connection, whose ``serve`` must return soon after.
        self.stopping = stopping
        self._connection = connection
        self._on_down = on_down
        self._on_up = on_up
        self._recent_frames = recent_frames
        self._thread_name = thread_name
        self._thread: threading.Thread | None = None
        self._first_attempt = threading.Event()
        self._down_reported = False

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Start the loop's thread (once: starting a running loop does nothing)."""
        if self._thread is not None:
            return
        self.stopping.clear()
        self._first_attempt.clear()
        self._thread = threading.Thread(target=self._run, name=self._thread_name, daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop and wait for the thread; the owner first wakes whatever its ``serve`` waits on."""
        self.stopping.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s)

    def wait_first_attempt(self, timeout_s: float) -> bool:
        """Wait until the first attempt to open the device has succeeded or failed."""
        return self._first_attempt.wait(timeout_s)

    def proven(self) -> None:
        """The connection's device answered after an outage: count it and announce it (once)."""
        if not self._down_reported:
            return
        self._down_reported = False
        self.stats.reconnections += 1
        log.info("device_recovered", device=self.name, url=self.where)
        self._on_up()

    # -- the thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        delays: Iterator[float] | None = None  # a fresh back-off sequence for each outage
        attempt = 0
        try:
            while not self.stopping.is_set():
                attempt += 1
                self.stats.connect_attempts += 1
                outage = self._open()
                self._first_attempt.set()
                if outage is None:
                    delays, attempt = None, 0
                    outage = self._serve()
                    if self.stopping.is_set():
                        break
                    self._connection.close(final=False)
                    self._report_down(outage)
                    if outage.code == DRIVER_ERROR:
                        self.stopping.wait(self.backoff.initial_s)  # a bug must not spin the loop
                    continue
                self._report_down(outage)
                delays = delays or self.backoff.delays()
                delay = next(delays)
                log.info(
                    "reconnect_attempt", device=self.name, url=self.where, attempt=attempt,
                    retry_in=round(delay, 3), reason=outage.reason, code=outage.code,
                )
                if self.stopping.wait(delay):
                    break
        finally:
            self._first_attempt.set()
            self._connection.close(final=True)

    def _open(self) -> Outage | None:
        try:
            return self._connection.open()
        except Exception as exc:  # a fault in driver code must not silently end the loop
            log.exception("device_driver_error", device=self.name, url=self.where, during="connecting")
            self._connection.close(final=False)
            return Outage(f"unexpected error connecting to {self.name}: {exc!r}", DRIVER_ERROR)

    def _serve(self) -> Outage:
        try:
            return self._connection.serve()
        except Exception as exc:  # as above: log it, treat the device as lost, carry on
            log.exception("device_driver_error", device=self.name, url=self.where, during="serving")
            return Outage(f"unexpected error reading {self.name}: {exc!r}", DRIVER_ERROR)

    def _report_down(self, outage: Outage) -> None:
        """One fault per outage (later failed attempts are only logged); none when stopping."""
        if self._down_reported or self.stopping.is_set():
            return
        self._down_reported = True
        self.stats.faults += 1
        log.warning(
            "device_link_fault", device=self.name, url=self.where, reason=outage.reason, code=outage.code,
            recent_frames=self._recent_frames(),
        )
        self._on_down(outage)


class LoopDriven:
    """The device contract's lifecycle for a driver whose :class:`ReconnectLoop` is its only
    thread (the USB pedals, a foot switch): it sets ``_loop`` and ``_connected`` (set while the
    device is usable) in its ``__init__``."""

    _loop: ReconnectLoop
    _connected: threading.Event

    def start(self, wait_s: float = 5.0) -> bool:
        """Start the loop's thread; return once the first attempt to open the device is over.

        An absent device is not a failure: the loop reports one ``DeviceFault`` and keeps
        trying in the background, so the station can start and tell a person what is missing.
        """
        self._loop.start()
        self._loop.wait_first_attempt(wait_s)
        return self.connected

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the loop and let go of the device (its ``close(final=True)`` gives it back)."""
        self._loop.stop(timeout_s)

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def wait_connected(self, timeout: float) -> bool:
        return self._connected.wait(timeout)
