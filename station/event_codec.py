"""Events to and from their journal form: plain JSON values, and back to the typed event.

Apart from the events themselves (:mod:`station.events`), which say what may happen; this
module says how each is written down and read back. Every event must round-trip exactly: the
state replayed after a crash depends on it. Decoding checks each field against the event's
type hints, so a record that is not a well-formed event is an :class:`EventError`, never a
half-built event.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from enum import Enum
from typing import Any

from station.cards import Card, parse_card
from station.events import REGISTRY, Event, EventError

_SCALARS = frozenset((str, int, bool, type(None)))


def to_plain(value: Any) -> Any:
    """JSON-ready form of events, outputs and their parts: cards as codes, enums as values."""
    kind = type(value)
    if kind in _SCALARS:  # most fields: answered before any isinstance test
        return value
    if kind is Card:
        return value.code
    names = _field_names(kind)
    if names is not None:
        return {name: to_plain(getattr(value, name)) for name in names}
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    return value


_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def _field_names(kind: type) -> tuple[str, ...] | None:
    """The field names of a dataclass type (None for any other type), looked up once: every
    event is turned into its journal record this way, and ``dataclasses.fields`` is slow."""
    try:
        return _FIELD_NAMES[kind]
    except KeyError:
        names = tuple(f.name for f in dataclasses.fields(kind)) if dataclasses.is_dataclass(kind) else None
        _FIELD_NAMES[kind] = names
        return names


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict with ``type`` naming the event kind."""
    body = to_plain(event)
    assert isinstance(body, dict)
    return {"type": event.kind, **body}


def _decode(tp: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if tp is Card:
        return parse_card(value)
    if tp is Any:
        return value
    if isinstance(tp, type) and issubclass(tp, Enum):
        try:
            return tp(value)
        except ValueError:
            raise EventError(f"{where}: {value!r} is not one of {[m.value for m in tp]}") from None
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise EventError(f"{where}: expected an object")
        hints, _ = _schema(tp)
        return tp(**{k: _decode(hints[k], v, f"{where}.{k}") for k, v in value.items() if k in hints})
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(value, (list, tuple)):
            raise EventError(f"{where}: expected a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        return tuple(_decode(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=True)))
    if origin is dict:
        kt, vt = typing.get_args(tp)
        return {_decode(kt, k, where): _decode(vt, v, f"{where}.{k}") for k, v in value.items()}
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        for arg in typing.get_args(tp):
            if arg is type(None):
                continue
            return _decode(arg, value, where)
    if tp in (int, str, bool, float):
        if tp is int and (not isinstance(value, int) or isinstance(value, bool)):
            raise EventError(f"{where}: expected a whole number, got {value!r}")
        if tp is str and not isinstance(value, str):
            raise EventError(f"{where}: expected text, got {value!r}")
        if tp is bool and not isinstance(value, bool):
            raise EventError(f"{where}: expected true/false, got {value!r}")
        return value
    return value


@functools.cache
def _schema(cls: type) -> tuple[dict[str, Any], frozenset[str]]:
    """Type hints and field names of an event or nested dataclass: resolved once per class,
    since resolving them is most of the cost of decoding a journal record."""
    return typing.get_type_hints(cls), frozenset(f.name for f in dataclasses.fields(cls))


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from :func:`event_to_dict` output; unknown kinds or fields are errors."""
    if not isinstance(data, dict) or "type" not in data:
        raise EventError("an event needs a 'type'")
    kind = data["type"]
    cls = REGISTRY.get(kind)
    if cls is None:
        raise EventError(f"unknown event type {kind!r}")
    hints, names = _schema(cls)  # type: ignore[arg-type]  # a class is hashable (mypy#11470)
    unknown = set(data) - names - {"type"}
    if unknown:
        raise EventError(f"{kind}: unknown field(s) {sorted(unknown)}")
    try:
        return cls(**{k: _decode(hints[k], v, f"{kind}.{k}") for k, v in data.items() if k != "type"})
    except TypeError as exc:
        raise EventError(f"{kind}: {exc}") from None
    except ValueError as exc:
        raise EventError(f"{kind}: {exc}") from None


def event_types() -> dict[str, type[Event]]:
    return dict(REGISTRY)
