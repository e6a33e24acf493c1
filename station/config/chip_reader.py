"""``[table.chip_bets]`` and ``[chip_reader]``: a table that reads its chips (docs/chips.md).

Two sections because two people own them. ``[table.chip_bets]`` is the casino's rule: whether
the dealer confirms the chips' bets with one tap or the table takes them as read, and whether a
wrong payment holds the next round. It changes how a journal replays, so it is kept with the
table in the journal's configuration record. ``[chip_reader]`` is the technician's: which
antenna lies under which place of the layout, the chip maker's registry file, and how steady a
read must be before it is believed. It says how reads reach the journal, not what the journal
means, so it may change between two runs of one journal.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from station.chips.places import ChipPlace
from station.config.strict import StrictSection


class ChipBetsSection(StrictSection):
    """``[table.chip_bets]``: how the table takes its bets from the chips its reader sees."""

    confirm: Literal["tap", "as_read"] = "tap"
    """``tap``: each spot's chips propose its bet and the dealer confirms them all with one tap;
    ``as_read``: a spot's bet is what its chips say as soon as they are read."""
    hold_wrong_payment: bool = True
    """A payment the payout zone shows wrong holds the next round until it is put right or a
    supervisor accepts it; false: it is shown and counted only."""


class ChipReaderSection(StrictSection):
    """``[chip_reader]``: the reader's antennas on the layout, the registry, the stable rule."""

    registry: str = Field(min_length=1)
    """The chip maker's registry file (CSV, docs/chips.md), relative to this file's folder."""
    antennas: dict[str, str] = Field(min_length=1)
    """Antenna number (1-255) = the place over it: ``spot:BOX:REGION``, ``payout:BOX`` or ``tray``."""
    stable_reads: int = Field(default=2, ge=1, le=20)
    """Clean reads of the same chips in a row before a place's chips are believed."""
    stable_ms: int = Field(default=1000, ge=10, le=60_000)
    """Or this long since the first of them, the reader saying nothing new. The station reads
    continuously, and a reader in continuous mode reports an antenna only when its chips change:
    a steady read is not reported again, so this is what makes it believed (at least 10 ms)."""
    period_ms: int = Field(default=100, ge=50, le=60_000)
    """How often the reader reads every antenna in continuous mode (the station sets it)."""

    @field_validator("antennas")
    @classmethod
    def _places(cls, antennas: dict[str, str]) -> dict[str, str]:
        seen: dict[str, str] = {}
        for number, place in antennas.items():
            if not number.isdigit() or not 1 <= int(number) <= 255:
                raise ValueError(f"antenna {number!r}: antennas are numbered 1 to 255")
            try:
                ChipPlace.parse(place)
            except ValueError as exc:
                raise ValueError(f"antenna {number}: {exc}") from None
            if place in seen:
                raise ValueError(f"antennas {seen[place]} and {number} are both under {place}")
            seen[place] = number
        return antennas

    def places(self) -> dict[int, ChipPlace]:
        """Antenna number -> the place over it."""
        return {int(number): ChipPlace.parse(place) for number, place in self.antennas.items()}

    def reads_tray(self) -> bool:
        """An antenna lies under the chip tray: it may count an opener or a closer (docs/tray.md)."""
        return str(ChipPlace.tray()) in self.antennas.values()
