"""What the contract suite knows about each device and each way of reaching one.

A :class:`Profile` says, for one device, what makes it send an event (on its simulator, or
what to ask a person at real hardware), what event that is, and how its simulator is broken
on purpose. A :class:`Rig` is one device reached one way: over its simulator in this process
(``sim``: serial over a pty, the pedals behind the simulated pyusb backend), the same built to
version 1 of its protocol (``sim-v1``: the whole contract holds for a device that predates
protocol versions), over its simulator served on a socket (``remote``), or real hardware
named in the environment (``hardware``). The tests themselves only use the device contract.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from drivers.devices import Backoff, LinkSettings
from drivers.devices.contract import Device, DeviceEndpoint
from drivers.factory import create_driver
from drivers.simulators import RunningSimulator, start_simulator
from station import events as ev
from station.cards import parse_card
from station.events import Event

from ..waiting import SINK_WAIT_S, Sink

WAIT_S = SINK_WAIT_S  # 10 s, generous: a loaded machine must never fail these by being slow

# Short timeouts keep fault tests quick; the heartbeat is short so that an idle device is
# pinged (and a hung one found) within a fraction of a second.
SERIAL_SETTINGS = LinkSettings(reply_timeout=0.2, retries=3, reconnect_initial=0.02, reconnect_max=0.2, heartbeat=0.05)
PEDAL_OPTIONS: dict[str, Any] = {"backoff": Backoff(0.02, 2.0, 0.2), "read_timeout_ms": 50, "heartbeat_s": 0.05}

INTERACTIVE = "1" in (os.environ.get("STATION_CONTRACT_INTERACTIVE"), os.environ.get("STATION_USB_PEDALS_INTERACTIVE"))


@dataclass(frozen=True)
class Profile:
    """One device's part in the suite."""

    device: str
    transport: str  # "serial" or "usb"
    stimulus: Callable[[Any], None]  # on the simulator: make the device send one event
    instruction: str  # the same, asked of a person at real hardware
    expected: Callable[[Event], bool]  # the station event the stimulus makes
    unplug_codes: tuple[str, ...]  # DeviceFault codes of a pulled cable
    hang_code: str  # DeviceFault code of a device that stops answering
    hang: Callable[[Any], None]
    unhang: Callable[[Any], None]
    damage_next: Callable[[Any], None]  # the next frame or report the device sends is damaged
    wait_idle: Callable[[Any, float], bool]  # the host has taken everything the device sent
    long_press: Callable[[Any], None] | None = None
    long_instruction: str = ""
    expected_long: Callable[[Event], bool] | None = None
    sim_options: dict[str, Any] = field(default_factory=dict)

    def driver_options(self, **more: Any) -> dict[str, Any]:
        return {"settings": SERIAL_SETTINGS, **more} if self.transport == "serial" else {**PEDAL_OPTIONS, **more}


def _serial(
    device: str, stimulus: Callable[[Any], None], instruction: str, expected: Callable[[Event], bool], **more: Any
) -> Profile:
    return Profile(
        device, "serial", stimulus, instruction, expected,
        unplug_codes=("link_lost",), hang_code="not_responding",
        hang=lambda sim: sim.mute(True), unhang=lambda sim: sim.mute(False),
        damage_next=lambda sim: sim.corrupt_next_frames(1), wait_idle=lambda sim, t: bool(sim.wait_idle(t)),
        sim_options={"ack_timeout": 0.05}, **more,
    )


def _draw_ace(sim: Any) -> None:
    sim.load([parse_card("AS")])
    sim.draw()


PROFILES: dict[str, Profile] = {
    "shoe": _serial(
        "shoe", _draw_ace, "Draw one card from the shoe.", lambda e: isinstance(e, ev.CardDrawn),
    ),
    "shuffler": _serial(
        "shuffler", lambda sim: sim.jam(), "Jam the shuffler (or open its door).",
        lambda e: isinstance(e, ev.ShufflerStatus),
    ),
    "display": _serial(
        "display", lambda sim: sim.panel_fault(), "Disconnect one panel of the display board.",
        lambda e: isinstance(e, ev.DeviceFault) and e.code == "panel_fault",
    ),
    "sign": _serial(
        "sign", lambda sim: sim.fail_row(3), "Disconnect one LED row of the progressive sign.",
        lambda e: isinstance(e, ev.DeviceFault) and e.code == "led_row",
    ),
    "chipreader": _serial(
        "chipreader", lambda sim: sim.lose_antenna(1), "Pull the cable of antenna 1 off the chip reader.",
        lambda e: isinstance(e, ev.DeviceFault) and e.code == "antenna_fault",
    ),
    "buttonbox": _serial(
        "buttonbox", lambda sim: sim.press(1), "Tap button 1 of the button box once, briefly.",
        lambda e: isinstance(e, ev.ButtonPressed) and not e.long_press,
        long_press=lambda sim: sim.long_press(2), long_instruction="Hold button 2 for two seconds, then let go.",
        expected_long=lambda e: isinstance(e, ev.ButtonPressed) and e.long_press,
    ),
    "pedals": Profile(
        "pedals", "usb", lambda sim: sim.click("left"), "Tap the LEFT pedal once, briefly.",
        lambda e: isinstance(e, ev.ButtonPressed) and (e.button, e.long_press) == ("left", False),
        unplug_codes=("disconnected", "io-error"), hang_code="no-response",
        hang=lambda sim: sim.hang(), unhang=lambda sim: sim.unhang(),
        damage_next=lambda sim: sim.corrupt_next(2), wait_idle=lambda sim, t: bool(sim.wait_drained(t)),
        long_press=lambda sim: sim.long_press("right"),
        long_instruction="Hold the RIGHT pedal down for two seconds, then let go.",
        expected_long=lambda e: isinstance(e, ev.ButtonPressed) and (e.button, e.long_press) == ("right", True),
        sim_options={"timed_long_press": False},  # long presses are scripted, so a slow machine makes none
    ),
}


