"""``[devices.*]``: where each device is (a port, a USB address, ``sim:``) and its options."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import Field, ValidationInfo, model_validator

from station.config.rules import Findings
from station.config.strict import StrictSection


class DeviceSection(StrictSection):
    url: str = Field(min_length=1)
    """``sim:`` starts the simulated device; otherwise a pyserial URL or device path, or for USB
    pedals ``usb://VID:PID?serial=...`` / ``usb-sim:///socket``, or for a commodity foot switch
    ``evdev://VID:PID`` / ``evdev:///dev/input/by-id/...``."""
    baudrate: int = Field(default=115_200, gt=0)
    options: dict[str, Any] = Field(default_factory=dict)
    """Options of the device's simulator (a ``sim:`` device: ``ack_timeout``, the shuffler's
    ``steps``, ...); a real device's driver reads none, so a real device may have none."""
    keys: dict[str, str] = Field(default_factory=dict)
    """A foot switch's keys and the buttons they are (``KEY_F13 = "left"``); empty: F13, F14,
    F15 are left, centre, right (docs/drivers.md)."""


class DevicesSection(StrictSection):
    shoe: DeviceSection | None = None
    """A table whose devices are all simulated (or that names none) gets a simulated shoe when
    it names none; beside a real device the shoe must be named (``url = "sim:"`` for the
    simulated one), never simulated by default."""
    shuffler: DeviceSection | None = None
    display: DeviceSection | None = None
    pedals: DeviceSection | None = None
    buttonbox: DeviceSection | None = None
    cardreader: DeviceSection | None = None
    """The player-card reader (docs/ratings.md): a magnetic-stripe or barcode reader that types
    as a keyboard, ``evdev://VID:PID``; ``sim:`` for the simulated one."""
    sign: DeviceSection | None = None
    """The progressive sign over the table (docs/protocols/sign.md): the jackpot meter of a
    progressive side bet, a serial device like the display board."""
    chipreader: DeviceSection | None = None
    """The RFID chip reader under the layout (docs/protocols/chipreader.md): the casino chips on
    each of its antennas (numbered 1..N; which spot each is under is the station's business)."""

    def configured(self) -> Iterator[tuple[str, DeviceSection]]:
        for name in ("shoe", "shuffler", "display", "pedals", "buttonbox", "cardreader", "sign", "chipreader"):
            section = getattr(self, name)
            if section is not None:
                yield name, section

    @model_validator(mode="before")
    @classmethod
    def _a_simulated_table_has_a_simulated_shoe(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "shoe" in data:
            return data
        urls = [section.get("url") if isinstance(section, dict) else getattr(section, "url", None)
                for section in data.values()]
        if all(isinstance(url, str) and url.startswith("sim:") for url in urls):
            return {**data, "shoe": {"url": "sim:"}}
        return data

    @model_validator(mode="after")
    def _openable_distinct_ports(self, info: ValidationInfo) -> DevicesSection:
        """A URL the station could never open is refused now, naming the key, rather than
        becoming a device that never connects; and no two devices share a port."""
        from drivers.transport.urls import url_problem

        found = Findings(info, "devices.")
        seen: dict[str, str] = {}
        for name, section in self.configured():
            problem = url_problem(name, section.url)
            if problem is not None:
                found.add(f"{name}.url", problem)
            elif not section.url.startswith("sim:") and section.url in seen:
                found.add(f"{name}.url", f"{section.url} is already used by devices.{seen[section.url]}; each device "
                                         "needs its own port")
            seen.setdefault(section.url, name)
        found.done()
        return self

    @model_validator(mode="after")
    def _foot_switch_keys(self, info: ValidationInfo) -> DevicesSection:
        """Keys belong to a foot switch (the pedals, opened through evdev), each a key name the
        kernel knows, each naming a button."""
        from drivers.input.keys import key_code
        from drivers.input.locator import is_evdev_url

        found = Findings(info, "devices.")
        for name, section in self.configured():
            if not section.keys:
                continue
            if not (name == "pedals" and (is_evdev_url(section.url) or "hid=footswitch" in section.url)):
                found.add(f"{name}.keys", 'only a foot switch or keypad has keys ([devices.pedals] with url = "evdev://...")')
                continue
            for key, button in section.keys.items():
                try:
                    key_code(key)
                except ValueError as exc:
                    found.add(f"{name}.keys.{key}", str(exc))
                    continue
                if not button.strip():
                    found.add(f"{name}.keys.{key}", "names no button")
        found.done()
        return self


def device_problems(devices: Mapping[str, DeviceSection | None], found: Findings) -> None:
    """The rounds need a card shoe: beside a real device it is named, never simulated by
    default (a simulated one is asked for by name, ``url = "sim:"``). A real device's driver
    reads no ``options`` (they are its simulator's)."""
    if found.judged("devices") and devices.get("shoe") is None:
        real = sorted(name for name, section in devices.items() if section is not None)
        found.add("devices.shoe", f"missing: the rounds need a card shoe, and beside {', '.join(real)} it is not "
                                  "simulated by default; name its port (`station diag ports`), or url = \"sim:\" "
                                  "for the simulated one")
    for name, section in devices.items():
        if section is None or section.url.startswith("sim:") or not found.judged(f"devices.{name}"):
            continue
        for key in section.options:
            found.add(f"devices.{name}.options.{key}", f"no driver reads it: options are for a simulated "
                                                       f"{name} (url = \"sim:\"), and this one is real")
