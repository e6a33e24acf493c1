"""The console's words: money in the table's currency, cards, regions, payouts, decisions.

Everything a dealer or supervisor reads on the console is worded here, in Python, from the
table's typed facts (integers of minor units, card codes, settlement records), so each line is
tested once and the page only shows text it is given. Nothing here is a rule of the game: a
payout's figures are the settlement's own, and only their wording is made here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from station.cards import Card
from station.core.payout_steps import box_order
from station.games.baccarat.side_bets import SideBet
from station.games.layout import SettledBet
from station.games.registry import region_words
from station.money import Money

_SUIT = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
_RANK = {"T": "10"}

#: What each decision does, in a supervisor's words (station/core/irregularities.py).
DECISION_WORDS: dict[str, str] = {
    "void": "Void the round: every bet goes back to its owner",
    "burn": "Burn the card(s) read meanwhile, and go on with the round",
    "dummy": "Deal the card(s) read meanwhile to a dummy hand with no bets, and go on",
    "resume": "Go on as if nothing happened (held cards are checked again)",
    "reject": "Reject the card set: it stays out of play until it is shuffled again",
    "recheck": "Have the shuffler count the set again",
    "end_shoe": "End the shoe (the open round is voided if no card of it is out)",
    "reduce": "Reduce the larger side's bets as the station proposes",
    "accept": "Deal the bets as they are, over the differential",
}
#: ``resume`` where it means something else.
RESUME_WORDS = {
    "closing_decision": "Back to betting: the dealer changes the bets",
    "device_fault": "Go on, once the device is back",
    "self_test_failed": "The device was checked: go on",
    "supervisor_called": "Go on with the round",
}


def card_text(code: str | Card) -> str:
    """``"TS"`` as a person reads it: ``10♠``."""
    text = code.code if isinstance(code, Card) else code
    return _RANK.get(text[0], text[0]) + _SUIT.get(text[1:], text[1:])


#: A side bet's name on its button, where eleven regions share a box's column (the button's
#: accessible name and every other place say the whole name).
_SHORT = {"player_pair": "P Pair", "banker_pair": "B Pair", "either_pair": "Either", "perfect_pair": "Perfect",
          "dragon_bonus_player": "DB Player", "dragon_bonus_banker": "DB Banker", "progressive": "Prog."}


def region_label(region: str) -> dict[str, Any]:
    """A region as the console's layout draws it: its name, the words on its button, and
    whether it is a side bet (drawn two to a row under the main bets)."""
    return {"region": region, "name": region_words(region), "short": _SHORT.get(region, region_words(region)),
            "side": region in _SIDE}


_SIDE = frozenset(bet.value for bet in SideBet)


def box_name(box: str) -> str:
    """``"3"`` is "Box 3"; a standing region ``"S2"`` is "Standing 2"."""
    text = box.strip()
    if text[:1].upper() == "S" and text[1:].isdigit():
        return f"Standing {text[1:]}"
    return f"Box {text}"


def input_words(kind: str) -> str:
    """An input's kind as a person reads it: ``PayoutsConfirmed`` is "payouts confirmed",
    ``NoMoreBets`` "no more bets" (the journal keeps the kind; a screen shows the words)."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", kind).lower()
    return words[:1].upper() + words[1:]


def decision_words(decision: str, reason: str) -> str:
    if decision == "resume" and reason in RESUME_WORDS:
        return RESUME_WORDS[reason]
    return DECISION_WORDS.get(decision, decision.replace("_", " ").capitalize())


def _odds(winnings: int, stake: int) -> str:
    if winnings == stake:
        return "even money"
    if stake and winnings % stake == 0:
        return f"{winnings // stake} to 1"
    if stake and 2 * winnings == stake:  # a no-commission Banker win on 6 (5.11)
        return "1 to 2"
    return ""


