"""What the fault door does to a simulated chip reader's layout (docs/chips.md): a person at
the simulated table (a test, a technician) puts chips down or takes them away, makes an
antenna miss chips or read them in a collision, or loses an antenna and gets it back. A chip
put on a betting spot after no more bets is a past-post; one taken away, a pinch.

The door (:mod:`station.sim.faults`) checks each request's arguments; these are the faults
only a chip reader takes, and what they do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

FaultT = TypeVar("FaultT")


class ChipFaultRequest(Protocol):
    """What of the door's checked request a chip fault reads (:class:`station.sim.faults.FaultRequest`)."""

    @property
    def device(self) -> str: ...
    @property
    def fault(self) -> str: ...
    @property
    def count(self) -> int | None: ...
    @property
    def data(self) -> bytes | None: ...
    @property
    def antenna(self) -> int | None: ...

#: The chip reader's faults, by name: (arguments, what it does).
ANTENNA = ("antenna", "whole", 1, 255, "the antenna ([chip_reader.antennas] says which place is over it)")
CHIPS = ("chips", "hex", 8, 1024, "chip UIDs, eight bytes each, one after another")
CHIP_FAULTS: dict[str, tuple[tuple[tuple[str, str, float, float, str], ...], str]] = {
    "place": ((ANTENNA, CHIPS), "put chips on an antenna of the chip reader (taken off any other first)"),
    "remove": ((ANTENNA, CHIPS), "take chips off an antenna of the chip reader"),
    "miss": ((ANTENNA, ("count", "whole", 1, 1000, "how many rounds")),
             "the antenna's next rounds leave one of its chips unread"),
    "collide": ((ANTENNA, ("count", "whole", 1, 1000, "how many rounds")),
                "the antenna's next rounds read its chips in a collision (some not read)"),
    "lose_antenna": ((ANTENNA,), "the antenna's cable comes off: the reader reports it faulted"),
    "restore_antenna": ((ANTENNA,), "the antenna's cable is back"),
}


def chip_faults(argument: Callable[..., Any], fault: Callable[..., FaultT]) -> list[FaultT]:
    """The chip reader's faults as the door lists them (made with its own argument and fault types)."""
    return [fault(name, tuple(argument(*a) for a in arguments), what)
            for name, (arguments, what) in CHIP_FAULTS.items()]


def uids_of(data: bytes) -> list[str]:
    """The chips' UIDs in ``data``, eight bytes each (the door checked its length is a multiple)."""
    return [data[i:i + 8].hex().upper() for i in range(0, len(data), 8)]


def inject_chip_fault(request: ChipFaultRequest, device: Any) -> str:
    """Do ``request`` to the chip reader ``device``; the words of what was done. ``ValueError``
    (a refusal, said to the client) for a device that is no chip reader or chips of a bad length."""
    if not hasattr(device, "place"):
        raise ValueError(f"{request.fault} is a chip reader's fault; the {request.device} is not one")
    antenna = request.antenna or 0
    if not 1 <= antenna <= device.antennas:
        raise ValueError(f"the chip reader has antennas 1 to {device.antennas}, not {antenna}")
    match request.fault:
        case "place" | "remove":
            data = request.data or b""
            if len(data) % 8:
                raise ValueError(f"chips are eight bytes each: {len(data)} bytes is not a whole number of chips")
            uids = uids_of(data)
            (device.place if request.fault == "place" else device.remove)(antenna, uids)
            return f"{len(uids)} chip(s) {'put on' if request.fault == 'place' else 'taken off'} antenna {antenna}"
        case "miss" | "collide":
            getattr(device, request.fault)(antenna, rounds=request.count or 1)
            return f"antenna {antenna}: its next {request.count} round(s) {request.fault}"
        case "lose_antenna":
            device.lose_antenna(antenna)
            return f"antenna {antenna} lost"
        case "restore_antenna":
            device.restore_antenna(antenna)
            return f"antenna {antenna} back"
    raise ValueError(f"no chip fault {request.fault!r}")
