"""What recall says of a round at a table that reads its chips (docs/chips.md): the bets the
chips proposed against those bet, the dealer's tap that confirmed them, chips moved after no
more bets, each box's payment as the payout zone showed it, a wrong payment held and who
accepted it, and the chips that raised an alarm. The round keeps them itself
(:attr:`station.core.rounds.Round.chips`), so a round reads the same from any stretch of the
journal."""

from __future__ import annotations

from typing import Any

from station.chips.places import ChipPlace
from station.money import Money


def _place_words(place: str) -> str:
    try:
        return ChipPlace.parse(place).words()
    except ValueError:
        return place


def describe_chips(round_: dict[str, Any], amount: Money) -> list[str]:
    """The lines recall prints for a round's chips (none at a table that reads none)."""
    chips = round_.get("chips")
    if not chips:
        return []
    lines = []
    for spot in chips["proposed"]:
        agrees = "agrees" if spot["chips"] == spot["keyed"] else "differs"
        lines.append(f"  chip bet     {_place_words(spot['place'])}: chips {amount(spot['chips'])}, "
                     f"bet {amount(spot['keyed'])} ({agrees})")
    for tap in chips["confirmed"]:
        boxes = f" (box {', '.join(tap['boxes'])})" if tap["boxes"] else ""
        lines.append(f"  chip tap     confirmed as the bets by {tap['role']} {tap['who']}{boxes}")
    for moved in chips["moved"]:
        lines.append(f"  chips moved  {moved['text']}")
    for check in chips["payment"]:
        lines.append(f"  payment      {check['text']}")
    held, accepted = chips["held"], chips["accepted"]
    if held is not None:
        how = "held the next round" if held.get("held", True) else "wrong (not held)"
        lines.append(f"  payment      {how}: {'; '.join(held['wrong'])}")
    if accepted is not None:
        note = f" ({accepted['note']})" if accepted["note"] else ""
        lines.append(f"  payment      accepted by {accepted['role']} {accepted['who']}{note}")
    for alarm in chips["alarms"]:
        lines.append(f"  chip alarm   {alarm['detail']}")
    return lines
