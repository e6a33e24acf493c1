"""``station diag chip-read``: every antenna of the chip reader inventoried once, its chips listed.

The reader lists its antennas (``GetAntennas``) and each antenna that can read runs one round;
the technician sees, one line per antenna, the UIDs it read, or the antenna's fault, or why the
round gave nothing (no answer, a report whose parts stopped: half a stack is never shown as a
read). Placing a known chip on each spot in turn and running this is how a layout's antennas are
matched to its spots at installation, and how an RF power that reads the spot beside is found.
A faulted antenna or a failed round fails the check; collisions do not (they say the round
missed chips, which a second run reads), but the line says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from drivers.devices import ChipReaderDriver, DeviceError


@dataclass(frozen=True)
class AntennaOutcome:
    """One antenna's line: its fault (``""`` when it reads), what its round read, or why it failed."""

    antenna: int
    fault: str = ""
    uids: tuple[str, ...] = ()
    collisions: int = 0
    round_no: int = 0
    error: str = ""

    @property
    def passed(self) -> bool:
        return not self.fault and not self.error


@dataclass
class ChipReadReport:
    """Every antenna's outcome, in the reader's order."""

    antennas: list[AntennaOutcome] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(outcome.passed for outcome in self.antennas)

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed,
                "antennas": [{**vars(outcome), "uids": list(outcome.uids), "passed": outcome.passed}
                             for outcome in self.antennas]}


def read_every_antenna(reader: ChipReaderDriver,
                       on_antenna: Callable[[AntennaOutcome], Any] | None = None) -> ChipReadReport:
    """List the antennas and inventory each one that can read; ``on_antenna`` hears each line as
    it is known. Raises :class:`~drivers.devices.errors.DeviceError` only if the list cannot be had."""
    report = ChipReadReport()
    for info in reader.antennas():
        if not info.ok:
            outcome = AntennaOutcome(info.antenna, fault=info.fault)
        else:
            try:
                read = reader.inventory(info.antenna)
            except DeviceError as exc:
                outcome = AntennaOutcome(info.antenna, error=str(exc))
            else:
                outcome = AntennaOutcome(info.antenna, uids=read.uids, collisions=read.collisions,
                                         round_no=read.round_no)
        report.antennas.append(outcome)
        if on_antenna is not None:
            on_antenna(outcome)
    return report


def format_outcome(outcome: AntennaOutcome) -> str:
    """``  antenna 3   2 chips   E004015012345678 E004015012345679``, one line."""
    head = f"  antenna {outcome.antenna:<3} "
    if outcome.fault:
        return f"{head}FAULT     {outcome.fault}"
    if outcome.error:
        return f"{head}FAILED    {outcome.error}"
    count = len(outcome.uids)
    chips = "no chips" if not count else f"{count} chip{'s' if count > 1 else ''}"
    line = f"{head}{chips:<9} {' '.join(outcome.uids)}".rstrip()
    if outcome.collisions:
        line += f" ({outcome.collisions} collision{'s' if outcome.collisions > 1 else ''}: chips there were not read)"
    return line


def format_verdict(report: ChipReadReport) -> str:
    faulted = [str(o.antenna) for o in report.antennas if o.fault]
    failed = [str(o.antenna) for o in report.antennas if o.error]
    if report.passed:
        chips = sum(len(o.uids) for o in report.antennas)
        return f"every antenna read: {chips} chip(s) on {len(report.antennas)} antenna(s)"
    parts = ([f"antenna(s) {', '.join(faulted)} faulted"] if faulted else []) + (
        [f"antenna(s) {', '.join(failed)} not read"] if failed else [])
    return "FAILED: " + "; ".join(parts)
