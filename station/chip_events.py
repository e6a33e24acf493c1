"""The events of the RFID chip reader under a table's layout (docs/protocols/chipreader.md).

A read is what one inventory round of one antenna saw: the UIDs of the chips it read, each 16
uppercase hex digits (the eight bytes of an ISO 15693 tag, printed first byte first), sorted,
each once. It is an antenna's whole set, not a change to the last read, so whoever misses one
read is right again with the next. It is not the truth of the layout: a round can miss a chip,
and ``collisions`` above 0 says that chips there answered together and were not read. Which
spot an antenna is under is the station's configuration, so the event names the antenna only.
The reader's antenna faults are :class:`~station.events.DeviceFault` (code ``antenna_fault``).
"""

from __future__ import annotations

from dataclasses import dataclass

from station.event_base import DeviceEvent


@dataclass(frozen=True)
class ChipsRead(DeviceEvent):
    """Antenna ``antenna`` read exactly ``uids`` in round ``round_no`` (the reader's count since
    it powered up), with ``collisions`` slots where chips answered together and were not read."""

    antenna: int
    uids: tuple[str, ...]
    round_no: int
    collisions: int = 0
