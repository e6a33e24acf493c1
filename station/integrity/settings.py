"""``[integrity]``: the integrity monitor's section of the configuration (docs/integrity.md)."""

from __future__ import annotations

from pydantic import Field

from station.config.strict import StrictSection


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
