"""A keyboard-wedge reader's keys as the text it types, and a player card's number in that text.

Magnetic-stripe and barcode readers sold for casino tables are USB HID keyboards: a swipe or a
scan is typed, a character a key press (with Shift for ``%``, ``?``, ``^``...), and ends with
Enter. :class:`KeyboardWedge` turns key events into those lines; :func:`card_number` finds
the card's number in one:

* a magnetic stripe's track 2 (ISO/IEC 7813): ``;4000123456789=2912...?``: the digits before
  ``=`` (the primary account number);
* its track 1: ``%B4000123456789^PLAYER/ANNA^2912...?``: the digits after ``B``;
* a barcode (or a number typed on the reader's keypad): 4 to 32 letters, digits and dashes.

Anything else (a swipe read badly, half a track) is no card: the driver counts it and emits
nothing. A line must be typed at a reader's speed: one whose keys stop for longer than
``idle_s`` before its Enter is dropped (a person leaning on a keyboard is no card reader).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Key codes of linux/input-event-codes.h a reader types with (no python-evdev needed here).
_DIGITS = {2: "1", 3: "2", 4: "3", 5: "4", 6: "5", 7: "6", 8: "7", 9: "8", 10: "9", 11: "0"}
_SHIFTED_DIGITS = {2: "!", 3: "@", 4: "#", 5: "$", 6: "%", 7: "^", 8: "&", 9: "*", 10: "(", 11: ")"}
_LETTERS = {16: "q", 17: "w", 18: "e", 19: "r", 20: "t", 21: "y", 22: "u", 23: "i", 24: "o", 25: "p", 30: "a",
            31: "s", 32: "d", 33: "f", 34: "g", 35: "h", 36: "j", 37: "k", 38: "l", 44: "z", 45: "x", 46: "c",
            47: "v", 48: "b", 49: "n", 50: "m"}
_PUNCTUATION = {12: ("-", "_"), 13: ("=", "+"), 39: (";", ":"), 51: (",", "<"), 52: (".", ">"), 53: ("/", "?"),
                57: (" ", " ")}
_KEYPAD = {79: "1", 80: "2", 81: "3", 75: "4", 76: "5", 77: "6", 71: "7", 72: "8", 73: "9", 82: "0"}
KEY_ENTER, KEY_KPENTER = 28, 96
_SHIFTS = frozenset({42, 54})  # left and right Shift
#: The longest line a reader types (track 1 holds 79 characters).
MAX_LINE = 128

_TRACK2 = re.compile(r";(\d{1,19})=[0-9=]*\??")
_TRACK1 = re.compile(r"%B(\d{1,19})\^[^^]*\^.*")
_BARCODE = re.compile(r"[0-9A-Za-z-]{4,32}")


def card_number(line: str) -> str | None:
    """The card's number in what a reader typed, or None for anything that is not a card."""
    text = line.strip()
    for pattern in (_TRACK2, _TRACK1):
        match = pattern.fullmatch(text)
        if match:
            return match[1]
    return text if _BARCODE.fullmatch(text) else None


@dataclass
class WedgeCounts:
    lines: int = 0
    dropped_idle: int = 0
    dropped_long: int = 0


class KeyboardWedge:
    """Key events in, typed lines out (:meth:`feed`)."""

    def __init__(self, idle_s: float = 0.5) -> None:
        self.idle_s = idle_s
        self.counts = WedgeCounts()
        self._shift: set[int] = set()
        self._line: list[str] = []
        self._last = 0.0

    def reset(self) -> None:
        """A device opened afresh: nothing half-typed, no Shift held."""
        self._shift.clear()
        self._line.clear()

    def feed(self, code: int, value: int, now: float) -> str | None:
        """One key event (value 1 down, 0 up, 2 autorepeat) at ``now``; the line when it ended."""
        if code in _SHIFTS:
            (self._shift.add if value else self._shift.discard)(code)
            return None
        if value != 1:
            return None  # characters are typed on key down; a held key's repeats are no reader's
        if self._line and now - self._last > self.idle_s:
            self.counts.dropped_idle += 1
            self._line.clear()
        self._last = now
        if code in (KEY_ENTER, KEY_KPENTER):
            line, self._line = "".join(self._line), []
            if line:
                self.counts.lines += 1
                return line
            return None
        char = self._char(code)
        if char is not None:
            if len(self._line) >= MAX_LINE:
                self.counts.dropped_long += 1
                self._line.clear()
            self._line.append(char)
        return None

    def _char(self, code: int) -> str | None:
        shifted = bool(self._shift)
        if code in _DIGITS:
            return _SHIFTED_DIGITS[code] if shifted else _DIGITS[code]
        if code in _LETTERS:
            return _LETTERS[code].upper() if shifted else _LETTERS[code]
        if code in _PUNCTUATION:
            return _PUNCTUATION[code][shifted]
        return _KEYPAD.get(code)


def keys_for(text: str) -> list[tuple[int, bool]]:
    """The keys (code, with Shift) that type ``text`` on a US layout: what a simulated reader sends."""
    found: list[tuple[int, bool]] = []
    table: dict[str, tuple[int, bool]] = {}
    for code, char in _DIGITS.items():
        table[char] = (code, False)
    for code, char in _SHIFTED_DIGITS.items():
        table[char] = (code, True)
    for code, char in _LETTERS.items():
        table[char], table[char.upper()] = (code, False), (code, True)
    for code, (plain, shifted) in _PUNCTUATION.items():
        table.setdefault(plain, (code, False))
        table.setdefault(shifted, (code, True))
    for char in text:
        if char not in table:
            raise ValueError(f"a reader does not type {char!r}")
        found.append(table[char])
    return found
