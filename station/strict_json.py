"""JSON from a sender the station did not write, parsed so that it cannot hurt the reader.

Python's :func:`json.loads` recurses once per level of nesting (a few thousand ``[`` end in a
``RecursionError`` and a traceback), keeps the last of two equal keys (``"command": "status",
"command": "pause"`` is ``pause`` behind a reader who saw ``status``), turns a digit string of
any length into an integer (quadratic time for a long one), and takes ``NaN`` and
``Infinity``. The control socket (:mod:`station.service.control_requests`) and the dealer's
console (:mod:`station.console.server`) both take JSON from the network, so both parse it
here, by the same rules:

- the nesting is measured *before* the parser runs (:class:`DepthGauge`, which can also be
  fed a body chunk by chunk as it arrives, so a deep body is refused at its first bytes);
- a key given twice in any object is refused (:class:`RepeatedKey`);
- an integer has a bounded number of digits (:class:`LongInteger`);
- ``NaN``, ``Infinity`` and ``-Infinity`` are refused (:class:`NotANumber`).

Each refusal is a :class:`StrictJsonError` of its own kind carrying what the caller needs to
word it in its own terms (the control socket keeps its exact texts). This module is neutral:
it imports nothing of the station, so the console's process can use it without the service.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The characters that open or close a level, start or end a string, or escape inside one.
_STRUCTURE = re.compile(r'[\[\]{}"\\]')


class StrictJsonError(ValueError):
    """A text that is not taken as JSON; ``str()`` says why in words any caller can use."""


class Malformed(StrictJsonError):
    """Not JSON at all (or cut short)."""


class TooDeep(StrictJsonError):
    """Nested deeper than the caller allows (found before any parser ran)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"nested deeper than {limit} levels")
        self.limit = limit


class LongInteger(StrictJsonError):
    """An integer with more digits than the caller allows."""

    def __init__(self, digits: int, limit: int) -> None:
        super().__init__(f"an integer of {digits} digits (at most {limit})")
        self.digits, self.limit = digits, limit


class RepeatedKey(StrictJsonError):
    """A key given twice in one object: which of the two is meant cannot be known."""

    def __init__(self, key: str) -> None:
        super().__init__(f"{key[:64]!r} given twice")
        self.key = key


class NotANumber(StrictJsonError):
    """``NaN``, ``Infinity`` or ``-Infinity``: not JSON numbers, though Python takes them."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} is not a number")
        self.name = name


class DepthGauge:
    """How deep a JSON text nests, measured without parsing it, so that a text too deep for
    the parser's recursion is refused before the parser sees it.

    Fed the text in pieces (a request's body as it arrives: bytes; or a decoded line: text),
    it keeps its place across pieces, inside a string or not. Bytes and text are measured
    alike: in UTF-8 no byte of a multi-byte character is one of the ASCII characters counted.
    Brackets inside strings do not count; nor does a bracket that a malformed text closes too
    often (the parser refuses that text anyway)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.depth = 0
        self._in_string = False
        self._escaped = False

    def feed(self, piece: str | bytes) -> None:
        """Measure one more piece; raises :class:`TooDeep` as soon as the limit is passed."""
        # Latin-1 maps each byte to one character: the ASCII ones keep their places.
        text = piece.decode("latin-1") if isinstance(piece, bytes) else piece
        escape_at = -2  # where the character after a backslash in a string is
        if self._escaped and text:
            self._escaped, escape_at = False, 0  # the piece starts with an escaped character
        for match in _STRUCTURE.finditer(text):
            char, at = match.group(), match.start()
            if self._in_string:
                if at == escape_at:
                    continue
                if char == "\\":
                    escape_at = at + 1
                    if escape_at == len(text):
                        self._escaped = True  # the escaped character is in the next piece
                elif char == '"':
                    self._in_string = False
            elif char == '"':
                self._in_string = True
            elif char in "[{":
                self.depth += 1
                if self.depth > self.limit:
                    raise TooDeep(self.limit)
            elif char in "]}":
                self.depth -= 1


def check_depth(text: str | bytes, limit: int) -> None:
    """Raises :class:`TooDeep` when ``text`` nests deeper than ``limit`` levels."""
    DepthGauge(limit).feed(text)


def loads(text: str, *, max_depth: int, max_integer_digits: int) -> Any:
    """The value of the JSON ``text``, by the rules of this module; raises a
    :class:`StrictJsonError` of the kind that says what is wrong (the first found, in the order
    the text is read: the depth before anything else)."""
    check_depth(text, max_depth)

    def bounded_int(digits: str) -> int:
        count = len(digits.lstrip("-"))
        if count > max_integer_digits:
            raise LongInteger(count, max_integer_digits)
        return int(digits)

    try:
        return json.loads(text, parse_int=bounded_int, parse_constant=_no_constant, object_pairs_hook=_no_repeats)
    except StrictJsonError:
        raise
    except (ValueError, RecursionError):  # RecursionError cannot come past the depth check; kept as a guard
        raise Malformed("not JSON") from None


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object with each key once; a repeated key is refused (which one is meant?)."""
    value: dict[str, Any] = {}
    for key, item in pairs:
        if key in value:
            raise RepeatedKey(key)
        value[key] = item
    return value


def _no_constant(name: str) -> Any:
    raise NotANumber(name)


__all__ = ["DepthGauge", "LongInteger", "Malformed", "NotANumber", "RepeatedKey", "StrictJsonError", "TooDeep",
           "check_depth", "loads"]
