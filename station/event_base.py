"""What every input event is: the base class that registers each kind, the error of a record
that is no event, a device's event and who acted (:mod:`station.events` has the events).

Apart from :mod:`station.events` so that the events of a table's day
(:mod:`station.day_events`) subclass them without the two modules importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

#: Every event kind, by its name: each subclass of :class:`Event` adds itself.
REGISTRY: dict[str, type[Event]] = {}


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
        if name in REGISTRY and REGISTRY[name].__module__ != cls.__module__:
            raise TypeError(f"event kind {name!r} registered twice")
        REGISTRY[name] = cls


@dataclass(frozen=True)
class DeviceEvent(Event):
    """An event reported by a device; ``device`` is the configured device name."""

    device: str


@dataclass(frozen=True)
class Actor:
    """Who asked for something: role and name, recorded with every privileged action."""

    role: str = "dealer"
    who: str = ""
