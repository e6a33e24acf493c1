"""The device side of the link protocol, shared by every simulator, with fault injection.

A simulator speaks exactly the protocol a real device would: it answers commands
(caching the last answer so a retransmitted command is not executed twice), sends its
events one at a time and retransmits each until the host ACKs it, and numbers its
frames. Like a device's firmware, it sends an event at once when nothing is in flight, and
the next queued event as soon as the ACK of the last one is in (from the receiving thread,
without waking the sending one); the sending thread makes the retransmissions. Fault
injection works on that real path: garbage bytes on the line, frames with a broken CRC,
lost ACKs, lost or slow replies, unplugging and replugging the cable.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

import structlog

from drivers.codec import get_protocol
from drivers.codec.framing import crc16, encode_frame_with_crc
from drivers.codec.protocol import (
    Ack,
    Boot,
    Identify,
    IdentityReport,
    Kind,
    Message,
    Nak,
    NakCode,
    Packet,
    Ping,
    SelfTest,
    SelfTestResult,
    StreamCodec,
)
from drivers.simulators.ports import PortClosed, PtyPort, TcpPort

log = structlog.get_logger(__name__)


@dataclass
class SimStats:
    commands: int = 0
    duplicate_commands: int = 0
    events_sent: int = 0
    retransmissions: int = 0
    acks: int = 0
    bad_frames: int = 0
    dropped_replies: int = 0
    ignored_acks: int = 0
    #: NAKs sent, by code name ("bad_payload", "unknown_command", ...): a frame this device
    #: could not decode is NAKed bad_payload or unknown_command, which tests count.
    naks: dict[str, int] = field(default_factory=dict)

    def count_nak(self, code: NakCode) -> None:
        name = code.name.lower()
        self.naks[name] = self.naks.get(name, 0) + 1


@dataclass
class _Outgoing:
    message: Message
    seq: int | None = None
    acked: threading.Event = field(default_factory=threading.Event)
    on_sent: Callable[[int], None] | None = None  # perf_counter_ns of the first write (latency bench)
    sent_at: float = 0.0  # monotonic time of the last transmission
    number: int = 0  # events_queued once this one was queued


class SimulatedDevice:
    """Base simulator. Subclasses set ``PROTOCOL`` and implement :meth:`handle_command`."""

    PROTOCOL: ClassVar[str] = ""
    MODEL: ClassVar[str] = "SIM"

    def __init__(
        self,
        *,
        transport: str = "pty",
        name: str | None = None,
        serial: str = "SIM-0001",
        firmware: str = "1.0.0",
        ack_timeout: float = 0.2,
        directory: str | None = None,
        tcp_port: int = 0,
        protocol_version: int | None = None,
        announced_version: int | None = None,
    ) -> None:
        self.protocol = get_protocol(self.PROTOCOL)
        self.name = name or self.PROTOCOL
        #: The version of its protocol the device speaks (the current one unless told): a
        #: version-1 device knows only version 1's messages and layouts, as one built from
        #: that version of the document does.
        self.protocol_version = self.protocol.current if protocol_version is None else protocol_version
        if self.protocol_version not in self.protocol.versions:
            raise ValueError(f"{self.PROTOCOL} protocol versions are {self.protocol.oldest}-{self.protocol.current}, "
                             f"not {self.protocol_version}")
        #: What it says it speaks: its own version, unless a test makes it claim another.
        announced = self.protocol_version if announced_version is None else announced_version
        self.identity = IdentityReport(self.MODEL, serial, firmware, announced)
        self.ack_timeout = ack_timeout
        if transport == "pty":
            self.port: PtyPort | TcpPort = PtyPort(self.name, directory)
        elif transport == "socket":
            self.port = TcpPort(port=tcp_port)
        else:
            raise ValueError(f"transport must be 'pty' or 'socket', not {transport!r}")
        self.stats = SimStats()
        #: Events ever queued (each reaches the host once, unless power-cycled away): a host that
        #: has handed over this many has them all.
        self.events_queued = 0
        #: Events that left the outbox without reaching the host (lost to a restart, or taken
        #: back unsent: :meth:`withdraw`): a host has all there is once it has handed over
        #: ``events_queued - events_dropped``.
        self.events_dropped = 0
        #: Told (on the restarting thread) the events a restart lost before they went out, so
        #: their maker knows the host never heard them (the simulated dealer re-slides the cards).
        self.drop_listeners: list[Callable[[list[Message]], None]] = []
        self._restarting = False  # nothing goes out while a reboot waits for the event on the line
        #: Every command executed, decoded, in order (retransmitted duplicates are not repeated).
        self.received: list[Message] = []
        self._codec = StreamCodec(self.protocol, self.protocol_version)
        self._lock = threading.RLock()
        self._outbox: deque[_Outgoing] = deque()
        self._held_from: int | None = None  # events numbered above this are held (hold_after)
        self._outbox_changed = threading.Condition(self._lock)
        self._tx_seq = 0
        self._last_cmd: tuple[int, Message] | None = None  # (seq, answer) for repeated commands
        self._stop = threading.Event()
        self._plugged = threading.Event()
        self._threads: list[threading.Thread] = []
        self._write_lock = threading.Lock()
        # fault injection state
        self.reply_delay = 0.0
        self._corrupt_next = 0
        self._ignore_acks = 0
        self._drop_replies = 0
        self._mute = False
        #: Hang (as :meth:`mute`) when a command of this kind arrives, before answering it.
        self._hang_at: type[Message] | None = None
        self._wrong_answer: tuple[type[Message], Message] | None = None

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return self.port.url

    def start(self) -> SimulatedDevice:
        self.port.plug()
        self._plugged.set()
        self._stop.clear()
        with self._outbox_changed:  # Boot is the first event, before anything scripted earlier
            self.events_queued += 1
            self._outbox.appendleft(_Outgoing(Boot("power on"), number=self.events_queued))
        for target, label in ((self._rx_loop, "rx"), (self._tx_loop, "tx")):
            thread = threading.Thread(target=target, name=f"sim-{self.name}-{label}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._outbox_changed:
            self._outbox_changed.notify_all()
        self._plugged.set()  # wake waiters
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads.clear()
        self.port.close()

    # -- events ---------------------------------------------------------------------------------

    def send_event(self, message: Message, on_sent: Callable[[int], None] | None = None) -> threading.Event:
        """Queue an event; it is sent (and retransmitted) until the host ACKs it.

        Returns an Event that is set when the host has acknowledged it.
        """
        if message.kind() is not Kind.EVENT:
            raise TypeError(f"{message.WIRE_NAME} is not an event")
        item = _Outgoing(message, on_sent=on_sent)
        with self._outbox_changed:
            self._outbox.append(item)
            self.events_queued += 1
            item.number = self.events_queued
            # Nothing in flight: the event goes out now, from this thread (the sending thread
            # would only be woken to do the same).
            ready = self._head_to_send()
            if ready is None and len(self._outbox) == 1:
                self._outbox_changed.notify_all()  # nothing in flight and not sent here: the sending thread's turn
        if ready is not None:
            self._transmit(*ready, first=True)
        return item.acked

    def hold_after(self, number: int | None) -> None:
        """Keep events numbered above ``number`` (their place in :attr:`events_queued`) in the
        outbox; ``None`` holds none. If that frees the head, it goes out from this thread.

        The simulated table uses this to keep a card the dealer slides out from overtaking,
        on the shoe's line, the screen actions the dealer made before it, which travel
        another way: cards wait until the station has those actions."""
        with self._outbox_changed:
            self._held_from = number
            ready = self._head_to_send()
            if ready is None and self._outbox:
                self._outbox_changed.notify_all()
        if ready is not None:
            self._transmit(*ready, first=True)

    def withdraw(self, which: Callable[[Message], bool]) -> list[Message]:
        """Take back the queued events ``which`` selects that never went out (the host cannot
        have them), in order: the simulated dealer takes back cards it slid out ahead when the
        table stops for a person (they would meet a stopped round)."""
        with self._outbox_changed:
            taken = [item for item in self._outbox if item.seq is None and which(item.message)]
            for item in taken:
                self._outbox.remove(item)
                item.acked.set()  # nobody should wait for them
            self.events_dropped += len(taken)
            self._outbox_changed.notify_all()  # the sending thread sends the new head, if it may
        return [item.message for item in taken]

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until every queued event has been acknowledged."""
        deadline = time.monotonic() + timeout
        with self._outbox_changed:
            while self._outbox:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._outbox_changed.wait(left)
        return True

    # -- faults ---------------------------------------------------------------------------------

    def inject_garbage(self, data: bytes) -> None:
        """Put raw bytes on the line now (noise, a half frame, anything)."""
        self._write(data)

    def corrupt_next_frames(self, count: int = 1) -> None:
        """Send the next ``count`` frames with a wrong CRC (the host must drop them)."""
        with self._lock:
            self._corrupt_next += count

    def ignore_acks(self, count: int = 1) -> None:
        """Behave as if the next ``count`` ACKs from the host were lost: events get retransmitted."""
        with self._lock:
            self._ignore_acks += count

    def drop_replies(self, count: int = 1) -> None:
        """Execute the next ``count`` commands but lose their answers: the host retransmits."""
        with self._lock:
            self._drop_replies += count

    def mute(self, muted: bool = True) -> None:
        """Stop answering entirely (a hung device that stays plugged in)."""
        self._mute = muted

    def hang_at(self, kind: type[Message]) -> None:
        """Answer every command until one of ``kind`` arrives, then hang before answering it
        (as :meth:`mute`): a device that hangs at a given step, whatever the host's pace."""
        self._hang_at = kind

    def answer_wrongly(self, kind: type[Message], answer: Message) -> None:
        """Answer the next ``kind`` command with ``answer`` (a firmware bug): the host must refuse it."""
        self._wrong_answer = (kind, answer)

    def unplug(self) -> None:
        self._plugged.clear()
        self.port.unplug()
        log.info("sim_unplugged", device=self.name)

    def replug(self) -> None:
        self.port.plug()
        self._codec.reset()
        self._plugged.set()
        with self._outbox_changed:
            self._outbox_changed.notify_all()
        log.info("sim_replugged", device=self.name, url=self.url)

    def power_cycle(self) -> None:
        """Switch the device off and on: unsent events are lost, numbering restarts, Boot is sent.

        This is how the host's duplicate filter is tested against a device that reuses
        sequence numbers after a restart.
        """
        self.unplug()
        lost = self._lose_outbox()
        self.on_power_cycle()
        self.replug()
        self.send_event(Boot("power cycle"))
        self._tell_lost(lost)

    def reboot(self, reason: str = "power on") -> None:
        """Restart the device's firmware with the cable left in (a brown-out, a watchdog reset):
        what it had queued is lost, numbering restarts at 1, and it announces ``Boot``. It
        restarts once the event on the line, if any, is acknowledged (or its ACK overdue), so
        that what the host heard is certain."""
        lost = self._lose_outbox(settle=True)
        self.on_power_cycle()
        self.send_event(Boot(reason))
        self._tell_lost(lost)

    def _lose_outbox(self, settle: bool = False) -> list[Message]:
        """What a restart loses: every queued event (numbering restarts too). Returns those
        never put on the line: one sent and not acknowledged may have reached the host."""
        with self._outbox_changed:
            self._restarting = settle
            deadline = time.monotonic() + self.ack_timeout
            while settle and self._outbox and self._outbox[0].seq is not None and time.monotonic() < deadline:
                self._outbox_changed.wait(0.005)  # an ACK does not notify: look again soon
            self._restarting = False
            lost = [item.message for item in self._outbox if item.seq is None]
            for item in self._outbox:
                item.acked.set()  # lost with the power; nobody should wait for them
            self.events_dropped += len(self._outbox)
            self._outbox.clear()
            self._tx_seq = 0
            self._last_cmd = None
            self._outbox_changed.notify_all()
        return lost

    def _tell_lost(self, lost: list[Message]) -> None:
        if lost:
            for listener in list(self.drop_listeners):
                listener(lost)

    # -- for subclasses -------------------------------------------------------------------------

    def on_power_cycle(self) -> None:
        """Reset what a real device forgets when it loses power (counters, errors)."""

    def handle_command(self, message: Message) -> Message:
        """Answer a device-specific command (an answer message, ``Ack()`` or ``Nak``)."""
        return Nak(NakCode.UNKNOWN_COMMAND, message.WIRE_NAME)

    def self_test_result(self) -> SelfTestResult:
        return SelfTestResult(True, 0, "all checks passed")

    # -- internals ------------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        # unplugged (PortClosed): bytes go nowhere, as on a pulled cable
        with self._write_lock, contextlib.suppress(PortClosed):
            self.port.write(data)

    def _frame(self, message: Message, seq: int) -> bytes:
        with self._lock:
            corrupt = self._corrupt_next > 0
            if corrupt:
                self._corrupt_next -= 1
        if not corrupt:
            return self._codec.encode(message, seq)
        payload = message.pack(self.protocol_version)
        wrong = crc16(bytes((seq, message.TYPE)) + payload) ^ 0x5A5A
        return encode_frame_with_crc(seq, message.TYPE, payload, wrong)

    def _answer(self, packet: Packet) -> None:
        message = packet.message
        if self._last_cmd is not None and self._last_cmd[0] == packet.seq:
            self.stats.duplicate_commands += 1
            answer = self._last_cmd[1]
        else:
            self.stats.commands += 1
            with self._lock:
                self.received.append(message)
            if self._hang_at is not None and isinstance(message, self._hang_at):
                self._hang_at, self._mute = None, True
                return
            wrong = self._wrong_answer if self._wrong_answer and isinstance(message, self._wrong_answer[0]) else None
            self._wrong_answer = None if wrong is not None else self._wrong_answer  # kept for its own command
            try:
                answer = wrong[1] if wrong is not None else self._execute(message)
            except Exception as exc:  # a simulator bug must not kill the line
                log.exception("sim_command_failed", device=self.name)
                answer = Nak(NakCode.HARDWARE_FAULT, str(exc)[:200])
            self._last_cmd = (packet.seq, answer)
            if isinstance(answer, Nak):
                self.stats.count_nak(answer.code)
        with self._lock:
            if self._drop_replies:
                self._drop_replies -= 1
                self.stats.dropped_replies += 1
                return
        if self.reply_delay:
            time.sleep(self.reply_delay)
        self._write(self._frame(answer, packet.seq))  # framed per sending: a fault hits one copy only

    def _execute(self, message: Message) -> Message:
        if isinstance(message, Identify):
            return self.identity
        if isinstance(message, Ping):
            return Ack()
        if isinstance(message, SelfTest):
            return self.self_test_result()
        return self.handle_command(message)

    def _on_ack(self, seq: int) -> None:
        with self._outbox_changed:
            head = self._outbox[0] if self._outbox else None
            if head is None or head.seq != seq:
                return
            if self._ignore_acks:
                self._ignore_acks -= 1
                self.stats.ignored_acks += 1
                return
            self.stats.acks += 1
            self._outbox.popleft()
            head.acked.set()
            if not self._outbox:
                self._outbox_changed.notify_all()  # for wait_idle; the sending thread need not wake
            ready = self._head_to_send()
        if ready is not None:
            self._transmit(*ready, first=True)

    def _head_to_send(self) -> tuple[_Outgoing, bytes] | None:
        """The head of the outbox, numbered and framed, if it has not gone out yet and may go
        now (under the outbox lock; the caller transmits it once the lock is released)."""
        head = self._outbox[0] if self._outbox else None
        if head is None or head.seq is not None or not self._may_send(head):
            return None
        return head, self._first_transmission(head)

    def _may_send(self, item: _Outgoing) -> bool:
        if (self._held_from is not None and item.number > self._held_from) or self._restarting:
            return False  # held (hold_after), or a reboot is under way
        return self._plugged.is_set() and not self._mute and not self._stop.is_set()

    def _first_transmission(self, item: _Outgoing) -> bytes:
        """Number ``item`` and frame it (under the outbox lock)."""
        self._tx_seq = self._tx_seq % 255 + 1
        item.seq = self._tx_seq
        item.sent_at = time.monotonic()
        return self._frame(item.message, item.seq)

    def _transmit(self, item: _Outgoing, frame: bytes, *, first: bool) -> None:
        if first:
            self.stats.events_sent += 1
        else:
            self.stats.retransmissions += 1
        written_at = time.perf_counter_ns()  # taken just before the single write of the frame
        self._write(frame)
        if item.on_sent is not None and first:
            item.on_sent(written_at)

    def _rx_loop(self) -> None:
        while not self._stop.is_set():
            if not self._plugged.wait(0.1):
                continue
            try:
                data = self.port.read(0.05)
            except PortClosed:
                self._plugged.wait(0.05)
                continue
            if not data or self._mute:
                continue
            for item in self._codec.feed(data):
                if not isinstance(item, Packet):
                    self.stats.bad_frames += 1
                    if item.seq is not None and item.type_code is not None and item.type_code < 0x40:
                        code = NakCode.UNKNOWN_COMMAND if item.fault == "unknown_type" else NakCode.BAD_PAYLOAD
                        self.stats.count_nak(code)
                        log.info("sim_command_undecodable", device=self.name, code=code.name.lower(),
                                 detail=item.detail, version=self.protocol_version)
                        self._write(self._frame(Nak(code, item.detail[:200]), item.seq))
                    continue
                message = item.message
                if isinstance(message, Ack):
                    self._on_ack(item.seq)
                elif message.kind() is Kind.COMMAND:
                    self._answer(item)

    def _tx_loop(self) -> None:
        """Send what the caller could not, and resend an event whose ACK is overdue.

        An ACK does not wake this thread: the receiving thread sends the next event itself,
        so this one only sleeps until the head's resend would be due and looks again."""
        while not self._stop.is_set():
            with self._outbox_changed:
                while not self._stop.is_set() and (not self._outbox or not self._may_send(self._outbox[0])):
                    self._outbox_changed.wait(0.1)
                if self._stop.is_set():
                    return
                head = self._outbox[0]
                if head.seq is None:
                    frame, first = self._first_transmission(head), True
                else:
                    overdue = head.sent_at + self.ack_timeout - time.monotonic()
                    if overdue > 0:
                        self._outbox_changed.wait(overdue)
                        continue
                    head.sent_at = time.monotonic()
                    frame, first = self._frame(head.message, head.seq), False
            self._transmit(head, frame, first=first)
