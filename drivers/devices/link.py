"""The host end of a device link: handshake, ACKs, retries, duplicates, heartbeats, reconnection.

One :class:`DeviceLink` per device. It owns two threads:

* the **reader** reads the transport, decodes frames, ACKs device events (after handing
  them on, so an event is never acknowledged before the station has it), filters
  retransmitted duplicates by sequence number, and matches responses to the waiting command;
* the **supervisor** is the shared :class:`~drivers.devices.reconnect.ReconnectLoop` driving
  this link as its :class:`~drivers.devices.reconnect.Connection`: it opens the transport,
  performs the handshake (``Identify``), sends a ``Ping`` when the link has been quiet, and on
  loss closes the port, reports the fault and reopens it with capped exponential backoff,
  logging every attempt (as the USB pedals do, through the same loop).

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
    NotInVersion,
    Packet,
    Ping,
    Protocol,
    StreamCodec,
)
from drivers.devices.contract import DeliveryObserver, Tap
from drivers.devices.errors import DeviceError, DeviceProtocolError, DeviceRefused, DeviceTimeout, DeviceUnavailable
from drivers.devices.reconnect import Backoff, Outage, ReconnectLoop
from drivers.devices.stats import DeviceStats
from drivers.transport.serial_port import Transport, TransportError

log = structlog.get_logger(__name__)


#: A Boot with the SEQ of the Boot before it is a resend only if it comes within this time of
#: that copy (a device resends after its ACK timeout, a fraction of a second); later, it is the
#: device powering up again (docs/protocols/README.md, "Boot").
BOOT_RESEND_WINDOW_S = 2.0


@dataclass(frozen=True)
class LinkSettings:
    """Timing of one link. Defaults suit a 115200-baud table device; tests shorten them."""

    reply_timeout: float = 0.5  # per attempt
    retries: int = 3  # retransmissions after the first attempt
    reconnect_initial: float = 0.25
    reconnect_max: float = 10.0
    heartbeat: float = 2.0  # ping after this long without any frame from the device
    ring_size: int = 32  # frames kept for the fault log

    @property
    def backoff(self) -> Backoff:
        """The reconnection delays: from ``reconnect_initial``, doubling, at most ``reconnect_max``."""
        return Backoff(self.reconnect_initial, 2.0, self.reconnect_max)


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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        #: What the link reads to tell a Boot's resend from a new power-up (monotonic seconds):
        #: a test steps it past the window instead of waiting the window out.
        self.clock = clock
        self.transport = transport
        self.protocol = protocol
        self.settings = settings or LinkSettings()
        self.stats = DeviceStats()
        self._codec = StreamCodec(protocol)
        self._on_event = on_event
        self._on_undecodable = on_undecodable
        self._taps: list[Tap] = []
        #: Called on the reader thread with the running count after each device event is handed
        #: over, before it is acknowledged (the simulated table orders the dealer's screen by it).
        self.on_delivered: DeliveryObserver | None = None
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
        self._last_boot_time = float("-inf")  # the clock's time of the last Boot copy received
        self._last_rx_time = 0.0
        self._stop = threading.Event()
        self._lost = threading.Event()
        self._lost_reason = ""
        self._ready = threading.Event()
        self._answered = threading.Event()  # a handshake was answered: the link is up, or refused
        self._reader: threading.Thread | None = None
        self.identity: IdentityReport | None = None
        #: Why the device that answers is not used (a protocol version the station does not
        #: speak), or None. Set by each handshake.
        self.refused: str | None = None
        self._supervisor = ReconnectLoop(
            name,
            self,
            where=transport.url,
            backoff=self.settings.backoff,
            stats=self.stats,
            stopping=self._stop,
            on_down=lambda outage: on_down(outage.reason, outage.code),
            on_up=lambda: on_up(self.identity) if self.identity is not None else None,
            recent_frames=lambda: [f"{d} {h} {t}" for _, d, h, t in self.recent_frames()],
            thread_name=f"{name}-link",
        )

    # -- public -------------------------------------------------------------------------------

    def start(self, wait: float | None = None) -> bool:
        """Start connecting in the background; with ``wait``, block up to that long for the
        handshake (less when the device answers in a protocol version the station refuses)."""
        if self._supervisor.running:
            return self._ready.is_set()
        self._supervisor.start()
        if wait is not None:
            self._answered.wait(wait)
        return self._ready.is_set()

    def stop(self) -> None:
        self._stop.set()
        self._lost.set()  # wakes the supervisor's watch and the reader
        self._supervisor.stop()
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=5)
        self._reader = None
        self.transport.close()
        self._ready.clear()

    @property
    def connected(self) -> bool:
        return self._ready.is_set()

    def wait_connected(self, timeout: float) -> bool:
        return self._ready.wait(timeout)

    @property
    def peer_version(self) -> int:
        """The protocol version the device announced (the station speaks it on this link)."""
        return self._codec.version

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
            raise TypeError(f"{message.WIRE_NAME} is not a command")
        timeout = self.settings.reply_timeout if timeout is None else timeout
        retries = self.settings.retries if retries is None else retries
        command = message.WIRE_NAME
        if threading.current_thread() is self._reader:
            # only the reader can read the answer: waiting for it here would hang the link
            raise RuntimeError(f"{self.name}: {command} cannot be sent from the link's reader thread (an emit sink)")
        with self._command_lock:
            if not self.transport.is_open or self._lost.is_set():
                raise DeviceUnavailable(f"{self.name}: not connected")
            try:
                frame = self._codec.encode(message, self._tx_seq % 255 + 1)
            except NotInVersion as exc:  # never a frame the device cannot decode
                raise DeviceProtocolError(f"{self.name}: {exc}") from None
            self._tx_seq = self._tx_seq % 255 + 1  # 1..255; a new command never reuses the last seq
            seq = self._tx_seq
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
        self.stats.count_error(error.fault)
        self._record("rx", error.raw, error)
        log.warning(
            "frame_discarded", device=self.name, fault=error.fault, detail=error.detail, raw=error.raw[:64].hex(" ")
        )
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
            # A Boot is what a device sends first at power-up (docs/protocols/README.md):
            # meeting it before the handshake is normal, not an error of the link.
            if not isinstance(message, Boot):
                self.stats.count_error("event_before_handshake")
            return
        if kind is Kind.EVENT:
            is_boot = isinstance(message, Boot)
            repeated = packet.seq == self._last_rx_seq and (not is_boot or self._last_rx_boot)
            if is_boot:
                # A device that restarts numbers its frames from 1 again, so a board that sent
                # nothing but its Boot since the last power-up sends its next Boot with the
                # same SEQ. A resend comes within the device's ACK timeout of the copy before;
                # a Boot after a longer silence is a new power-up.
                now = self.clock()
                if repeated and now - self._last_boot_time > BOOT_RESEND_WINDOW_S:
                    repeated = False
                self._last_boot_time = now
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
                self.stats.count_error("handler_failed")
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
        self.stats.count_error("unexpected_command")
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

    # -- the connection, as the supervisor drives it ---------------------------------------------

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

    def open(self) -> Outage | None:
        """Open and handshake; None on success, else why not (the port is closed again)."""
        try:
            self.transport.open()
        except TransportError as exc:
            reason = str(exc)
            return Outage(reason, "open_failed" if reason.startswith("cannot open") else "handshake_failed")
        self._codec.reset()
        self._codec.version = self.protocol.current  # until this device says which it speaks
        self._lost.clear()
        self._last_rx_time = time.monotonic()
        self._reader = threading.Thread(target=self._read_loop, name=f"{self.name}-reader", daemon=True)
        self._reader.start()
        try:
            answer = self.request(Identify())
        except DeviceError as exc:
            self.close(final=False)
            return Outage(f"handshake failed: {exc}", "handshake_failed")
        if not isinstance(answer, IdentityReport):
            self.close(final=False)
            return Outage(f"handshake failed: Identify answered by {answer.WIRE_NAME}", "handshake_failed")
        previous, self.identity = self.identity, answer
        if previous is not None and previous != answer:
            # a different unit (or new firmware) behind the same port: worth a technician's look
            log.warning(
                "device_identity_changed", device=self.name, before=previous.describe(), after=answer.describe()
            )
        problem = self.protocol.version_problem(answer.protocol_version)
        self.refused = None if problem is None else f"{self.name} ({answer.model} {answer.serial}) {problem}"
        if self.refused is not None:
            self._answered.set()
            # Reported once per outage, like any fault (reconnect.py); the loop keeps asking, so a
            # unit swapped for one the station speaks to is taken up without a restart.
            self.close(final=False)
            return Outage(self.refused, "unsupported_version")
        self._codec.version = answer.protocol_version
        log.info(
            "device_connected", device=self.name, url=self.transport.url,
            model=answer.model, serial=answer.serial, firmware=answer.firmware,
            protocol_version=answer.protocol_version,
        )
        self._supervisor.proven()  # DeviceRecovered goes out before any event is delivered
        self._ready.set()
        self._answered.set()
        return None

    def serve(self) -> Outage:
        """Wait while connected; ping when quiet. Returns why the link went down."""
        heartbeat = self.settings.heartbeat
        while not self._stop.is_set():
            quiet = time.monotonic() - self._last_rx_time
            if self._lost.wait(max(0.01, heartbeat - quiet)):
                return Outage(self._lost_reason or "link lost", "link_lost")
            if time.monotonic() - self._last_rx_time >= heartbeat:
                self.stats.heartbeats += 1
                try:
                    self.request(Ping())
                except DeviceUnavailable:
                    continue  # _lost is set; the next wait returns at once
                except DeviceError as exc:
                    return Outage(f"not responding: {exc}", "not_responding")
        return Outage("stopped", "stopped")

    def close(self, *, final: bool) -> None:
        """Stop the reader and close the port (a serial port has nothing to give back)."""
        self._ready.clear()
        self._signal_lost("closed")
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=5)  # it notices _lost within one read timeout
        self._reader = None
        self.transport.close()
