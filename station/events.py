"""Typed input events: the only way anything reaches the table's state machine.

Drivers turn bytes into these events and post them to the core's queue; the control
socket and the dealer's buttons do the same. Every event is journaled before it is
applied, so each one must round-trip through :func:`event_to_dict` / :func:`event_from_dict`
exactly (the replayed state after a crash depends on it).

Events are frozen dataclasses. A subclass registers itself under its ``kind`` (the class
name unless given), which is the ``type`` field of its journal record.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar

from station.cards import Card, parse_card

_REGISTRY: dict[str, type[Event]] = {}


class EventError(ValueError):
    """A journal record or control message that is not a known, well-formed event."""


@dataclass(frozen=True)
class Event:
    """Base of all input events."""

    kind: ClassVar[str] = "Event"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("kind") or cls.__name__
        cls.kind = name
        if name in _REGISTRY and _REGISTRY[name].__module__ != cls.__module__:
            raise TypeError(f"event kind {name!r} registered twice")
        _REGISTRY[name] = cls


# --- events from devices ------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceEvent(Event):
    """An event reported by a device; ``device`` is the configured device name."""

    device: str


@dataclass(frozen=True)
class CardDrawn(DeviceEvent):
    card: Card


@dataclass(frozen=True)
class CutCardSeen(DeviceEvent):
    pass


@dataclass(frozen=True)
class ShoeEmpty(DeviceEvent):
    pass


@dataclass(frozen=True)
class CardsPresent(DeviceEvent):
    pass


@dataclass(frozen=True)
class LidOpened(DeviceEvent):
    pass


@dataclass(frozen=True)
class LidClosed(DeviceEvent):
    pass


class ShufflerState(str, Enum):  # noqa: UP042  journaled and logged in events; StrEnum would change str()/format()
    IDLE = "idle"
    SHUFFLING = "shuffling"
    DONE = "done"  # batch shuffle finished: the set can go into the shoe
    READY = "ready"  # continuous shuffler ready to deliver cards
    JAM = "jam"
    DOOR_OPEN = "door_open"
    ERROR = "error"


@dataclass(frozen=True)
class ShufflerStatus(DeviceEvent):
    state: ShufflerState
    progress: int = 0  # percent, 0-100
    set_colour: str = ""  # colour of the set the shuffler holds ("red", "blue"), "" if unknown
    detail: str = ""


@dataclass(frozen=True)
class DeckCheck(DeviceEvent):
    """The shuffler's count of its set: every card code with its count, and what is wrong."""

    decks: int
    counts: tuple[tuple[str, int], ...]
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return not self.missing and not self.extra


@dataclass(frozen=True)
class DeckCheckUnanswered(DeviceEvent):
    """The station asked the shuffler to count its set and got no count (no answer, a refusal,
    the link lost): the set is not known to be complete, so it does not go into play."""

    reason: str


@dataclass(frozen=True)
class DeviceBooted(DeviceEvent):
    """The device reports that it started afresh (power-up, reset): what it held before may be
    gone, so the station asks it where it stands."""

    reason: str = ""


@dataclass(frozen=True)
class CardsReturned(DeviceEvent):
    """Continuous shuffler: cards from the last round were put back."""

    count: int


@dataclass(frozen=True)
class ButtonPressed(DeviceEvent):
    button: str
    long_press: bool = False


@dataclass(frozen=True)
class DeviceFault(DeviceEvent):
    reason: str
    code: str = ""


@dataclass(frozen=True)
class DeviceRecovered(DeviceEvent):
    pass


# --- events from people and the loop --------------------------------------------------------


@dataclass(frozen=True)
class Timer(Event):
    name: str


@dataclass(frozen=True)
class Actor:
    """Who asked for something: role and name, recorded with every privileged action."""

    role: str = "dealer"
    who: str = ""



# --- serialisation ------------------------------------------------------------------------


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
    cls = _REGISTRY.get(kind)
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
    return dict(_REGISTRY)


# --- events from the table's people: bets, dealer actions, supervisor decisions ------------


@dataclass(frozen=True)
class BetPlaced(Event):
    """A bet put on the layout: ``box`` is a numbered box or a standing region ("S1")."""

    box: str
    player: str
    region: str  # baccarat: banker/player/tie; war: war/tie
    amount: int  # minor units
    actor: Actor = Actor()


@dataclass(frozen=True)
class BetChanged(Event):
    """A bet's amount replaced (after a Tie, or late by supervisor override)."""

    box: str
    player: str
    region: str
    amount: int
    actor: Actor = Actor()


@dataclass(frozen=True)
class BetWithdrawn(Event):
    box: str
    player: str
    region: str
    actor: Actor = Actor()


@dataclass(frozen=True)
class DealerAction(Event):
    """A dealer's button or screen action: ``shuffle_done``, ``confirm_cut``, ``no_more_bets``,
    ``reveal``, ``next_round``, ``call_supervisor``, and in Casino War ``war`` / ``surrender``
    for ``box`` (and ``player``; empty means every undecided player on that box)."""

    action: str
    box: str = ""
    player: str = ""
    actor: Actor = Actor()


@dataclass(frozen=True)
class SupervisorDecision(Event):
    """The decision on the active irregularity: ``void``, ``burn``, ``dummy`` or ``resume``."""

    decision: str
    actor: Actor
    detail: str = ""


@dataclass(frozen=True)
class PayoutOptionChanged(Event):
    """Banker payout option (5.11): ``commission`` or ``no_commission``, from the next round."""

    option: str
    actor: Actor


@dataclass(frozen=True)
class LateBetOverride(Event):
    """Supervisor allows bet changes after "no more bets" while no card is revealed (5.14)."""

    actor: Actor
    reason: str = ""


@dataclass(frozen=True)
class PauseRequested(Event):
    actor: Actor
    reason: str = ""


@dataclass(frozen=True)
class ResumeRequested(Event):
    actor: Actor


@dataclass(frozen=True)
class AccessDenied(Event):
    """Someone authenticated tried a command their role may not use (a dealer deciding an
    irregularity, say). It changes nothing at the table; it is journaled so that who tried
    what, and when, can be answered later."""

    actor: Actor
    command: str


# --- integrity: alerts raised by the monitor, acknowledged by a supervisor -----------------


@dataclass(frozen=True)
class IntegrityAlert(Event):
    """An alarm or alert of the integrity monitor (:mod:`station.integrity`), posted like any
    other input so that it is journaled and replay shows it. ``key`` names the finding (the same
    finding always has the same key, so it is raised once); ``stop`` asks the table to stop the
    round for a supervisor (alarms that prove the shoe is wrong). ``data`` holds the figures
    behind it (statistic, p-value, edge, composition) for the report."""

    code: str
    severity: str  # "alarm" or "alert"
    detail: str
    key: str
    shoe: int = 0
    round_id: str = ""
    stop: bool = False
    data: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class AlertAcknowledged(Event):
    """A supervisor has seen alert ``ident`` (``station ctl send ack``)."""

    ident: int
    actor: Actor
    note: str = ""
