"""The host end of a device link: handshake, ACKs, retries, duplicates, heartbeats, reconnection.

One :class:`DeviceLink` per device. It owns two threads:

* the **reader** reads the transport, decodes frames, ACKs device events (after handing
  them on, so an event is never acknowledged before the station has it), filters
  retransmitted duplicates by sequence number, and matches responses to the waiting command;
* the **supervisor** opens the transport, performs the handshake (``Identify``), sends a
  ``Ping`` when the link has been quiet, and on loss closes the port, reports the fault and
  reopens it with capped exponential backoff, logging every attempt.

Commands are stop-and-wait: one outstanding command per link, retransmitted with the same
sequence number on timeout (the device answers a repeated sequence number from its cache
and does not execute the command twice).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import structlog

from drivers.codec.protocol import (
    Ack,
    Boot,
    CodecError,
    Identify,
    IdentityReport,
    Kind,
    Message,
    Nak,
    Packet,
    Ping,
    Protocol,
    StreamCodec,
)
from drivers.transport.serial_port import Transport, TransportError

log = structlog.get_logger(__name__)

Tap = Callable[[str, bytes, "Message | CodecError | None"], None]
"""Frame monitor: ``tap(direction, raw, decoded)`` with direction ``"rx"`` or ``"tx"``."""


class DeviceError(Exception):
    """A command to a device failed."""


class DeviceUnavailable(DeviceError):
    """The device is not connected (unplugged, or the link was lost during the command)."""


class DeviceTimeout(DeviceError):
    """The device did not answer a command, even after retransmissions."""


class DeviceRefused(DeviceError):
    """The device answered NAK: it understood the command and refused it."""

    def __init__(self, command: str, code: Any, detail: str) -> None:
        name = getattr(code, "name", str(code)).lower()
        super().__init__(f"{command} refused: {name}" + (f" ({detail})" if detail else ""))
        self.code = code
        self.detail = detail


class DeviceProtocolError(DeviceError):
    """The device answered with a message that does not answer the command."""


@dataclass(frozen=True)
class LinkSettings:
    """Timing of one link. Defaults suit a 115200-baud table device; tests shorten them."""

    reply_timeout: float = 0.5  # per attempt
    retries: int = 3  # retransmissions after the first attempt
    reconnect_initial: float = 0.25
    reconnect_max: float = 10.0
    heartbeat: float = 2.0  # ping after this long without any frame from the device
    ring_size: int = 32  # frames kept for the fault log


@dataclass
class LinkStats:
    frames_in: int = 0
    frames_out: int = 0
    bad_frames: int = 0
    noise_bytes: int = 0
    duplicates: int = 0
    retransmissions: int = 0
    stale_responses: int = 0
    reconnections: int = 0
    faults: int = 0
    events_delivered: int = 0  # device events handed over (each once: resends are not counted)
    errors_by_kind: dict[str, int] = field(default_factory=dict)


@dataclass
class _Waiter:
    seq: int
    command: str
    done: threading.Event = field(default_factory=threading.Event)
    response: Message | None = None
    lost: bool = False


def _describe(decoded: Message | CodecError | None) -> str:
    if isinstance(decoded, Message):
        return decoded.describe()
    if isinstance(decoded, CodecError):
        return f"<{decoded.fault}{': ' + decoded.detail if decoded.detail else ''}>"
    return ""


class DeviceLink:
    """Reliable message exchange with one device over a reopenable transport."""

    def __init__(
        self,
        name: str,
        transport: Transport,
        protocol: Protocol,
        *,
        on_event: Callable[[Message], None],
        on_down: Callable[[str, str], None],
        on_up: Callable[[IdentityReport], None],
        on_undecodable: Callable[[CodecError], None] | None = None,
        settings: LinkSettings | None = None,
    ) -> None:
        self.name = name
        self.transport = transport
        self.protocol = protocol
        self.settings = settings or LinkSettings()
        self.stats = LinkStats()
        self._codec = StreamCodec(protocol)
        self._on_event = on_event
        self._on_down = on_down
        self._on_up = on_up
        self._on_undecodable = on_undecodable
        self._taps: list[Tap] = []
        #: Called on the reader thread with the running count after each device event is handed
        #: over, before it is acknowledged (the simulated table orders the dealer's screen by it).
        self.on_delivered: Callable[[int], None] | None = None
        # Frames are kept as they came and worded only when someone reads the ring (a fault
        # report, diagnostics): describing every frame as it passes cost more than handling it.
        self._ring: deque[tuple[float, str, bytes, Message | CodecError | None]] = deque(maxlen=self.settings.ring_size)
        self._write_lock = threading.Lock()
        self._command_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._waiter: _Waiter | None = None
        self._tx_seq = 0
        self._last_rx_seq: int | None = None
        self._last_rx_boot = False  # a Boot is accepted whatever its seq, except its own resends
        self._last_rx_time = 0.0
        self._stop = threading.Event()
        self._lost = threading.Event()
        self._lost_reason = ""
        self._ready = threading.Event()
        self._down_reported = False
        self._reader: threading.Thread | None = None
        self._supervisor: threading.Thread | None = None
        self.identity: IdentityReport | None = None

    # -- public -------------------------------------------------------------------------------

    def start(self, wait: float | None = None) -> bool:
        """Start connecting in the background; with ``wait``, block up to that long for the handshake."""
        if self._supervisor is not None:
            return self._ready.is_set()
        self._stop.clear()
        self._supervisor = threading.Thread(target=self._supervise, name=f"{self.name}-link", daemon=True)
        self._supervisor.start()
        if wait is not None:
            return self._ready.wait(wait)
        return self._ready.is_set()

    def stop(self) -> None:
        self._stop.set()
        self._lost.set()
        for thread in (self._supervisor, self._reader):
            if thread is not None and thread is not threading.current_thread():
                thread.join(timeout=5)
        self._supervisor = None
        self._reader = None
        self.transport.close()
        self._ready.clear()

    @property
    def connected(self) -> bool:
        return self._ready.is_set()

    def wait_connected(self, timeout: float) -> bool:
        return self._ready.wait(timeout)

    def add_tap(self, tap: Tap) -> None:
        self._taps.append(tap)

    def remove_tap(self, tap: Tap) -> None:
        if tap in self._taps:
            self._taps.remove(tap)

    def recent_frames(self) -> list[tuple[float, str, str, str]]:
        """The last frames (monotonic time, direction, hex, description) on this link."""
        return [(at, direction, raw.hex(" "), _describe(decoded)) for at, direction, raw, decoded in list(self._ring)]

    def request(self, message: Message, *, timeout: float | None = None, retries: int | None = None) -> Message:
        """Send a command and wait for its answer; raise a :class:`DeviceError` subclass on failure."""
        if message.kind() is not Kind.COMMAND:
            raise TypeError(f"{type(message).__name__} is not a command")
        timeout = self.settings.reply_timeout if timeout is None else timeout
        retries = self.settings.retries if retries is None else retries
        command = type(message).__name__
        if threading.current_thread() is self._reader:
            # only the reader can read the answer: waiting for it here would hang the link
            raise RuntimeError(f"{self.name}: {command} cannot be sent from the link's reader thread (an emit sink)")
        with self._command_lock:
            if not self.transport.is_open or self._lost.is_set():
                raise DeviceUnavailable(f"{self.name}: not connected")
            self._tx_seq = self._tx_seq % 255 + 1  # 1..255; a new command never reuses the last seq
            seq = self._tx_seq
            frame = self._codec.encode(message, seq)
            waiter = _Waiter(seq, command)
            self._waiter = waiter
            try:
                for attempt in range(retries + 1):
                    if attempt:
                        self.stats.retransmissions += 1
                        log.info("command_retransmit", device=self.name, command=command, seq=seq, attempt=attempt)
                    self._send_raw(frame, message)
                    if waiter.done.wait(timeout):
                        break
                else:
                    raise DeviceTimeout(f"{self.name}: no answer to {command} after {retries + 1} attempt(s)")
            finally:
                self._waiter = None
            if waiter.lost or waiter.response is None:
                raise DeviceUnavailable(f"{self.name}: link lost during {command}")
            response = waiter.response
            if isinstance(response, Nak):
                raise DeviceRefused(command, response.code, response.detail)
            return response

    # -- sending ------------------------------------------------------------------------------

    def _send_raw(self, frame: bytes, message: Message) -> None:
        try:
            with self._write_lock:
                self.transport.write(frame)
        except TransportError as exc:
            self._signal_lost(str(exc))
            raise DeviceUnavailable(f"{self.name}: {exc}") from exc
        self.stats.frames_out += 1
        self._record("tx", frame, message)

    def _record(self, direction: str, raw: bytes, decoded: Message | CodecError | None) -> None:
        self._ring.append((time.monotonic(), direction, raw, decoded))
        if not self._taps:
            return
        for tap in list(self._taps):
            try:
                tap(direction, raw, decoded)
            except Exception:  # a broken monitor must never break the link
                log.exception("tap_failed", device=self.name)

    # -- reading ------------------------------------------------------------------------------

    def _read_loop(self) -> None:
        while not self._stop.is_set() and not self._lost.is_set():
            try:
                data = self.transport.read()
            except TransportError as exc:
                self._signal_lost(str(exc))
                return
            if not data:
                for error in self._codec.framer.flush_noise():
                    self._handle_error(CodecError(error.fault.value, error.raw))
                continue
            self._last_rx_time = time.monotonic()
            for item in self._codec.feed(data):
                if isinstance(item, Packet):
                    self._handle_packet(item)
                else:
                    self._handle_error(item)

    def _handle_error(self, error: CodecError) -> None:
        self.stats.bad_frames += error.fault != "noise"
        if error.fault == "noise":
            self.stats.noise_bytes += len(error.raw)
        self.stats.errors_by_kind[error.fault] = self.stats.errors_by_kind.get(error.fault, 0) + 1
        self._record("rx", error.raw, error)
        log.warning("frame_discarded", device=self.name, fault=error.fault, detail=error.detail, raw=error.raw[:64].hex(" "))
        if error.seq is not None and error.type_code is not None and 0x40 <= error.type_code <= 0x7F:
            # An intact event frame we cannot understand: resending will not help, so ACK it
            # to stop the retransmissions, but never turn it into an event: report a fault.
            self._ack(error.seq)
            if error.seq != self._last_rx_seq:
                self._last_rx_seq = error.seq
                self._last_rx_boot = False
                if self._on_undecodable is not None:
                    self._on_undecodable(error)

    def _handle_packet(self, packet: Packet) -> None:
        self.stats.frames_in += 1
        message = packet.message
        self._record("rx", packet.raw, message)
        kind = message.kind()
        if kind is Kind.EVENT and not self._ready.is_set():
            # Until the handshake is done (and DeviceRecovered emitted) events are neither
            # delivered nor ACKed: the device resends them, so after a reconnection the
            # station always sees DeviceRecovered before the next event from the device.
            self.stats.errors_by_kind["event_before_handshake"] = self.stats.errors_by_kind.get("event_before_handshake", 0) + 1
            return
        if kind is Kind.EVENT:
            is_boot = isinstance(message, Boot)
            repeated = packet.seq == self._last_rx_seq and (not is_boot or self._last_rx_boot)
            if repeated:
                self.stats.duplicates += 1
                log.info("duplicate_event_dropped", device=self.name, seq=packet.seq, message=message.describe())
                self._ack(packet.seq)
                return
            if isinstance(message, Boot):
                log.info("device_boot", device=self.name, reason=message.reason, seq=packet.seq)
            try:
                self._on_event(message)
            except Exception:
                # Not handed over, so not acknowledged: the device resends it (a full queue
                # in the core applies back-pressure instead of losing a card).
                self.stats.errors_by_kind["handler_failed"] = self.stats.errors_by_kind.get("handler_failed", 0) + 1
                log.exception("event_handler_failed", device=self.name, message=message.describe())
                return
            self._last_rx_seq = packet.seq
            self._last_rx_boot = is_boot
            self.stats.events_delivered += 1
            if self.on_delivered is not None:
                self.on_delivered(self.stats.events_delivered)
            self._ack(packet.seq)
            return
        if kind is Kind.RESPONSE or isinstance(message, (Ack, Nak)):
            waiter = self._waiter
            if waiter is not None and waiter.seq == packet.seq and not waiter.done.is_set():
                waiter.response = message
                waiter.done.set()
            else:
                self.stats.stale_responses += 1
                log.info("stale_response", device=self.name, seq=packet.seq, message=message.describe())
            return
        self.stats.errors_by_kind["unexpected_command"] = self.stats.errors_by_kind.get("unexpected_command", 0) + 1
        log.warning("unexpected_message", device=self.name, message=message.describe())

    def _ack(self, seq: int) -> None:
        frame = self._codec.encode(Ack(), seq)
        try:
            with self._write_lock:
                self.transport.write(frame)
        except TransportError as exc:
            self._signal_lost(str(exc))
            return
        self.stats.frames_out += 1
        self._record("tx", frame, Ack())

    # -- connection management ------------------------------------------------------------------

    def _signal_lost(self, reason: str) -> None:
        with self._state_lock:
            if self._lost.is_set():
                return
            self._lost_reason = reason
            self._lost.set()
        waiter = self._waiter
        if waiter is not None:
            waiter.lost = True
            waiter.done.set()

    def _supervise(self) -> None:
        delay = self.settings.reconnect_initial
        attempt = 0
        while not self._stop.is_set():
            attempt += 1
            reason = self._connect()
            if reason is None:
                delay = self.settings.reconnect_initial
                attempt = 0
                reason, code = self._watch()
                if self._stop.is_set():
                    break
                self._teardown()
                self._report_down(reason, code)
                continue
            self._report_down(reason, "open_failed" if reason.startswith("cannot open") else "handshake_failed")
            log.info("reconnect_attempt", device=self.name, url=self.transport.url, attempt=attempt, retry_in=round(delay, 3), reason=reason)
            if self._stop.wait(delay):
                break
            delay = min(delay * 2, self.settings.reconnect_max)
        self._teardown()

    def _connect(self) -> str | None:
        """Open and handshake; None on success, else why not."""
        try:
            self.transport.open()
        except TransportError as exc:
            return str(exc)
        self._codec.reset()
        self._lost.clear()
        self._last_rx_time = time.monotonic()
        self._reader = threading.Thread(target=self._read_loop, name=f"{self.name}-reader", daemon=True)
        self._reader.start()
        try:
            answer = self.request(Identify())
        except DeviceError as exc:
            self._teardown()
            return f"handshake failed: {exc}"
        if not isinstance(answer, IdentityReport):
            self._teardown()
            return f"handshake failed: Identify answered by {type(answer).__name__}"
        previous, self.identity = self.identity, answer
        if previous is not None and previous != answer:
            # a different unit (or new firmware) behind the same port: worth a technician's look
            log.warning("device_identity_changed", device=self.name, before=previous.describe(), after=answer.describe())
        was_down = self._down_reported
        self._down_reported = False
        log.info("device_connected", device=self.name, url=self.transport.url, model=answer.model, serial=answer.serial, firmware=answer.firmware)
        if was_down:
            self.stats.reconnections += 1
            self._on_up(answer)
        self._ready.set()
        return None

    def _watch(self) -> tuple[str, str]:
        """Wait while connected; ping when quiet. Returns why the link went down."""
        heartbeat = self.settings.heartbeat
        while not self._stop.is_set():
            quiet = time.monotonic() - self._last_rx_time
            if self._lost.wait(max(0.01, heartbeat - quiet)):
                return self._lost_reason or "link lost", "link_lost"
            if time.monotonic() - self._last_rx_time >= heartbeat:
                try:
                    self.request(Ping())
                except DeviceUnavailable:
                    continue  # _lost is set; the next wait returns at once
                except DeviceError as exc:
                    return f"not responding: {exc}", "not_responding"
        return "stopped", "stopped"

    def _teardown(self) -> None:
        self._ready.clear()
        self._signal_lost("closed")
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=5)  # it notices _lost within one read timeout
        self._reader = None
        self.transport.close()

    def _report_down(self, reason: str, code: str) -> None:
        if self._down_reported or self._stop.is_set():
            return
        self._down_reported = True
        self.stats.faults += 1
        log.warning(
            "device_link_fault",
            device=self.name,
            url=self.transport.url,
            reason=reason,
            code=code,
            recent_frames=[f"{d} {h} {t}" for _, d, h, t in self.recent_frames()],
        )
        self._on_down(reason, code)
