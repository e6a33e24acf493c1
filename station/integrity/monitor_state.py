"""The integrity monitor's state as JSON, and back: what its checkpoints keep.

What crosses shoes is what makes the monitor expensive to rebuild from the journal: the
repeated-shoe test compares each new shoe with the last ``repeat_depth`` shoes, the result
statistics look at a window of the last ``window_rounds`` rounds, and a continuous shuffler's
session never ends at all. So the integrity service journals the monitor's state after each
checkpoint of the projection (``IntegrityCheckpoint``, :mod:`station.integrity.service`), and
after a restart starts from the newest one. :func:`restore_monitor` gives back a monitor that
finds exactly what the one it was taken from would have found from there
(``tests/integrity/test_monitor_checkpoints.py``); ``station journal verify --deep`` compares
every such checkpoint with a replay (:mod:`station.integrity.checkpoints`).

The earlier shoes' cards are written one letter per card (``A``-``Z``, ``a``-``z``: the
position of the card in :data:`station.cards.FULL_DECK`), 416 letters for an 8-deck shoe.
"""

from __future__ import annotations

import string
from collections import deque
from typing import Any

from station.cards import FULL_DECK, Card
from station.core.options import CoreOptions
from station.integrity import repeat as repeat_tests
from station.integrity.edges import offered_wagers
from station.integrity.monitor import IntegrityMonitor, IntegritySettings, ShoeRecord

#: Changes whenever the layout below changes: a checkpoint of another layout is not used.
MONITOR_FORMAT = 1

_LETTERS = string.ascii_uppercase + string.ascii_lowercase
_INDEX = {letter: i for i, letter in enumerate(_LETTERS)}
_CARD_INDEX = {card: i for i, card in enumerate(FULL_DECK)}


def _pack(numbers: Any) -> str:
    return "".join(_LETTERS[n] for n in numbers)


def _unpack(text: str) -> tuple[int, ...]:
    return tuple(_INDEX[letter] for letter in text)


def settings_json(settings: IntegritySettings) -> dict[str, Any]:
    return {"repeat_depth": settings.repeat_depth, "advantage_percent": settings.advantage_percent,
            "significance": settings.significance, "window_rounds": settings.window_rounds,
            "block_rounds": settings.block_rounds, "tray_variance": settings.tray_variance}


def settings_from(data: dict[str, Any]) -> IntegritySettings:
    return IntegritySettings(**data)


def _shoe(record: ShoeRecord) -> dict[str, Any]:
    return {
        "shoe": record.shoe, "decks": record.decks, "set_colour": record.set_colour,
        "cards": _pack(_CARD_INDEX[c] for c in record.cards), "cards_read": record.cards_read,
        "start_probabilities": record.start_probabilities, "results": list(record.results),
        "results_count": record.results_count, "order": record.order, "repeat": record.repeat,
        "left_at_end": record.left_at_end, "emptied": record.emptied, "ended": record.ended,
        "advantage": dict(record.advantage), "sizing": {key: [list(p) for p in pairs]
                                                        for key, pairs in record.sizing.items()},
    }


def _shoe_back(d: dict[str, Any]) -> ShoeRecord:
    cards: list[Card] = [FULL_DECK[i] for i in _unpack(d["cards"])]
    return ShoeRecord(d["shoe"], d["decks"], d["set_colour"], cards, d["cards_read"], d["start_probabilities"],
                      list(d["results"]), d["results_count"], order=d["order"], repeat=d["repeat"],
                      left_at_end=d["left_at_end"], emptied=d["emptied"], ended=d["ended"],
                      advantage=dict(d["advantage"]),
                      sizing={key: [list(p) for p in pairs] for key, pairs in d.get("sizing", {}).items()})


def monitor_state(monitor: IntegrityMonitor) -> dict[str, Any]:
    """Everything the monitor carries from one output to the next, as plain JSON."""
    window: list[list[Any]] = []  # runs of rounds under the same start probabilities
    for result, probabilities in monitor.window:
        if window and window[-1][0] == probabilities:
            window[-1][1].append(result)
        else:
            window.append([probabilities, [result]])
    return {
        "format": MONITOR_FORMAT, "payout_option": monitor.payout_option, "window_rounds": monitor.window_rounds,
        "window": [[dict(probabilities), results] for probabilities, results in window],
        "earlier": [[shoe.shoe, _pack(shoe.sequence)] for shoe in monitor.earlier],
        "shoe": _shoe(monitor.shoe) if monitor.shoe is not None else None,
        "pending_results": dict(monitor._results), "last_edges": monitor.last_edges,
    }


def restore_monitor(options: CoreOptions, settings: IntegritySettings | None, state: dict[str, Any]
                    ) -> IntegrityMonitor:
    """A monitor in the state :func:`monitor_state` wrote, under ``settings`` (they may differ
    from those the state was taken under: the window and the earlier shoes then keep only as
    many as the new settings ask for, the newest)."""
    if state.get("format") != MONITOR_FORMAT:
        raise ValueError(f"monitor state of format {state.get('format')!r}, this station reads {MONITOR_FORMAT}")
    monitor = IntegrityMonitor(options, settings)
    monitor.payout_option = state["payout_option"]
    monitor.wagers = offered_wagers(monitor.game, monitor.regions, monitor.table, monitor.payout_option)
    monitor.window_rounds = state["window_rounds"]
    entries: list[tuple[str, dict[str, float]]] = []
    for probabilities, results in state["window"]:
        shared = dict(probabilities)
        entries += [(result, shared) for result in results]
    monitor.window = deque(entries, maxlen=monitor.window.maxlen)
    earlier = [repeat_tests.ShoeSequence.of(shoe, [FULL_DECK[i] for i in _unpack(cards)])
               for shoe, cards in state["earlier"]]
    monitor.earlier = deque(earlier, maxlen=monitor.earlier.maxlen)
    monitor.shoe = _shoe_back(state["shoe"]) if state["shoe"] is not None else None
    monitor._results = dict(state["pending_results"])
    monitor.last_edges = state["last_edges"]
    return monitor
