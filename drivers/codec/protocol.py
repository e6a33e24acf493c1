"""Messages, per-device protocols and the codec registry.

Every device protocol shares the framing of :mod:`drivers.codec.framing` and the link
rules below; what differs per device is its table of messages. A :class:`Protocol` is
that table; protocols register by name so another one (a vendor's) can be added without
touching the drivers' link code.

Message type codes say who sends them and how they are acknowledged:

==========  ==================  =====================================================
codes       kind                rule
==========  ==================  =====================================================
0x01-0x3F   command             host to device; answered by a response, ACK or NAK
                                carrying the command's sequence number
0x40-0x7F   event               device to host, unsolicited; the host ACKs its seq
0x80-0xBF   response            device to host, answers the command with the same seq
0xF0-0xFF   link control        ACK (0xF0) and NAK (0xF1)
==========  ==================  =====================================================
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Annotated, Any, ClassVar

from drivers.codec.fields import BOOL, TEXT, U8, EnumU8, PayloadError, WireType
from drivers.codec.framing import Frame, FrameDecoder, FrameError, encode_frame


class Kind(StrEnum):
    COMMAND = "command"
    EVENT = "event"
    RESPONSE = "response"
    CONTROL = "control"


def kind_of(type_code: int) -> Kind | None:
    if 0x01 <= type_code <= 0x3F:
        return Kind.COMMAND
    if 0x40 <= type_code <= 0x7F:
        return Kind.EVENT
    if 0x80 <= type_code <= 0xBF:
        return Kind.RESPONSE
    if 0xF0 <= type_code <= 0xFF:
        return Kind.CONTROL
    return None


class UnknownMessage(PayloadError):
    """A good frame whose type code the protocol does not define."""


@dataclass(frozen=True)
class Message:
    """Base of all wire messages. Subclasses set ``TYPE`` and annotate fields with wire types."""

    TYPE: ClassVar[int] = -1
    #: The message's name in the protocol documents and in logs. Several protocols share a
    #: name (each has its ``GetStatus``) and a device's notice may share one with the station
    #: event it becomes (the shoe's ``ShoeEmpty``); the Python classes are named apart (e.g.
    #: ``ShoeGetStatus``, ``ShoeEmptyNotice``) and give their wire name here.
    WIRE_NAME: ClassVar[str] = "Message"
    _LAYOUT: ClassVar[tuple[tuple[str, WireType], ...] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "WIRE_NAME" not in cls.__dict__:
            cls.WIRE_NAME = cls.__name__

    @classmethod
    def kind(cls) -> Kind:
        kind = kind_of(cls.TYPE)
        if kind is None:
            raise TypeError(f"{cls.WIRE_NAME} has type code {cls.TYPE:#04x} outside every range")
        return kind

    @classmethod
    def layout(cls) -> tuple[tuple[str, WireType], ...]:
        """The (field name, wire type) pairs in wire order, read from the annotations."""
        cached = cls.__dict__.get("_LAYOUT")
        if cached is not None:
            return cached
        hints = typing.get_type_hints(cls, include_extras=True)
        layout = []
        for f in dataclasses.fields(cls):
            meta = [m for m in getattr(hints[f.name], "__metadata__", ()) if isinstance(m, WireType)]
            if len(meta) != 1:
                raise TypeError(f"{cls.WIRE_NAME}.{f.name} needs exactly one wire type annotation")
            layout.append((f.name, meta[0]))
        cls._LAYOUT = tuple(layout)
        return cls._LAYOUT

    def pack(self) -> bytes:
        out = bytearray()
        for name, wire in self.layout():
            wire.pack(getattr(self, name), out)
        return bytes(out)

    @classmethod
    def unpack(cls, payload: bytes) -> Message:
        values: dict[str, Any] = {}
        pos = 0
        for name, wire in cls.layout():
            values[name], pos = wire.unpack(payload, pos)
        if pos != len(payload):
            raise PayloadError(f"{cls.WIRE_NAME}: {len(payload) - pos} unexpected trailing byte(s)")
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:
            raise PayloadError(f"{cls.WIRE_NAME}: {exc}") from None

    def describe(self) -> str:
        """``Name(field=value, ...)`` in the notation used by the protocol documents."""
        parts = [f"{name}={wire.show(getattr(self, name))}" for name, wire in self.layout()]
        return f"{self.WIRE_NAME}({', '.join(parts)})"


# --- link-control and common messages, part of every protocol ------------------------------


class NakCode(IntEnum):
    """Why a device refused a command (payload of NAK)."""

    UNKNOWN_COMMAND = 1
    BAD_PAYLOAD = 2
    BUSY = 3
    NOT_ALLOWED_NOW = 4
    HARDWARE_FAULT = 5
    DOOR_OPEN = 6
    JAM = 7
    LID_OPEN = 8
    OUT_OF_RANGE = 9


@dataclass(frozen=True)
class Ack(Message):
    """Host: 'your event with this seq arrived'. Device: 'command done', when it has no data."""

    TYPE: ClassVar[int] = 0xF0


@dataclass(frozen=True)
class Nak(Message):
    """Device refuses the command with this seq; the host does not retry a NAK."""

    TYPE: ClassVar[int] = 0xF1
    code: Annotated[NakCode, EnumU8(NakCode)]
    detail: Annotated[str, TEXT] = ""


@dataclass(frozen=True)
class Identify(Message):
    """Ask for model, serial number and firmware. Also the handshake after every (re)connection."""

    TYPE: ClassVar[int] = 0x01


@dataclass(frozen=True)
class Ping(Message):
    """Heartbeat: the device answers ACK. Sent by the host when the link has been quiet."""

    TYPE: ClassVar[int] = 0x02


@dataclass(frozen=True)
class SelfTest(Message):
    """Run the device's self-test; answered by SelfTestResult."""

    TYPE: ClassVar[int] = 0x03


