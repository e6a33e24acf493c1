"""What a control request may hold, checked where it enters, before anything acts on it.

Whatever arrives on the control socket is bytes from a program the station did not write.
A request is applied only once it is known to be a small, shallow JSON object of valid
Unicode text, bounded integers, and the three known keys with their types, no key given twice
in any object (JSON parsers keep the last of two, so ``"command": "status", "command":
"resume"`` would run ``resume`` behind a reader who saw ``status``); each command then checks
its own arguments (:mod:`station.service.control_commands`). Anything else is refused with
``<field>: <what is wrong>``, never turned into an exception that could reach the table.

The parsing itself (the depth measured before the parser runs, repeated keys, bounded
integers, no ``NaN``) is :mod:`station.strict_json`'s, shared with the dealer's console;
this module words its refusals as the control socket always has.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from station import strict_json

MAX_REQUEST_BYTES = 64 * 1024
#: Objects and arrays inside objects and arrays: a request needs two (request, args).
MAX_DEPTH = 4
#: Digits in a JSON integer: money in minor units needs at most 15.
MAX_INTEGER_DIGITS = 18
MAX_TOKEN_CHARS = 256
MAX_COMMAND_CHARS = 64
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")
_KNOWN_KEYS = frozenset({"token", "command", "args"})


class RequestError(ValueError):
    """A request that cannot be taken as it is; the message says which part and why."""


@dataclass(frozen=True)
class Request:
    """A well-formed request: who says they are asking, for what, with which arguments."""

    token: str
    command: str
    args: dict[str, Any]


def decode_request(line: bytes) -> Request:
    """The request in one line of the socket, or :class:`RequestError` saying what is wrong."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise RequestError("request: not valid UTF-8 text") from None
    try:
        value = strict_json.loads(text, max_depth=MAX_DEPTH, max_integer_digits=MAX_INTEGER_DIGITS)
    except strict_json.TooDeep:
        raise RequestError(f"request: nested deeper than {MAX_DEPTH} levels") from None
    except strict_json.LongInteger as exc:
        raise RequestError(f"request: an integer of {exc.digits} digits (at most {MAX_INTEGER_DIGITS})") from None
    except strict_json.RepeatedKey as exc:
        _check_string(exc.key, "request")  # a key that is not text at all is said as that first
        raise RequestError(f"{exc.key[:MAX_COMMAND_CHARS]}: given twice (a request names each field and argument "
                           "once)") from None
    except strict_json.NotANumber as exc:
        raise RequestError(f"request: {exc.name} is not a number") from None
    except strict_json.StrictJsonError:
        raise RequestError("request: not a JSON object") from None
    if not isinstance(value, dict):
        raise RequestError("request: not a JSON object")
    _check_text(value, "request")
    unknown = sorted(set(value) - _KNOWN_KEYS)
    if unknown:
        raise RequestError(f"{unknown[0]}: not a request field (a request has token, command and args)")
    token = value.get("token", "")
    if not isinstance(token, str) or len(token) > MAX_TOKEN_CHARS:
        raise RequestError(f"token: must be text of at most {MAX_TOKEN_CHARS} characters")
    command = value.get("command")
    if not isinstance(command, str) or not command or len(command) > MAX_COMMAND_CHARS:
        raise RequestError(f"command: must be a command name of at most {MAX_COMMAND_CHARS} characters")
    args = value.get("args") or {}
    if not isinstance(args, dict):
        raise RequestError("args: must be an object of NAME: VALUE")
    return Request(token, command, args)


def _check_text(value: Any, where: str) -> None:
    """Every key and string must be valid Unicode without control characters: a lone
    surrogate cannot be journaled, and a NUL or newline has no place in a name or reason."""
    if isinstance(value, str):
        _check_string(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_string(key, where)
            _check_text(item, key if where in ("request", "args") else f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_text(item, f"{where}[{index}]")


def _check_string(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise RequestError(f"{where}: text that is not valid Unicode (a lone surrogate)") from None
    if _CONTROL_CHARACTERS.search(text):
        raise RequestError(f"{where}: control characters (NUL, newline, ...) are not allowed")
