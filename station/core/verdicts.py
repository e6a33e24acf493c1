"""What the core loop's queue carries besides inputs, and what it answers of each input.

A poster may wait to hear what became of its input (:class:`Verdict`, through ``on_done``);
a reader of the table's outputs with derived state of its own journals it in order with the
inputs (:class:`Note`, :meth:`station.core.loop.CoreLoop.note`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from station.core.outputs import Output, Refused
from station.events import Event


@dataclass(frozen=True)
class Note:
    """A record of the station's own to journal in order with the inputs."""

    kind: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class Verdict:
    """What became of one posted event: applied, or refused with the reason a person reads."""

    applied: bool
    reason: str = ""
    outputs: tuple[Output, ...] = ()


Done = Callable[[Verdict], None]


def verdict_of(event: Event, outputs: tuple[Output, ...]) -> Verdict:
    """Applied, unless the machine refused the event (a refusal of this event's kind)."""
    for output in outputs:
        if isinstance(output, Refused) and output.what == event.kind:
            return Verdict(False, output.reason, tuple(outputs))
    return Verdict(True, "", tuple(outputs))
