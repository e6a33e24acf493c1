"""What a request to the console may carry, checked before anything acts on it.

A request's body and its query come from whatever is on the network, so each is taken only
once it is known to be what the console asks for, and anything else is a :class:`Refusal`
(HTTP 400, or 413 for a body too long), which the server answers with the reason and counts
against the address that sent it:

- **a body** is read as it arrives, at most :data:`MAX_BODY` bytes, its nesting measured on
  the way (:class:`station.strict_json.DepthGauge`): a body nested deeper than
  :data:`MAX_DEPTH` is refused at its first bytes, before any parser (which would recurse once
  per level) sees it; then it must be UTF-8, and JSON by :mod:`station.strict_json`'s rules, the
  control socket's: no key twice (``"command": "status", "command": "pause"`` is refused, not
  taken as ``pause``), integers of at most :data:`MAX_INTEGER_DIGITS` digits, no ``NaN``;
- **query parameters** are whole numbers within their range or a round id as the station
  writes them (``<shoe>-<round>``, :class:`station.core.rounds.RoundId`), each given at most once.

It imports nothing of the service: the console's process parses what it is sent on its own.
"""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from station import strict_json

#: Longest body taken (a command is a few hundred bytes).
MAX_BODY = 16 * 1024
#: Levels of objects and arrays in a body: the control socket's limit, as a command's body
#: becomes its request line (``{command, args}``, the arguments' values inside).
MAX_DEPTH = 4
#: Digits in an integer: money in minor units needs at most 15 (the control socket's limit).
MAX_INTEGER_DIGITS = 18
#: Rounds recall shows at most at once.
MAX_RECALL = 50
#: A round id as :class:`station.core.rounds.RoundId` writes it, ``<shoe>-<round>`` (``3-41``);
#: leading zeros are taken and dropped (``3-041`` is ``3-41``).
ROUND_ID = re.compile(r"([0-9]{1,9})-([0-9]{1,9})")
_WHOLE = re.compile(r"[0-9]{1,18}")


class Refusal(Exception):
    """A request refused for what it carries: ``status`` and the reason in words."""

    def __init__(self, status: int, error: str) -> None:
        super().__init__(error)
        self.status = status
        self.error = error


async def json_body(request: web.Request) -> dict[str, Any]:
    """The request's body as a JSON object, or :class:`Refusal` saying what is wrong with it."""
    gauge = strict_json.DepthGauge(MAX_DEPTH)
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await request.content.readany()
        if not chunk:
            break
        try:
            gauge.feed(chunk[: MAX_BODY + 1 - size])  # the depth first: a deep body is refused as deep
        except strict_json.TooDeep:
            raise Refusal(400, f"body: nested deeper than {MAX_DEPTH} levels") from None
        size += len(chunk)
        if size > MAX_BODY:
            raise Refusal(413, f"body: longer than {MAX_BODY // 1024} KB")
        chunks.append(chunk)
    try:
        text = b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise Refusal(400, "body: not valid UTF-8 text") from None
    try:
        value = strict_json.loads(text, max_depth=MAX_DEPTH, max_integer_digits=MAX_INTEGER_DIGITS)
    except strict_json.RepeatedKey as exc:
        raise Refusal(400, f"body: {exc.key[:64]!r} given twice (name each field once)") from None
    except strict_json.Malformed:
        raise Refusal(400, "body: not a JSON object") from None
    except strict_json.StrictJsonError as exc:
        raise Refusal(400, f"body: {exc}") from None
    if not isinstance(value, dict):
        raise Refusal(400, "body: not a JSON object")
    return value


def _one(request: web.Request, name: str) -> str | None:
    """The parameter ``name`` of the query (None: not given); given twice, it is refused."""
    values = request.query.getall(name, [])
    if len(values) > 1:
        raise Refusal(400, f"{name}: given twice")
    return values[0] if values else None


def whole_number(request: web.Request, name: str, default: int, least: int, most: int, what: str) -> int:
    """The parameter ``name``, a whole number from ``least`` to ``most`` (``default`` when not
    given); anything else is refused naming the parameter and ``what`` it must be."""
    text = _one(request, name)
    if text is None:
        return default
    if not _WHOLE.fullmatch(text) or not least <= int(text) <= most:
        raise Refusal(400, f"{name}: {what}")
    return int(text)


def recall_query(request: web.Request) -> tuple[int, str]:
    """What ``/api/recall`` asks for: the last N rounds (1 to :data:`MAX_RECALL`, 10 when not
    said), or one round by its id (as the station writes it; the id wins when both are given)."""
    last = whole_number(request, "last", 10, 1, MAX_RECALL,
                        f"a whole number of rounds from 1 to {MAX_RECALL}")
    text = _one(request, "round")
    if text is None or not text.strip():
        return last, ""
    match = ROUND_ID.fullmatch(text.strip())
    if match is None:
        raise Refusal(400, "round: a round id such as 3-41 (shoe, then round)")
    return last, f"{int(match[1])}-{int(match[2])}"


def view_since(request: web.Request) -> int:
    """The picture ``/api/view`` already has (``since``): 0 or more, 0 when not said."""
    return whole_number(request, "since", 0, 0, 10**18 - 1, "the number of a picture (a whole number, 0 or more)")
