"""The simulated unit's own record of what the host did to it and what became of its reports.

Tests assert on the real pyusb call path with these (a kernel driver detached once, a stall
cleared). This is the device's side of the story: the station's record of the same link is
its driver's :class:`~drivers.devices.stats.DeviceStats`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class UnitCounters:
    """Counts kept by one simulated pedal unit since it was built."""

    opens: int = 0
    set_configurations: int = 0
    kernel_detaches: int = 0
    kernel_attaches: int = 0
    claims: int = 0
    releases: int = 0
    clear_halts: int = 0
    reports_sent: int = 0
    reports_read: int = 0
    reports_dropped: int = 0
    control_requests: int = 0
