"""Turn a stream of decoded pedal reports into presses, each exactly once.

The rule (documented in ``docs/protocols/pedals.md``): a press is emitted **once**, either
when the device reports the long-press threshold (``LONG`` -> a long press) or, if it never
did, on release (``UP`` -> a short press). The ``UP`` after a ``LONG`` emits nothing. If
the ``LONG`` report was lost, the ``UP`` carries the long flag and the long press is emitted
then, late but not lost. ``DOWN`` only arms the button.

Sequence numbers guard against a report delivered twice (same number as the last one:
skipped) and reveal lost reports (a jump: counted). The tracker is pure and has no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.usb.codec import PedalReport
from drivers.usb.protocol import EventType


@dataclass(frozen=True)
class Press:
    button: int  # 0-based index on the device
    long: bool


@dataclass
class TrackerCounts:
    reports: int = 0
    duplicates: int = 0
    lost: int = 0  # reports the sequence numbers say never arrived
    presses: int = 0


@dataclass
class PressTracker:
    """Per-connection state: the last sequence number and which buttons already fired long."""

    counts: TrackerCounts = field(default_factory=TrackerCounts)
    _last_sequence: int | None = None
    _long_sent: set[int] = field(default_factory=set)

    def reset(self) -> None:
        """Forget the link state, e.g. after a reconnect: the device restarted its numbering."""
        self._last_sequence = None
        self._long_sent.clear()

    def feed(self, report: PedalReport) -> list[Press]:
        """The presses ``report`` completes (zero or one); duplicates yield nothing."""
        if self._last_sequence is not None:
            step = (report.sequence - self._last_sequence) % 256
            if step == 0:
                self.counts.duplicates += 1
                return []
            self.counts.lost += step - 1
        self._last_sequence = report.sequence
        self.counts.reports += 1

        presses: list[Press] = []
        if report.event is EventType.DOWN:
            self._long_sent.discard(report.button)
        elif report.event is EventType.LONG:
            if report.button not in self._long_sent:
                self._long_sent.add(report.button)
                presses.append(Press(report.button, long=True))
        elif report.event is EventType.UP:
            # A LONG already fired belongs to this press only if the UP says it was long;
            # otherwise it was an earlier press whose UP and this press's DOWN were lost.
            fired = report.long and report.button in self._long_sent
            self._long_sent.discard(report.button)
            if not fired:
                presses.append(Press(report.button, long=report.long))
        self.counts.presses += len(presses)
        return presses

    @property
    def last_sequence(self) -> int | None:
        return self._last_sequence
