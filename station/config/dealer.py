"""``[dealer]``: the simulated dealer, and which button does what (pedals, the button box)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field

from station.config.devices import DeviceSection
from station.config.rules import Findings
from station.config.strict import StrictSection

#: Devices whose buttons ``[dealer.buttons]`` names, and the names their drivers report.
BUTTON_DEVICES = ("pedals", "buttonbox")

DealerActionName = Literal[
    "no_more_bets", "confirm_cut", "shuffle_done", "reveal", "next_round", "call_supervisor",
    "war", "surrender", "decline_tie",
]


def _default_buttons() -> dict[str, DealerActionName]:
    return {"left": "no_more_bets", "centre": "reveal", "right": "next_round"}


class DealerSection(StrictSection):
    simulated: bool = False
    """A simulated dealer plays the simulated devices (for demonstration and soak testing)."""
    pace_ms: int = Field(default=1500, ge=0, le=60_000)
    """Time the simulated dealer takes per action; about human pace by default."""
    patience_ms: int = Field(default=15_000, ge=50, le=3_600_000)
    """How long the station may stand still before the simulated dealer says so: ``station
    run``'s dealer then logs that it waits (for a supervisor, for the journal's disk) and
    waits on; ``station demo``'s stops the demo."""
    bets: dict[str, int] = Field(default_factory=dict)
    """Simulated bets placed for one player in box 1 every round: region -> minor units."""
    bets_by: Literal["chips", "keys"] = "chips"
    """At a table with a simulated chip reader, how the simulated dealer bets: ``chips`` on the
    simulated layout (the reader reads them), or ``keys`` as at a table without one (the reader
    reads on, continuously, an empty layout; bench/chips.py compares the two tables' pace)."""
    buttons: dict[str, DealerActionName] = Field(default_factory=_default_buttons)
    sign_in_button: str = ""
    """The button box's button whose long press begins a dealer's sign-in (their dealer_id as
    button numbers; docs/dealers.md); empty: no sign-in on the box."""


def button_names(devices: Mapping[str, DeviceSection | None]) -> dict[str, tuple[str, ...]]:
    """The buttons each configured button device has (every button device's when none is)."""
    from drivers.devices.buttonbox import DEFAULT_BUTTONS as BOX_BUTTONS
    from drivers.usb.protocol import DEFAULT_BUTTONS as PEDAL_BUTTONS

    known = {"pedals": tuple(PEDAL_BUTTONS), "buttonbox": tuple(BOX_BUTTONS.values())}
    present = {name: known[name] for name in BUTTON_DEVICES if devices.get(name) is not None}
    return present or known


def button_problems(buttons: Mapping[str, str], given: bool, devices: Mapping[str, DeviceSection | None],
                    found: Findings) -> None:
    """Every button ``[dealer.buttons]`` maps is one a configured device has: ``center`` for
    the pedals' ``centre`` would be a pedal that silently does nothing."""
    if not given or not found.judged("dealer.buttons", "devices"):
        return
    names = button_names(devices)
    have = {button for device in names.values() for button in device}
    for button in buttons:
        if button not in have:
            found.add(f"dealer.buttons.{button}", f"no configured device has a button {button!r}; the buttons are "
                                                  + "; ".join(f"{d}: {', '.join(b)}" for d, b in names.items()))


def sign_in_button_problems(button: str, devices: Mapping[str, DeviceSection | None], found: Findings) -> None:
    """The button that begins a sign-in on the button box is one of the box's buttons."""
    from drivers.devices.buttonbox import DEFAULT_BUTTONS as BOX_BUTTONS

    if not button or not found.judged("dealer.sign_in_button", "devices"):
        return
    if devices.get("buttonbox") is None:
        found.add("dealer.sign_in_button", "no [devices.buttonbox] is configured to sign in on")
    elif button not in BOX_BUTTONS.values():
        found.add("dealer.sign_in_button", f"the button box has no button {button!r}; its buttons are "
                                           + ", ".join(BOX_BUTTONS.values()))
