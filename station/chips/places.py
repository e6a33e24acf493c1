"""Where a chip can lie on the table, as the station's configuration maps the reader's
antennas: a betting spot (a box and one of its regions), a box's payout zone, or the tray.

The antennas are the configuration's business; everything in :mod:`station.chips` speaks of
places only. A box is named as the table's bets name it (``"3"``, a standing region
``"S1"``), a region by the game's code (``"banker"``, ``"dragon_7"``, ``"war"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from station.games.registry import region_words

#: A chip's UID as the reader gives it: 8 bytes, 16 hexadecimal digits in capitals.
UID_PATTERN = re.compile(r"^[0-9A-F]{16}$")


def uid_problem(uid: object) -> str | None:
    """Why ``uid`` is not a chip's UID (16 hexadecimal digits in capitals), or None."""
    if not isinstance(uid, str):
        return f"a UID is text, not {uid!r}"
    if not UID_PATTERN.match(uid):
        return f"malformed UID {uid!r}: a chip's UID is 16 hexadecimal digits (8 bytes) in capitals"
    return None


def check_uids(uids: frozenset[str]) -> None:
    """Refuse (``ValueError``) any element of ``uids`` that is not a chip's UID."""
    for uid in uids:
        problem = uid_problem(uid)
        if problem is not None:
            raise ValueError(problem)


class PlaceKind(StrEnum):
    """What a place is for."""

    SPOT = "spot"  # a betting spot: a box's region
    PAYOUT = "payout"  # a box's payout zone: the winnings the dealer puts down for it
    TRAY = "tray"  # the dealer's chip tray


def box_order(box: str) -> tuple[int, int, str]:
    """Boxes as the layout lists them: numbered boxes in order, then standing regions (S1...)."""
    text = box.strip().upper()
    if text.isdigit():
        return (0, int(text), "")
    if text[:1] == "S" and text[1:].isdigit():
        return (1, int(text[1:]), "")
    return (2, 0, text)


def box_words(box: str) -> str:
    """``"3"`` is "Box 3"; a standing region ``"S2"`` is "Standing 2"."""
    text = box.strip()
    if text[:1].upper() == "S" and text[1:].isdigit():
        return f"Standing {text[1:]}"
    return f"Box {text}"


@dataclass(frozen=True)
class ChipPlace:
    """One place chips are read at. Make one with :meth:`spot`, :meth:`payout` or :meth:`tray`."""

    kind: PlaceKind
    box: str = ""
    region: str = ""

    def __post_init__(self) -> None:
        kind = PlaceKind(self.kind)
        object.__setattr__(self, "kind", kind)
        if kind is PlaceKind.SPOT and not (self.box and self.region):
            raise ValueError(f"a betting spot names its box and its region, got box {self.box!r} "
                             f"region {self.region!r}")
        if kind is PlaceKind.PAYOUT and not (self.box and not self.region):
            raise ValueError(f"a payout zone names its box and no region, got box {self.box!r} "
                             f"region {self.region!r}")
        if kind is PlaceKind.TRAY and (self.box or self.region):
            raise ValueError("the tray names no box and no region")

    @classmethod
    def spot(cls, box: str, region: str) -> ChipPlace:
        """The betting spot of ``region`` in ``box``."""
        return cls(PlaceKind.SPOT, box, region)

    @classmethod
    def payout(cls, box: str) -> ChipPlace:
        """The payout zone of ``box``."""
        return cls(PlaceKind.PAYOUT, box)

    @classmethod
    def tray(cls) -> ChipPlace:
        """The dealer's chip tray."""
        return cls(PlaceKind.TRAY)

    @classmethod
    def parse(cls, text: str) -> ChipPlace:
        """The place :meth:`__str__` wrote ("spot:3:banker", "payout:3", "tray"); ``ValueError``
        naming the text for anything else (a journal's place that cannot be read is refused)."""
        parts = text.split(":") if isinstance(text, str) else []
        try:
            kind = PlaceKind(parts[0])
        except (IndexError, ValueError):
            raise ValueError(f"{text!r} is not a place: write spot:BOX:REGION, payout:BOX or tray") from None
        if len(parts) != {PlaceKind.SPOT: 3, PlaceKind.PAYOUT: 2, PlaceKind.TRAY: 1}[kind]:
            raise ValueError(f"{text!r} is not a place: write spot:BOX:REGION, payout:BOX or tray")
        return cls(kind, *parts[1:])

    @property
    def is_spot(self) -> bool:
        return self.kind is PlaceKind.SPOT

    def order(self) -> tuple[int, tuple[int, int, str], str]:
        """Places as a report lists them: the spots box by box, then the payout zones, then the tray."""
        rank = {PlaceKind.SPOT: 0, PlaceKind.PAYOUT: 1, PlaceKind.TRAY: 2}[self.kind]
        return (rank, box_order(self.box), self.region)

    def words(self) -> str:
        """The place as a person reads it: "Box 3 · Banker", "Box 3 payout zone", "Chip tray"."""
        if self.kind is PlaceKind.SPOT:
            return f"{box_words(self.box)} \u00b7 {region_words(self.region)}"
        if self.kind is PlaceKind.PAYOUT:
            return f"{box_words(self.box)} payout zone"
        return "Chip tray"

    def __str__(self) -> str:
        """The place as the journal and ``--json`` write it: "spot:3:banker", "payout:3", "tray"."""
        return ":".join(part for part in (self.kind.value, self.box, self.region) if part)
