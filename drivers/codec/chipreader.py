"""Wire messages of the RFID chip reader under a table's layout (``docs/protocols/chipreader.md``).

The reader has antennas numbered 1..N (one under each betting spot, each payout zone, the chip
tray: which is which is the station's configuration, never the reader's business) and reports,
per antenna, the UIDs of the casino chips its last inventory round read. A UID is eight bytes
(ISO 15693), carried as one big-endian ``u64`` whose bytes are the UID's in the order they are
printed (``E0`` first), and written everywhere else as 16 uppercase hex digits.

Two rules keep a half-read stack from ever passing for a read: a report may come in parts (a
stack of a hundred chips is 800 bytes of UIDs), every part numbered and the last one saying
``complete``; and every report is an antenna's *whole* set, never a change to the last one, so
whatever report goes missing, the next one is right on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum
from typing import Annotated, Any, ClassVar

from drivers.codec.fields import BOOL, TEXT, U8, U16, U32, EnumU8, ListOf, Record, UInt
from drivers.codec.protocol import Message, Protocol

#: Antennas are numbered from 1; one byte numbers them.
MAX_ANTENNAS = 255
#: UIDs in one report part, at most: 1 KB of UIDs keeps a frame short on the line (about 90 ms
#: at 115200 baud), so a big stack does not hold up the frames behind it.
MAX_UIDS_PER_PART = 128
#: The continuous mode's period, in milliseconds: between a pass over every antenna and the next.
MIN_PERIOD_MS = 50
MAX_PERIOD_MS = 60_000

_HEX_UID = re.compile(r"[0-9A-F]{16}")


@dataclass(frozen=True)
class _UidType(UInt):
    """``uid``: eight bytes, first byte first, read as one big-endian ``u64``.

    It is the shared :class:`~drivers.codec.fields.UInt` with eight bytes (as the sign's ``u64``
    is), so every check and every tool that knows ``UInt`` (the documents' tables, the fuzzing
    strategies) treats it alike; only its notation differs: 16 hex digits, as a UID is printed."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "doc", "uid (8 bytes)")
        object.__setattr__(self, "code", "Q")
        object.__setattr__(self, "_fmt", ">Q")

    def show(self, value: Any) -> str:
        return uid_text(value)


UID = _UidType(8)


def uid_text(uid: int) -> str:
    """The UID as it is printed and as the station's events carry it: 16 uppercase hex digits."""
    return f"{uid:016X}"


def parse_uid(text: str | int) -> int:
    """A UID from its 16 hex digits (spaces and colons between bytes allowed) or its number."""
    if isinstance(text, int) and not isinstance(text, bool):
        if not 0 <= text < 1 << 64:
            raise ValueError(f"a UID is eight bytes, not {text}")
        return text
    if not isinstance(text, str):
        raise TypeError(f"a UID is 16 hex digits, not {text!r}")
    digits = text.replace(":", "").replace(" ", "").upper()
    if not _HEX_UID.fullmatch(digits):
        raise ValueError(f"a UID is 16 hex digits (8 bytes), not {text!r}")
    return int(digits, 16)


class AntennaFaultCode(IntEnum):
    """Why an antenna cannot read (``AntennaFault``; a failed self-test names them)."""

    DISCONNECTED = 1  # open circuit: its cable or connector is off
    SHORT_CIRCUIT = 2
    DETUNED = 3  # its tuning is off (metal on the layout, a crushed coil): it cannot read reliably


class AntennaState(IntEnum):
    """An antenna in ``AntennaList``: reading, or faulted with one of the fault codes."""

    OK = 0
    DISCONNECTED = 1
    SHORT_CIRCUIT = 2
    DETUNED = 3


@dataclass(frozen=True)
class AntennaEntry:
    """One antenna of ``AntennaList``."""

    antenna: int
    state: AntennaState


ANTENNA = Record(AntennaEntry, (("antenna", U8), ("state", EnumU8(AntennaState))))
UIDS = ListOf(UID, count=U8, max_items=MAX_UIDS_PER_PART)


# commands


@dataclass(frozen=True)
class ReaderGetStatus(Message):
    WIRE_NAME = "GetStatus"
    TYPE: ClassVar[int] = 0x04


