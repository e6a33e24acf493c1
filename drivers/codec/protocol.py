"""Messages, per-device protocols and their versions.

Every device protocol shares the framing of :mod:`drivers.codec.framing` and the link
rules below; what differs per device is its table of messages. A :class:`Protocol` is
that table; the built-in ones are listed in :mod:`drivers.codec` (a vendor's is added to
that list), so nothing registers itself by being imported.

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

**Versions.** A protocol has numbered versions (its document has the changelog). A message
added in version *n* says so (``SINCE = n``); a field added in version *n* is annotated
``Since(n)`` and comes after the fields older versions have. Encoding for a version leaves
out what that version does not have, and refuses a message it does not have
(:class:`NotInVersion`); decoding for a version reads exactly that version's layout. So one
codec speaks every documented version, and a device of version 1 is never sent a byte it
cannot decode. ``IdentityReport`` is the one message a later version may extend without
breaking older readers: a reader takes the fields it knows and ignores what follows, so the
station can always read the version a device announces, even one newer than it knows.
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
    """A good frame whose type code the protocol (in the version spoken) does not define."""


class NotInVersion(TypeError):
    """A message asked to be sent in a version of its protocol that does not have it."""


@dataclass(frozen=True)
class Since:
    """Marks a field added in ``version`` of its protocol: ``Annotated[int, U8, Since(2)] = 0``.

    It must come after every field of the versions before and have a default: what a message
    of an older version means by leaving it out."""

    version: int


Layout = tuple[tuple[str, WireType], ...]


@dataclass(frozen=True)
class Message:
    """Base of all wire messages. Subclasses set ``TYPE`` and annotate fields with wire types."""

    TYPE: ClassVar[int] = -1
    #: The message's name in the protocol documents and in logs. Several protocols share a
    #: name (each has its ``GetStatus``) and a device's notice may share one with the station
    #: event it becomes (the shoe's ``ShoeEmpty``); the Python classes are named apart (e.g.
    #: ``ShoeGetStatus``, ``ShoeEmptyNotice``) and give their wire name here.
    WIRE_NAME: ClassVar[str] = "Message"
    #: The protocol version that added this message (older versions do not know its type code).
    SINCE: ClassVar[int] = 1
    #: A later version may append fields: a reader ignores the bytes after the fields it knows,
    #: and fields added after version 1 that the payload does not reach take their defaults.
    EXTENSIBLE: ClassVar[bool] = False
    _LAYOUT: ClassVar[Layout | None] = None
    _ADDED: ClassVar[dict[str, int] | None] = None

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
    def layout(cls) -> Layout:
        """The (field name, wire type) pairs in wire order, read from the annotations: the
        newest version's layout (:meth:`layout_for` gives an older version's)."""
        cached: tuple[tuple[str, WireType], ...] | None = cls.__dict__.get("_LAYOUT")
        if cached is not None:
            return cached
        hints = typing.get_type_hints(cls, include_extras=True)
        layout = []
        added: dict[str, int] = {}
        for f in dataclasses.fields(cls):
            metadata = getattr(hints[f.name], "__metadata__", ())
            meta = [m for m in metadata if isinstance(m, WireType)]
            if len(meta) != 1:
                raise TypeError(f"{cls.WIRE_NAME}.{f.name} needs exactly one wire type annotation")
            since = max([m.version for m in metadata if isinstance(m, Since)], default=1)
            if added and since < max(added.values()):
                raise TypeError(f"{cls.WIRE_NAME}.{f.name} (version {since}) comes after a field of a later version")
            if since > 1 and f.default is dataclasses.MISSING:
                raise TypeError(f"{cls.WIRE_NAME}.{f.name} was added in version {since} and needs a default")
            layout.append((f.name, meta[0]))
            added[f.name] = since
        cls._ADDED = added
        cls._LAYOUT = tuple(layout)
        return cls._LAYOUT

    @classmethod
    def field_since(cls, name: str) -> int:
        """The version that added field ``name``."""
        cls.layout()
        added: dict[str, int] = cls.__dict__["_ADDED"]
        return added[name]

    @classmethod
    def newest_part(cls) -> int:
        """The latest version that added this message or one of its fields."""
        return max([cls.SINCE, *(cls.field_since(name) for name, _ in cls.layout())])

    @classmethod
    def layout_for(cls, version: int | None) -> Layout:
        """The fields a message of ``version`` has (all of them for ``None``)."""
        layout = cls.layout()
        if version is None:
            return layout
        return tuple((name, wire) for name, wire in layout if cls.field_since(name) <= version)

    def pack(self, version: int | None = None) -> bytes:
        out = bytearray()
        for name, wire in self.layout_for(version):
            wire.pack(getattr(self, name), out)
        return bytes(out)

    @classmethod
    def unpack(cls, payload: bytes, version: int | None = None) -> Message:
        values: dict[str, Any] = {}
        pos = 0
        for name, wire in cls.layout_for(version):
            if cls.EXTENSIBLE and pos == len(payload) and cls.field_since(name) > 1:
                break  # an older version's message ends here: the later fields take their defaults
            values[name], pos = wire.unpack(payload, pos)
        if pos != len(payload) and not cls.EXTENSIBLE:
            raise PayloadError(f"{cls.WIRE_NAME}: {len(payload) - pos} unexpected trailing byte(s)")
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:
            raise PayloadError(f"{cls.WIRE_NAME}: {exc}") from None

    def describe(self, version: int | None = None) -> str:
        """``Name(field=value, ...)`` in the notation used by the protocol documents: the fields
        ``version`` has (all of them for ``None``)."""
        parts = [f"{name}={wire.show(getattr(self, name))}" for name, wire in self.layout_for(version)]
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
    """Who the device is, and (from version 2 of every serial protocol) which version of its
    protocol it speaks. A device that leaves the version out speaks version 1."""

    TYPE: ClassVar[int] = 0x81
    EXTENSIBLE: ClassVar[bool] = True
    model: Annotated[str, TEXT]
    serial: Annotated[str, TEXT]
    firmware: Annotated[str, TEXT]
    protocol_version: Annotated[int, U8, Since(2)] = 1


@dataclass(frozen=True)
class SelfTestResult(Message):
    TYPE: ClassVar[int] = 0x83
    passed: Annotated[bool, BOOL]
    code: Annotated[int, U8] = 0  # 0 when passed; device-specific otherwise
    detail: Annotated[str, TEXT] = ""


COMMON_MESSAGES: tuple[type[Message], ...] = (
    Ack, Nak, Identify, Ping, SelfTest, Boot, IdentityReport, SelfTestResult,
)


# --- protocols ---------------------------------------------------------------------------------


class Protocol:
    """The message table of one device type (common messages included), in all its versions.

    ``oldest``..``current`` are the versions the station speaks: it talks to each device in
    the version the device announces, and refuses one outside that range."""

    def __init__(self, name: str, messages: Iterable[type[Message]], summary: str = "", *,
                 current: int = 1, oldest: int = 1) -> None:
        if not 1 <= oldest <= current:
            raise ValueError(f"{name}: versions {oldest}-{current} are not a range from 1")
        self.name = name
        self.summary = summary
        self.current = current
        self.oldest = oldest
        self.by_type: dict[int, type[Message]] = {}
        for cls in (*COMMON_MESSAGES, *messages):
            cls.kind()  # validates the code range
            cls.layout()  # validates the annotations early
            if cls.TYPE in self.by_type and self.by_type[cls.TYPE] is not cls:
                raise TypeError(
                    f"{name}: type {cls.TYPE:#04x} used by {self.by_type[cls.TYPE].WIRE_NAME} and {cls.WIRE_NAME}"
                )
            if cls.newest_part() > current:
                raise TypeError(f"{name}: {cls.WIRE_NAME} has parts of version {cls.newest_part()}, after {current}")
            self.by_type[cls.TYPE] = cls

    @property
    def versions(self) -> range:
        """The versions the station speaks, oldest first."""
        return range(self.oldest, self.current + 1)

    def version_problem(self, announced: int) -> str | None:
        """Why a device announcing version ``announced`` cannot be spoken to; None when it can."""
        if announced in self.versions:
            return None
        which = "newer than" if announced > self.current else "older than"
        return (f"speaks {self.name} protocol version {announced}, {which} the versions this station "
                f"speaks ({self.oldest}-{self.current})")

    def messages(self, version: int | None = None) -> list[type[Message]]:
        """The message classes of ``version`` (the current one for ``None``), by type code."""
        version = self.current if version is None else version
        return [cls for _, cls in sorted(self.by_type.items()) if version >= cls.SINCE]

    def encode(self, message: Message, seq: int, version: int | None = None) -> bytes:
        if self.by_type.get(message.TYPE) is not type(message):
            raise TypeError(f"{message.WIRE_NAME} is not part of the {self.name} protocol")
        version = self.current if version is None else version
        if version < message.SINCE:
            raise NotInVersion(f"{message.WIRE_NAME} is not in {self.name} protocol version {version}")
        return encode_frame(seq, message.TYPE, message.pack(version))

    def decode(self, frame: Frame, version: int | None = None) -> Message:
        version = self.current if version is None else version
        cls = self.by_type.get(frame.type)
        if cls is None or version < cls.SINCE:
            raise UnknownMessage(f"{self.name} version {version}: unknown message type {frame.type:#04x}")
        return cls.unpack(frame.payload, version)

    def __repr__(self) -> str:
        return f"Protocol({self.name!r}, {len(self.by_type)} messages, versions {self.oldest}-{self.current})"


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
    """Framing plus one protocol in one version: feed bytes, get packets and errors; never
    raises on input. ``version`` is the protocol's current one unless set (the host sets the
    version the device announced)."""

    def __init__(self, protocol: Protocol, version: int | None = None) -> None:
        self.protocol = protocol
        self.version = protocol.current if version is None else version
        self.framer = FrameDecoder()
        self.payload_errors = 0

    def feed(self, data: bytes) -> list[Packet | CodecError]:
        out: list[Packet | CodecError] = []
        for item in self.framer.feed(data):
            if isinstance(item, FrameError):
                out.append(CodecError(item.fault.value, item.raw))
                continue
            try:
                message = self.protocol.decode(item, self.version)
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
        return self.protocol.encode(message, seq, self.version)

    def reset(self) -> None:
        self.framer.reset()

    @property
    def errors(self) -> int:
        return self.framer.stats.bad_frames + self.payload_errors
