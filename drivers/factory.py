"""The transport seam: configuration names a device URL, and ``sim:`` selects a simulator.

``create_driver("shoe", "shoe", "/dev/serial/by-id/usb-ACME_Shoe-if00", emit)`` builds
the real driver; with ``url="sim:"`` (or ``"sim:?decks=6&seed=7"``) it first starts the
simulator of that kind in-process and hands its pty path to the same driver class, so
no driver code knows whether it is talking to hardware. The simulator is stopped with
the driver, and is reachable as ``driver.simulator`` for scripting.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from drivers.devices import DRIVERS, SerialDeviceDriver
from drivers.devices.base import Emit

SIM_SCHEME = "sim:"


def _value(text: str) -> Any:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def parse_sim_url(url: str) -> dict[str, Any]:
    """Options of a ``sim:`` URL: ``sim:?decks=6&transport=socket`` -> {"decks": 6, "transport": "socket"}."""
    if not url.startswith(SIM_SCHEME):
        raise ValueError(f"{url!r} is not a sim: URL")
    query = url[len(SIM_SCHEME):].lstrip("/").lstrip("?")
    return {key.replace("-", "_"): _value(value) for key, value in parse_qsl(query, strict_parsing=bool(query))}


def create_driver(
    kind: str, name: str, url: str, emit: Emit, *, sim_options: dict[str, Any] | None = None, **options: Any
) -> SerialDeviceDriver:
    """The driver for ``kind`` ("shoe", "shuffler", "display", "buttonbox") on ``url``.

    ``sim_options`` are given to the simulator a ``sim:`` URL starts (the options in the URL's
    query win over them); they are ignored for a real device."""
    try:
        cls = DRIVERS[kind]
    except KeyError:
        raise ValueError(f"unknown serial device kind {kind!r}; choose from {sorted(DRIVERS)}") from None
    if not url.startswith(SIM_SCHEME):
        return cls(name, url, emit, **options)
    from drivers.simulators import start_simulator

    running = start_simulator(kind, **{**(sim_options or {}), **parse_sim_url(url)})
    try:
        driver = cls(name, running.url, emit, **options)
    except Exception:
        running.stop()
        raise
    driver.attach_simulator(running)
    return driver