@dataclass(frozen=True)
class GetAntennas(Message):
    """Which antennas the reader has, and which of them can read."""

    TYPE: ClassVar[int] = 0x10


@dataclass(frozen=True)
class Inventory(Message):
    """Run one inventory round on ``antenna`` now; answered by the first part of its report."""

    TYPE: ClassVar[int] = 0x11
    antenna: Annotated[int, U8]


@dataclass(frozen=True)
class InventoryPart(Message):
    """Part ``part`` (from 2) of round ``round_no``'s report on ``antenna``: the same part each
    time it is asked, or ``Nak(not_allowed_now)`` once the reader no longer has that round."""

    TYPE: ClassVar[int] = 0x12
    antenna: Annotated[int, U8]
    round_no: Annotated[int, U32]
    part: Annotated[int, U8]


@dataclass(frozen=True)
class SetMode(Message):
    """``continuous``: inventory every antenna each ``period_ms`` and report each antenna whose
    set changed (``AntennaChanged``); off: inventory only when asked (``period_ms`` 0)."""

    TYPE: ClassVar[int] = 0x13
    continuous: Annotated[bool, BOOL]
    period_ms: Annotated[int, U16] = 0


@dataclass(frozen=True)
class SetRfPower(Message):
    """The antennas' field strength, percent 1-100: lower, a spot no longer reads the chips on
    the spot beside it (and reads its own less far)."""

    TYPE: ClassVar[int] = 0x14
    level: Annotated[int, U8]


# responses


@dataclass(frozen=True)
class ReaderStatus(Message):
    TYPE: ClassVar[int] = 0x84
    continuous: Annotated[bool, BOOL]
    period_ms: Annotated[int, U16]  # 0 when not continuous
    rf_power: Annotated[int, U8]
    rounds: Annotated[int, U32]  # inventory rounds since power-up
    faulted: Annotated[tuple[int, ...], ListOf(U8, count=U8, max_items=MAX_ANTENNAS)] = ()


@dataclass(frozen=True)
class AntennaList(Message):
    TYPE: ClassVar[int] = 0x90
    antennas: Annotated[tuple[AntennaEntry, ...], ListOf(ANTENNA, count=U8, max_items=MAX_ANTENNAS)]


@dataclass(frozen=True)
class InventoryReport(Message):
    """One part of one round's report on one antenna: the UIDs read, and how many slots held
    tags answering together (``collisions``: chips there that this round did not read)."""

    TYPE: ClassVar[int] = 0x91
    antenna: Annotated[int, U8]
    round_no: Annotated[int, U32]
    part: Annotated[int, U8]  # from 1
    complete: Annotated[bool, BOOL]  # the last part of this round
    collisions: Annotated[int, U8]
    uids: Annotated[tuple[int, ...], UIDS] = ()


# events


@dataclass(frozen=True)
class AntennaChanged(Message):
    """Continuous mode: ``antenna``'s whole set (not what changed) after a round whose set or
    collisions differ from its previous round's; in parts as ``InventoryReport``."""

    TYPE: ClassVar[int] = 0x40
    antenna: Annotated[int, U8]
    round_no: Annotated[int, U32]
    part: Annotated[int, U8]
    complete: Annotated[bool, BOOL]
    collisions: Annotated[int, U8]
    uids: Annotated[tuple[int, ...], UIDS] = ()


@dataclass(frozen=True)
class AntennaFault(Message):
    TYPE: ClassVar[int] = 0x41
    antenna: Annotated[int, U8]
    code: Annotated[AntennaFaultCode, EnumU8(AntennaFaultCode)]
    detail: Annotated[str, TEXT] = ""


@dataclass(frozen=True)
class AntennaRestored(Message):
    TYPE: ClassVar[int] = 0x42
    antenna: Annotated[int, U8]


#: A report part, whether asked for (``InventoryReport``) or sent in continuous mode (``AntennaChanged``).
ReportPart = InventoryReport | AntennaChanged

CHIPREADER = Protocol(
    "chipreader",
    (ReaderGetStatus, GetAntennas, Inventory, InventoryPart, SetMode, SetRfPower, ReaderStatus, AntennaList,
     InventoryReport, AntennaChanged, AntennaFault, AntennaRestored),
    summary="RFID chip reader: the casino chips on each antenna under the layout",
    current=2,  # the changelog is in docs/protocols/chipreader.md
)