@dataclass(frozen=True)
class Boot(Message):
    """The device powered up or reset. Always accepted whatever its seq; resets duplicate filtering."""

    TYPE: ClassVar[int] = 0x7F
    reason: Annotated[str, TEXT] = ""


@dataclass(frozen=True)
class IdentityReport(Message):
    TYPE: ClassVar[int] = 0x81
    model: Annotated[str, TEXT]
    serial: Annotated[str, TEXT]
    firmware: Annotated[str, TEXT]


@dataclass(frozen=True)
class SelfTestResult(Message):
    TYPE: ClassVar[int] = 0x83
    passed: Annotated[bool, BOOL]
    code: Annotated[int, U8] = 0  # 0 when passed; device-specific otherwise
    detail: Annotated[str, TEXT] = ""


COMMON_MESSAGES: tuple[type[Message], ...] = (
    Ack, Nak, Identify, Ping, SelfTest, Boot, IdentityReport, SelfTestResult,
)


# --- protocols and their registry ----------------------------------------------------------


class Protocol:
    """The message table of one device type (common messages included)."""

    def __init__(self, name: str, messages: Iterable[type[Message]], summary: str = "") -> None:
        self.name = name
        self.summary = summary
        self.by_type: dict[int, type[Message]] = {}
        for cls in (*COMMON_MESSAGES, *messages):
            cls.kind()  # validates the code range
            cls.layout()  # validates the annotations early
            if cls.TYPE in self.by_type and self.by_type[cls.TYPE] is not cls:
                raise TypeError(
                    f"{name}: type {cls.TYPE:#04x} used by {self.by_type[cls.TYPE].WIRE_NAME} and {cls.WIRE_NAME}"
                )
            self.by_type[cls.TYPE] = cls

    def encode(self, message: Message, seq: int) -> bytes:
        if self.by_type.get(message.TYPE) is not type(message):
            raise TypeError(f"{message.WIRE_NAME} is not part of the {self.name} protocol")
        return encode_frame(seq, message.TYPE, message.pack())

    def decode(self, frame: Frame) -> Message:
        cls = self.by_type.get(frame.type)
        if cls is None:
            raise UnknownMessage(f"{self.name}: unknown message type {frame.type:#04x}")
        return cls.unpack(frame.payload)

    def __repr__(self) -> str:
        return f"Protocol({self.name!r}, {len(self.by_type)} messages)"


_PROTOCOLS: dict[str, Protocol] = {}


def register_protocol(protocol: Protocol) -> Protocol:
    existing = _PROTOCOLS.get(protocol.name)
    if existing is not None and existing is not protocol:
        raise ValueError(f"protocol {protocol.name!r} is already registered")
    _PROTOCOLS[protocol.name] = protocol
    return protocol


def get_protocol(name: str) -> Protocol:
    """The registered protocol ``name``; importing :mod:`drivers.codec` registers the built-ins."""
    import drivers.codec  # noqa: F401  (registers the built-in protocols)

    try:
        return _PROTOCOLS[name]
    except KeyError:
        raise KeyError(f"no protocol {name!r}; known: {sorted(_PROTOCOLS)}") from None


def protocol_names() -> list[str]:
    import drivers.codec  # noqa: F401

    return sorted(_PROTOCOLS)


# --- the stream codec: bytes in, messages out -----------------------------------------------


@dataclass(frozen=True, slots=True)
class Packet:
    """A decoded message with its sequence number and the raw frame it came from."""

    seq: int
    message: Message
    raw: bytes


@dataclass(frozen=True, slots=True)
class CodecError:
    """Input that did not become a message: a bad frame, noise, or a bad payload."""

    fault: str
    raw: bytes
    detail: str = ""
    seq: int | None = None  # known when the frame itself was good (bad payload / unknown type)
    type_code: int | None = None


class StreamCodec:
    """Framing plus one protocol: feed bytes, get packets and errors. Never raises on input."""

    def __init__(self, protocol: Protocol) -> None:
        self.protocol = protocol
        self.framer = FrameDecoder()
        self.payload_errors = 0

    def feed(self, data: bytes) -> list[Packet | CodecError]:
        out: list[Packet | CodecError] = []
        for item in self.framer.feed(data):
            if isinstance(item, FrameError):
                out.append(CodecError(item.fault.value, item.raw))
                continue
            try:
                message = self.protocol.decode(item)
            except UnknownMessage as exc:
                self.payload_errors += 1
                out.append(CodecError("unknown_type", item.raw, str(exc), item.seq, item.type))
            except PayloadError as exc:
                self.payload_errors += 1
                out.append(CodecError("bad_payload", item.raw, str(exc), item.seq, item.type))
            else:
                out.append(Packet(item.seq, message, item.raw))
        return out

    def encode(self, message: Message, seq: int) -> bytes:
        return self.protocol.encode(message, seq)

    def reset(self) -> None:
        self.framer.reset()

    @property
    def errors(self) -> int:
        return self.framer.stats.bad_frames + self.payload_errors