def hardware_endpoint(device: str) -> str:
    """Real hardware named in the environment for ``device``, or ``""``."""
    url = os.environ.get(f"STATION_CONTRACT_{device.upper()}_URL", "")
    if device == "pedals" and not url:
        url = os.environ.get("STATION_USB_PEDALS", "")  # the pedals' name for it before the one suite
        if url and "://" not in url:
            url = f"usb://{url}"
    return url


@dataclass
class Rig:
    """One device reached one way; ``simulator`` is ``None`` on hardware."""

    profile: Profile
    where: str  # "sim", "remote" or "hardware"
    endpoint: DeviceEndpoint
    running: RunningSimulator | None = None

    @property
    def device(self) -> str:
        return self.profile.device

    @property
    def simulator(self) -> Any:
        return None if self.running is None else self.running.simulator

    def driver(self, emit: Callable[[Event], None], **options: Any) -> Device:
        return create_driver(self.device, self.device, self.endpoint, emit, **self.profile.driver_options(**options))

    def act(self, what: str, instruction: str, do: Callable[[Any], None]) -> None:
        """Make something happen: the simulator does it; at hardware a person is asked to."""
        if self.simulator is not None:
            do(self.simulator)
            return
        if not INTERACTIVE:
            pytest.skip(f"needs a person to {what}: set STATION_CONTRACT_INTERACTIVE=1 and run pytest -s")
        print(f"\n>>> {instruction}", file=sys.stderr, flush=True)

    def simulated(self) -> Any:
        """The simulator, for checks that break the device on purpose (skipped on hardware)."""
        if self.simulator is None:
            pytest.skip("a real device cannot be made to misbehave on demand")
        return self.simulator


# The serial link's socket:// path is the same code as its pty path past the port (tests/drivers
# covers it); the pedals' forwarding backend is a path of its own, so the pedals also run remote.
WAYS = {"serial": ("sim", "sim-v1", "hardware"), "usb": ("sim", "sim-v1", "remote", "hardware")}
RIGS = [(device, where) for device, profile in PROFILES.items() for where in WAYS[profile.transport]]


def rig_id(param: tuple[str, str]) -> str:
    return f"{param[0]}-{param[1]}"


def started_rig(device: str, where: str) -> Iterator[Rig]:
    """The rig (skipped for hardware nobody named), its simulator stopped after the test."""
    profile = PROFILES[device]
    if where == "hardware":
        endpoint = hardware_endpoint(device)
        if not endpoint:
            pytest.skip(f"no real {device} named in STATION_CONTRACT_{device.upper()}_URL")
        yield Rig(profile, where, endpoint)
        return
    ways: dict[str, dict[str, Any]] = {"sim": {}, "sim-v1": {"protocol_version": 1}, "remote": {"transport": "socket"}}
    transport = ways[where]
    running = start_simulator(device, profile.sim_options, **transport)
    try:
        yield Rig(profile, where, running.endpoint, running)
    finally:
        running.stop()


class EventLog(Sink[Event]):
    """The drivers' ``emit``: a :class:`~tests.waiting.Sink` of station events, with what the
    pedal and foot-switch tests ask of it besides."""

    @property
    def events(self) -> list[Event]:
        """What has arrived so far, in order (a copy)."""
        return self.items

    def kinds(self) -> list[str]:
        return [type(e).__name__ for e in self.items]

    def presses(self) -> list[tuple[str, bool]]:
        return [(e.button, e.long_press) for e in self.items if isinstance(e, ev.ButtonPressed)]

    def wait_presses(self, count: int, timeout: float = WAIT_S) -> list[tuple[str, bool]]:
        """Until ``count`` presses have arrived; returns them all."""
        return [(e.button, e.long_press) for e in self.wait_kind(ev.ButtonPressed, count, timeout)]
