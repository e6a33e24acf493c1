"""What the simulated table's process is started with, fixed before it starts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from station.core.options import CoreOptions
from station.host.logging import LogSettings, current_settings
from station.sim.script import DealerScript


@dataclass(frozen=True)
class TableSpec:
    """Everything the table's process needs; it crosses to the child once, at its start."""

    devices: dict[str, tuple[str, dict[str, Any]]]
    """Serial devices to simulate: name -> (kind, simulator options)."""
    options: CoreOptions
    script: DealerScript
    pedal_buttons: frozenset[str] = field(default_factory=frozenset)
    """Buttons of the (in-station) simulated pedals; the dealer presses them through the pipe."""
    cpu: int | None = None
    """The CPU the table keeps to (see :mod:`station.sim.cpus`); None: any."""
    log: LogSettings = field(default_factory=current_settings)
    """How the station logs; a table started in a fresh interpreter logs the same way."""
