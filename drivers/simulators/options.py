"""What a simulator is started with, from a ``sim:`` device in the station's configuration.

A configured device ``url = "sim:?decks=6&seed=7"`` asks for a simulator; its options come,
each overriding the one before, from the table's facts (a continuous shuffler, 6 decks), then
the device's ``options`` in the configuration, then the options in its URL. Whoever starts
simulators for a configuration (the simulation plug-in, the diagnostics) merges them here,
so every one of them starts the same simulator for the same configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl

SIM_SCHEME = "sim:"


def is_sim_url(url: str) -> bool:
    return url.startswith(SIM_SCHEME)


def _value(text: str) -> Any:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def parse_sim_url(url: str) -> dict[str, Any]:
    """Options of a ``sim:`` URL: ``sim:?decks=6&transport=socket`` -> {"decks": 6, "transport": "socket"}."""
    if not is_sim_url(url):
        raise ValueError(f"{url!r} is not a sim: URL")
    query = url[len(SIM_SCHEME):].lstrip("/").lstrip("?")
    return {key.replace("-", "_"): _value(value) for key, value in parse_qsl(query, strict_parsing=bool(query))}


def simulator_options(
    name: str,
    section_options: Mapping[str, Any],
    url: str,
    table_defaults: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The options of the simulator behind the ``sim:`` device ``name``: its name, then the
    table's facts for it, then the device's ``options`` in the configuration, then its URL's."""
    return {"name": name, **(table_defaults or {}).get(name, {}), **section_options, **parse_sim_url(url)}


#: Options the station sets itself, or that are not values a configuration file can hold.
_NOT_CONFIGURABLE = frozenset({"self", "name", "pool"})


def simulator_option_names(kind: str) -> tuple[str, ...]:
    """The options the simulator of ``kind`` takes (its constructors' keyword parameters, and
    for the pedals those of their launcher), for a configuration to be checked against."""
    import inspect

    from drivers.simulators.launch import PEDAL_LAUNCH_OPTIONS, SERIAL_SIMULATORS

    if kind == "pedals":
        from drivers.simulators.pedals.device import SimulatedPedal

        classes: tuple[type, ...] = (SimulatedPedal,)
        names = set(PEDAL_LAUNCH_OPTIONS)
    elif kind in SERIAL_SIMULATORS:
        classes, names = SERIAL_SIMULATORS[kind].__mro__, set()
    else:
        return ()
    for cls in classes:
        init = vars(cls).get("__init__")
        if init is None:
            continue
        names.update(name for name, parameter in inspect.signature(init).parameters.items()
                     if parameter.kind in (parameter.KEYWORD_ONLY, parameter.POSITIONAL_OR_KEYWORD))
    return tuple(sorted(names - _NOT_CONFIGURABLE))


def unknown_options(kind: str, options: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """``(key, what the simulator takes)`` for every key of ``options`` the simulator of
    ``kind`` does not take (it would fail to start on it, or never read it)."""
    takes = simulator_option_names(kind)
    return [(key, takes) for key in options if key not in takes]
