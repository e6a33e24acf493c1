"""How often the console's picture may go out: a token bucket (:class:`PictureBudget`).

The console's picture is the whole table, encoded and sent whole. A table dealt at full speed
changes hundreds of times a second, and sending each change would cost the table's own CPU
for screens no person reads that fast; so pictures are rationed. A fixed least interval
between two pictures did that, but it also held back a change that came just after another
at a person's pace: a chip put down a moment after the last one taken off waited out the
interval (up to 100 ms) before the dealer saw it. A bucket lets a few pictures go at once
(``burst``) and holds the sustained rate at ``rate`` a second: at a person's pace every
change goes out as it happens, and only a sustained flood is rationed, its latest picture
always going out within ``1 / rate`` seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class PictureBudget:
    """``burst`` pictures at once, ``rate`` a second sustained; the clock is the caller's
    (monotonic seconds)."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"a picture budget needs a rate above 0 and a burst from 1, got {rate!r}, {burst!r}")
        self.rate, self.burst, self._clock = rate, burst, clock
        self._tokens = float(burst)
        self._at = clock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        self._at = now

    def wait_s(self) -> float:
        """How long until a picture may go out (0: now)."""
        self._refill()
        return 0.0 if self._tokens >= 1 else (1 - self._tokens) / self.rate

    def spend(self) -> None:
        """A picture went out."""
        self._refill()
        self._tokens -= 1
