"""What a device's link has been through: one record for every device, serial or USB.

The serial link and the USB pedals used to keep two records that said the same things in
different words (``LinkStats.reconnections`` and ``DriverStats.reconnects``, ``bad_frames``
and ``corrupt``). Diagnostics print this record and tests assert on it, so one vocabulary
lets both do it the same way for every device. A counter a transport has no use for stays 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class DeviceStats:
    """Counters of one device's link since its driver was built (never reset)."""

    frames_in: int = 0
    """Intact frames (serial) or reports (USB) from the device, resends and duplicates included."""
    frames_out: int = 0
    """Frames sent (serial commands and ACKs) or control requests made (USB)."""
    bad_frames: int = 0
    """Frames or reports the codec refused (bad checksum, malformed, undecodable): never events."""
    noise_bytes: int = 0
    """Bytes between frames that belonged to none (serial)."""
    duplicates: int = 0
    """Events the device sent more than once, dropped so each reaches the station once."""
    lost: int = 0
    """Events the device's sequence numbers say never arrived (USB pedals)."""
    retransmissions: int = 0
    """Commands sent again for want of an answer (serial)."""
    stale_responses: int = 0
    """Answers that came after their command had given up (serial)."""
    events_delivered: int = 0
    """Device events handed over to the station, each once (what ``observe_deliveries`` counts)."""
    heartbeats: int = 0
    """Requests made only to prove a quiet device still answers."""
    connect_attempts: int = 0
    """Times the device was opened (and greeted), successful or not."""
    reconnections: int = 0
    """Outages that ended with the device answering again."""
    faults: int = 0
    """Outages reported (one ``DeviceFault`` each)."""
    errors_by_kind: dict[str, int] = field(default_factory=dict)
    """Every refused frame or link error by kind: ``bad_crc``, ``noise``, ``bad_report``, ``stalled``..."""

    def count_error(self, kind: str, times: int = 1) -> None:
        self.errors_by_kind[kind] = self.errors_by_kind.get(kind, 0) + times
