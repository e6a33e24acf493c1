"""From key-down and key-up to presses: one press for each time a switch goes down and up.

A foot switch is a keyboard to the kernel, so what arrives is key events: value 1 (down),
0 (up) and 2 (the kernel's autorepeat while a key is held). Turning them into presses:

* **Repeats are ignored**: holding a pedal is one press, however long.
* **Chatter is debounced on release**: a cheap switch bounces, down-up-down within a few
  milliseconds, when it closes and when it opens. An up is taken only once the key has stayed
  up for ``debounce_s``; a down within that time was the switch bouncing and the press goes
  on. So one press is one press, whichever end bounced, and it is reported ``debounce_s``
  after the pedal is let go (30 ms: nobody notices).
* **A long press** is a key held for ``long_press_s``: it is reported the moment the hold
  reaches it (as the USB pedals do), and its release reports nothing more.
* A key already down when the device is opened (a pedal stood on while the cable went in) is
  not a press: its release is ignored.

No I/O and no clock of its own: :meth:`KeyPresses.feed` and :meth:`KeyPresses.due` take the
time, so the rules are tested with exact times (tests/input/test_presses.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

DOWN, UP, REPEAT = 1, 0, 2

DEFAULT_DEBOUNCE_S = 0.030
DEFAULT_LONG_PRESS_S = 0.800


@dataclass(frozen=True)
class KeyPress:
    """One press of the key with code ``code``; ``long`` when it was held for the long-press time."""

    code: int
    long: bool = False


@dataclass
class KeyCounts:
    presses: int = 0
    repeats_ignored: int = 0
    bounces: int = 0  # a down within the debounce time of an up: the switch bouncing


@dataclass
class _Held:
    since: float  # when it went down
    up_at: float | None = None  # an up waiting out the debounce time
    long_sent: bool = False


@dataclass
class KeyPresses:
    """Presses of the keys in ``codes`` (others are ignored), as the key events come."""

    codes: frozenset[int]
    debounce_s: float = DEFAULT_DEBOUNCE_S
    long_press_s: float = DEFAULT_LONG_PRESS_S
    counts: KeyCounts = field(default_factory=KeyCounts)
    _held: dict[int, _Held] = field(default_factory=dict)
    _ignored: set[int] = field(default_factory=set)  # down at open: not a press

    def reset(self, down_now: frozenset[int] = frozenset()) -> None:
        """A new connection: nothing pending; keys already down are not presses."""
        self._held.clear()
        self._ignored = set(down_now & self.codes)

    def feed(self, code: int, value: int, now: float) -> list[KeyPress]:
        """One key event at time ``now``; returns the presses it completes (and any due)."""
        presses = self.due(now)
        if code not in self.codes:
            return presses
        if value == REPEAT:
            self.counts.repeats_ignored += 1
            return presses
        held = self._held.get(code)
        if value == DOWN:
            if code in self._ignored:
                return presses
            if held is None:
                self._held[code] = _Held(now)
            elif held.up_at is not None:
                self.counts.bounces += 1  # it came back down before its up was taken: a bounce
                held.up_at = None
            return presses
        if value == UP:
            if code in self._ignored:
                self._ignored.discard(code)  # the key that was down at open is up: it counts from now
            elif held is not None and held.up_at is None:
                held.up_at = now
                presses += self.due(now)
        return presses

    def due(self, now: float) -> list[KeyPress]:
        """Presses whose time has come by ``now``: a long hold reached, an up that stayed up."""
        out: list[KeyPress] = []
        for code, held in list(self._held.items()):
            if not held.long_sent and held.up_at is None and now - held.since >= self.long_press_s:
                held.long_sent = True
                self.counts.presses += 1
                out.append(KeyPress(code, long=True))
            if held.up_at is not None and now - held.up_at >= self.debounce_s:
                del self._held[code]
                if not held.long_sent:
                    # Short: a hold that reached long_press_s was taken as long when its time
                    # came, since feed looks at what is due before each event, its up included.
                    self.counts.presses += 1
                    out.append(KeyPress(code, long=False))
        return out

    def next_due(self, now: float) -> float | None:
        """Seconds until :meth:`due` may have something, or None while nothing is pending."""
        waits = []
        for held in self._held.values():
            if held.up_at is not None:
                waits.append(held.up_at + self.debounce_s - now)
            elif not held.long_sent:
                waits.append(held.since + self.long_press_s - now)
        return max(0.0, min(waits)) if waits else None

    @property
    def held(self) -> frozenset[int]:
        """Keys down now (as far as the presses go: a pending up counts as down)."""
        return frozenset(self._held)
