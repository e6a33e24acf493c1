"""``[integrity]``: the integrity monitor's section of the configuration (docs/integrity.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from station.config.strict import StrictSection

if TYPE_CHECKING:
    from station.integrity.monitor import IntegritySettings


class IntegritySection(StrictSection):
    """The integrity monitor (docs/integrity.md). It never changes how a journal replays, so it
    is not part of the configuration a journal records."""

    repeat_depth: int = Field(default=20, ge=1, le=100)
    """Earlier shoes a new shoe is compared with (the repeated-shoe test)."""
    advantage_percent: float = Field(default=1.0, ge=0.0, le=100.0)
    """Alert when a wager's edge for the players exceeds this many percent."""
    significance: float = Field(default=0.001, gt=0.0, lt=0.5)
    """Result statistics alert below this p-value."""
    window_rounds: int = Field(default=400, ge=50, le=10_000)
    """Rounds in the rolling window of the result statistics."""
    tray_variance: int = Field(default=0, ge=0)
    """An alarm when a reconciled chip tray's variance exceeds this many minor units (0: any)."""

    def monitor_settings(self) -> IntegritySettings:
        """What the monitor is asked to watch for, from this section."""
        from station.integrity.monitor import IntegritySettings as Settings

        return Settings(repeat_depth=self.repeat_depth, advantage_percent=self.advantage_percent,
                                 significance=self.significance, window_rounds=self.window_rounds,
                                 tray_variance=self.tray_variance)
