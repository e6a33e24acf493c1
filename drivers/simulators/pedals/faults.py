"""Faults a simulated pedal unit can be made to have, and how a report is damaged on purpose.

The state lives here so that the unit's firmware (which damages, duplicates, drops and
delays reports as it queues them) and its endpoint (which stalls and hangs) read one record;
the unit's scripting API (``corrupt_next``, ``stall``, ``hang``...) sets it.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field

from drivers.usb import protocol as p
from drivers.usb.codec import ReportError, crc8, crc16, decode_report

CORRUPTIONS = ("checksum", "truncate", "garbage", "report-id", "semantic", "oversize")


class SimulatorError(RuntimeError):
    """A scripting request the simulated device cannot carry out (e.g. press while unplugged)."""


@dataclass
class UnitFaults:
    """What is wrong with the unit now. Replugging ends a stall or a hang; damage queued for
    the next reports and a slow unit's latency stay."""

    corrupt: deque[str] = field(default_factory=deque)  # how to damage each of the next reports
    duplicate: int = 0
    drop: int = 0
    stalled: bool = False
    stall_persistent: bool = False
    latency_s: float = 0.0
    hung: bool = False

    def clear_halt(self) -> None:
        """What ``CLEAR_FEATURE(ENDPOINT_HALT)`` or a new configuration does: a persistent stall stays."""
        self.stalled = self.stall_persistent

    def replugged(self) -> None:
        self.stalled = self.stall_persistent = False
        self.hung = False


def _recheck(data: bytearray, version: int) -> None:
    """Give damaged ``data`` a valid check again (so only its content is wrong)."""
    if version == 1:
        data[-1] = crc8(bytes(data[:-1]))
    else:
        data[-2:] = crc16(bytes(data[:-2])).to_bytes(2, "big")


def corrupt_report(raw: bytes, how: str, rng: random.Random, version: int = p.PROTOCOL_VERSION) -> bytes:
    """``raw`` (a report of ``version``) damaged in the way ``how`` (one of :data:`CORRUPTIONS`) names."""
    data = bytearray(raw)
    if how == "checksum":
        data[1 + rng.randrange(p.REPORT_FIELDS_LENGTH - 1)] ^= 1 << rng.randrange(8)
    elif how == "truncate":
        del data[5:]
    elif how == "garbage":
        while True:
            data = bytearray(rng.randbytes(p.report_length(version)))
            try:
                decode_report(bytes(data), version)
            except ReportError:
                break
    elif how == "report-id":
        data[0] = p.report_id(1) if version != 1 else p.report_id(2)  # the other version's ID
        _recheck(data, version)
    elif how == "semantic":
        data[4] ^= 1 << data[3]  # the held bitmap now contradicts the event, check valid
        _recheck(data, version)
    elif how == "oversize":  # more than the endpoint's packet: the host's read overflows
        data += bytes(p.max_packet_size(version) + 1 - len(data))
    return bytes(data)
