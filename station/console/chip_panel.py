"""The chips on the layout as the console shows them (docs/chips.md, docs/console.md).

A table whose layout has a chip reader shows a panel, "Chips on the layout", under the felt:

- **while a round's bets stand** (betting, dealing, an irregularity): per box, each betting
  spot's chips and the bet keyed there side by side ("Banker  chips 25.00  keyed 20.00
  differs"), a spot that disagrees said so in words, not by its colour alone;
- **while a round is paid**: each box's payment as its payout zone holds it ("Box 1 paid
  10.00, owed 19.00: under by 9.00") instead of its spots, and a wrong payment holding the
  table said over the felt, for a supervisor with the acceptance;
- **always**: a chip that does not count (flagged, retired, not in the registry) named with
  its UID and where it lies.

The chips are the core's own view (:meth:`station.core.chip_steps.ChipSteps.chip_view`, what
``station ctl status`` shows), taken again with the first output after a step that touched the
layout (station/console/launch.py); the keyed bets are those the console shows on the felt. A
spot the reader has not read agrees, as the core's proposal says. Every amount is the core's;
only the words are the console's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from station.chips.places import ChipPlace, PlaceKind
from station.console.words import box_name
from station.core import outputs as out
from station.core import states as st
from station.core.chip_steps import WRONG_PAYMENT_WORDS
from station.core.payout_steps import box_order
from station.core.rounds import BetKey
from station.games.registry import region_words
from station.money import Money

#: What a supervisor made of a chip, in words.
STATUS_DONE = {"active": "put back in play", "flagged": "flagged", "retired": "retired"}
#: A chip's status as a person reads it ("unknown": a UID the registry does not hold).
STATUS_WORDS = {"unknown": "not in the registry"}


class ChipPanelPicture:
    """The core's chips, what a supervisor last did with them, and the panel in words."""

    def __init__(self, money: Money, chips: Mapping[str, Any]) -> None:
        self.money = money
        self.chips: Mapping[str, Any] = chips
        #: What a supervisor last did (a chip's status, a payment accepted), until the next round.
        self.news = ""

    def seen(self, chips: Mapping[str, Any]) -> None:
        self.chips = chips

    def status_changed(self, o: out.ChipStatusChanged) -> None:
        self.news = f"Chip {o.uid} {STATUS_DONE.get(o.status, o.status)} by {o.who or o.role} ({o.reason})"

    def payment_accepted(self, o: out.ChipPaymentWasAccepted) -> None:
        how = f" ({o.note})" if o.note else ""
        self.news = f"Payment of round {o.round_id} accepted as it lay by {o.who or o.role}{how}"

    def new_round(self) -> None:
        self.news = ""

    # --- the panel -----------------------------------------------------------------------------

    def to_json(self, state: str, bets: Mapping[BetKey, int]) -> dict[str, Any]:
        """The panel for the table in ``state`` with the round's keyed ``bets``."""
        m = self.money
        payment = list(self.chips.get("payment", ()))
        comparing = not payment and state != st.PAYING
        boxes: dict[str, dict[str, Any]] = {}

        def box(name: str) -> dict[str, Any]:
            return boxes.setdefault(name, {"box": name, "name": box_name(name), "spots": [], "payment": [], "bad": []})

        read: dict[tuple[str, str], int] = {}
        elsewhere: list[str] = []
        for text, held in self.chips.get("places", {}).items():
            place = ChipPlace.parse(text)
            bad = [f"{held['words']}: chip {c['uid']} is {_status(c['status'])}, not counted"
                   for c in held["chips"] if c["status"] != "active"]
            if place.kind is PlaceKind.TRAY:
                elsewhere += bad
                continue
            if bad:
                box(place.box)["bad"].extend(bad)
            if place.is_spot:
                read[(place.box, place.region)] = int(held["amount"])
        keyed: dict[tuple[str, str], int] = {}
        for (b, _player, region), amount in (bets.items() if comparing else ()):
            keyed[(b, region)] = keyed.get((b, region), 0) + amount
        differ: list[str] = []
        for spot in sorted(set(read) | set(keyed) if comparing else (), key=lambda s: (box_order(s[0]), s[1])):
            chips, bet = read.get(spot, 0), keyed.get(spot, 0)
            if not chips and not bet:
                continue  # nothing counted on it and nothing bet (a chip that does not count is named)
            where = f"{box_name(spot[0])} \u00b7 {region_words(spot[1])}"
            agrees = spot not in read or chips == bet
            differ += [] if agrees else [where]
            box(spot[0])["spots"].append({
                "region": spot[1], "name": region_words(spot[1]), "place": where, "chips": chips, "keyed": bet,
                "chips_words": f"chips {m(chips)}" if spot in read else "no chips read",
                "keyed_words": f"keyed {m(bet)}", "agrees": agrees,
                "verdict": "not read" if spot not in read else "agrees" if agrees else "differs"})
        for check in payment:
            box(str(check["box"]))["payment"].append({"verdict": check["verdict"], "text": check["text"]})
        title = "Chips on the layout"
        if comparing and differ:
            many = len(differ) > 1
            title += f" \u00b7 {len(differ)} spot{'s' if many else ''} differ{'' if many else 's'} from the bets"
            title += f": {', '.join(differ)}" if len(differ) <= 3 else ""
        elif self.chips.get("locked") and comparing:
            title += " \u00b7 locked at no more bets"
        elif payment:
            title += " \u00b7 payments"
        return {
            "confirm": self.chips.get("confirm", ""), "title": title, "comparing": comparing, "differ": len(differ),
            "boxes": [boxes[b] for b in sorted(boxes, key=box_order)], "elsewhere": elsewhere,
            "empty": "No chips on the betting spots" if comparing else "No chips in the payout zones yet",
            "hold": self._hold(payment), "news": self.news,
        }

    def _hold(self, payment: list[Mapping[str, Any]]) -> dict[str, Any] | None:
        held = str(self.chips.get("hold", ""))
        if not held:
            return None
        m = self.money
        wrong = [f"{box_name(str(c['box']))} {c['verdict']} by {m(abs(int(c['paid']) - int(c['owed'])))}"
                 for c in payment if c["verdict"] != "right"]
        what = WRONG_PAYMENT_WORDS if not wrong else f"{'; '.join(wrong)} \u2014 {WRONG_PAYMENT_WORDS}"
        return {"round_id": held, "words": f"Wrong payment: round {held} holds the table",
                "detail": what[:1].upper() + what[1:]}


def _status(status: str) -> str:
    return STATUS_WORDS.get(status, status)