def payout_words(bet: SettledBet, money: Money, chips: Sequence[int] = ()) -> tuple[str, str]:
    """What the dealer does with one settled bet, and the line that says so:
    ``("pay", "Box 3 · ann · Banker: pay 19.00 (20.00 less 1.00 commission)")``; with the
    table's ``chips``, a payout also says them (``… = 1 × 10.00, 1 × 5.00, 4 × 1.00``)."""
    head = f"{box_name(bet.box)} \u00b7 {bet.player} \u00b7 {region_words(bet.region)}"
    void = f"; return {money(bet.void)} (void part, over the chip-exact limit)" if bet.void else ""
    if bet.outcome == "win" and not bet.net and not bet.commission:
        # A share of a progressive's meter: nothing at the settlement, the stake stays; the award
        # is paid apart, at a supervisor's sign-off (docs/progressive.md).
        return "jackpot", (f"{head}: jackpot, paid at a supervisor's sign-off; {money(bet.valid)} stays the "
                           f"player's{void}")
    if bet.outcome == "win":
        winnings = bet.net + bet.commission
        if bet.commission:
            detail = f"{money(winnings)} less {money(bet.commission)} commission"
        else:
            detail = _odds(winnings, bet.valid) or f"on {money(bet.valid)}"
        paid = in_chips(bet.net, chips, money)
        return "pay", f"{head}: pay {money(bet.net)} ({detail}){f' = {paid}' if paid else ''}{void}"
    if bet.outcome == "lose":
        return "take", f"{head}: take {money(bet.valid)}{void}"
    if bet.outcome == "push":
        return "push", f"{head}: push, {money(bet.valid)} stays the player's{void}"
    if bet.outcome == "surrender":
        back = bet.stake + bet.net
        return "take", f"{head}: surrender, take {money(-bet.net)} and return {money(back)}"
    if bet.outcome == "void":
        return "return", f"{head}: return {money(bet.stake)} (void)"
    return bet.outcome, f"{head}: {bet.outcome} {money(bet.net)}"


def difference_words(box: str, player: str, region: str, change: int, money: Money) -> str:
    """A correction's difference for one bet: pay it now, or take it back."""
    head = f"{box_name(box)} \u00b7 {player} \u00b7 {region_words(region)}"
    if change > 0:
        return f"{head}: pay {money(change)} more"
    return f"{head}: take back {money(-change)}"


def in_chips(amount: int, chips: Sequence[int], money: Money) -> str:
    """``amount`` in the table's chips, the largest first: ``"1 × 25.00, 2 × 10.00"``; empty
    when the chips cannot make it exactly (the line then says the amount alone)."""
    left, parts = amount, []
    for chip in sorted(set(chips), reverse=True):
        count, left = divmod(left, chip)
        if count:
            parts.append(f"{count} \u00d7 {money(chip)}")
    return ", ".join(parts) if left == 0 and parts else ""


def settled_lines(bets: Any, money: Money, chips: Sequence[int] = ()) -> list[dict[str, Any]]:
    """Every settled bet as the payouts list shows it, in the order of the boxes; a payout also
    in the table's chips (``"pay 19.00 (20.00 less 1.00 commission) = 1 × 10.00, …"``)."""
    lines = []
    for bet in sorted(bets, key=lambda b: (box_order(b.box), b.player, b.region)):
        action, text = payout_words(bet, money, chips)
        lines.append({"box": bet.box, "player": bet.player, "region": bet.region, "action": action,
                      "net": bet.net, "text": text})
    return lines


def bet_text(bet: Mapping[str, Any], money: Money) -> str:
    return f"{region_words(str(bet['region']))} {money(int(bet['amount']))}"


def tray_entry_words(entry: int, kind: str, counted_by: str = "hand", corrects: int = 0) -> str:
    """A tray entry as the supervisor's tray form lists it (docs/tray.md): "1 opener", "1 opener
    by the tray antenna" (a person then knows no one counted it by hand), "3 opener (corrects 1)"."""
    return (f"{entry} {kind}" + (" by the tray antenna" if counted_by == "reader" else "")
            + (f" (corrects {corrects})" if corrects else ""))
