"""What the floor feed says of a table that knows its chips (docs/floor.md, docs/chips.md): a
chip moved on a betting spot after no more bets or left on a losing spot (``chips_moved``), a
wrong payment holding the table (``wrong_payment``), a supervisor accepting it
(``payment_accepted``) and a chip's status changed (``chip_status``).

Each is an ``event`` message made from the output that says it and from the table as the record
leaves it (:class:`~station.core.snapshot.TableSnapshot`: the payment being checked box by box,
the chips on the layout), so a floor supervisor reads the round, the place as code and in words,
the chips, the amounts with the currency and who, without the station. Money is minor units.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from station.chips.places import ChipPlace
from station.core import outputs as out
from station.core.snapshot import TableSnapshot

#: The outputs :func:`chip_body` says.
CHIP_FEED_OUTPUTS: tuple[type[out.Output], ...] = (out.ChipsMoved, out.ChipPaymentHeld, out.ChipPaymentWasAccepted,
                                                   out.ChipStatusChanged)


def _place(code: str) -> dict[str, str]:
    """A place as code ("spot:3:banker"), in words ("Box 3 · Banker"), its box and region ("" for none)."""
    place = ChipPlace.parse(code)
    return {"place": code, "place_words": place.words(), "box": place.box, "region": place.region}


def _payment(table: TableSnapshot, round_id: str, difference: int) -> dict[str, Any]:
    """The boxes of round ``round_id`` paid wrong as the layout holds them now (each with what it
    was owed and paid, by how much over or under, and its line for a person), and what they
    were paid over and under in all. Without the round's payment on the layout (never, as the
    table says it), the boxes are unknown and ``difference`` is over or under."""
    chips: Mapping[str, Any] = table.chips or {}
    boxes = [{**_place(f"payout:{check['box']}"), "owed": check["owed"], "paid": check["paid"],
              "verdict": check["verdict"], "difference": check["paid"] - check["owed"], "detail": check["text"]}
             for check in chips.get("payment", ()) if check["verdict"] != "right"]
    if sum(box["difference"] for box in boxes) != difference:
        boxes = []
        over, under = max(difference, 0), max(-difference, 0)
    else:
        over = sum(box["difference"] for box in boxes if box["difference"] > 0)
        under = -sum(box["difference"] for box in boxes if box["difference"] < 0)
    return {"paid_round": round_id, "boxes": boxes, "over": over, "under": under, "difference": difference}


def _chip_on_layout(table: TableSnapshot, uid: str) -> dict[str, Any]:
    """Where chip ``uid`` lies now and what it is worth (``value`` None: not on the layout)."""
    places: Mapping[str, Any] = (table.chips or {}).get("places", {})
    found = [(place, chip["value"]) for place, held in places.items() for chip in held["chips"] if chip["uid"] == uid]
    return {"value": found[0][1] if found else None,
            "places": [{"place": place, "place_words": ChipPlace.parse(place).words()} for place, _ in found]}


def chip_body(output: out.Output, table: TableSnapshot, currency: str | None) -> dict[str, Any] | None:
    """The ``event`` body of one of :data:`CHIP_FEED_OUTPUTS` (None for any other output)."""
    if isinstance(output, out.ChipsMoved):
        return {"type": "chips_moved", "found": output.found, "moved_round": output.round_id, **_place(output.place),
                "chips": list(output.chips), "amount": output.amount, "currency": currency, "detail": output.text,
                "read": output.read, "at_ms": output.at_ms, "dealer": table.dealer}
    if isinstance(output, out.ChipPaymentHeld):
        return {"type": "wrong_payment", **_payment(table, output.round_id, output.difference),
                "wrong": list(output.wrong), "currency": currency, "dealer": table.dealer}
    if isinstance(output, out.ChipPaymentWasAccepted):
        view: Mapping[str, Any] = table.chips or {}
        wrong = sum(check["paid"] - check["owed"] for check in view.get("payment", ()))
        return {"type": "payment_accepted", **_payment(table, output.round_id, wrong), "note": output.note,
                "currency": currency, "dealer": table.dealer, "role": output.role, "who": output.who}
    if isinstance(output, out.ChipStatusChanged):
        return {"type": "chip_status", "uid": output.uid, "status": output.status, "reason": output.reason,
                **_chip_on_layout(table, output.uid), "currency": currency, "role": output.role, "who": output.who}
    return None
