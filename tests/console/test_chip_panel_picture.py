"""The chips on the console's picture, without a browser (station/console/chip_panel.py): each
spot's chips beside its keyed bet while the bets stand, a spot that differs said in words, a
chip that does not count named with its UID wherever it lies, each box's payment while the
round is paid, a wrong payment holding the table, and what a supervisor did said until the
next round opens. The chips are the core's own view (``chip_view``), as the station hands it."""

from __future__ import annotations

from typing import Any

from station.console.view import ConsoleView, TableLayout
from station.core import outputs as out
from station.core.rounds import RoundId
from station.money import Money

EUR = Money(2, "EUR")
ROUND = RoundId(1, 1)
TEN, FLAGGED, UNKNOWN = "E004010000001000", "E0040100000F0001", "E0040100000F00FF"


def layout() -> TableLayout:
    return TableLayout("T1", "baccarat", "baccarat", "mini", ("1", "2", "3"), ("banker", "player", "tie"),
                       ("banker", "player"), 3, (100, 500, 1000), 1000, 100_000, EUR, "UTC")


def chip(uid: str, status: str = "active", value: int = 1000) -> dict[str, Any]:
    return {"uid": uid, "status": status, "value": value}


def chip_view(places: dict[str, list[dict[str, Any]]], *, payment: list[dict[str, Any]] | None = None,
              hold: str = "", locked: bool = False) -> dict[str, Any]:
    """The core's ``chip_view`` for ``places`` (each place's chips; the amount their active ones)."""
    words = {"spot:1:banker": "Box 1 \u00b7 Banker", "spot:1:player": "Box 1 \u00b7 Player",
             "spot:2:tie": "Box 2 \u00b7 Tie", "payout:1": "Box 1 payout zone", "tray": "Chip tray"}
    return {"confirm": "tap", "locked": locked, "hold": hold, "payment": payment or [], "counts": {}, "statuses": {},
            "places": {p: {"words": words[p], "amount": sum(c["value"] for c in chips if c["status"] == "active"),
                           "chips": chips} for p, chips in places.items()}}


def test_a_table_without_a_chip_reader_shows_no_chips() -> None:
    view = ConsoleView(layout())
    view.apply(out.StateChanged("betting", "burning"), "1-1")
    assert view.to_json()["chips"] is None


def test_each_spot_s_chips_beside_its_keyed_bet_and_a_chip_that_does_not_count_named() -> None:
    view = ConsoleView(layout())
    view.apply(out.StateChanged("betting", "burning"), "1-1", chip_view({
        "spot:1:banker": [chip(TEN), chip(f"{TEN[:-1]}1", value=500), chip(FLAGGED, "flagged")],
        "spot:1:player": [chip(f"{TEN[:-1]}2")], "tray": [chip(UNKNOWN, "unknown", 0)]}))
    view.apply(out.BetAccepted(ROUND, "1", "ann", "banker", 1000), "1-1")
    view.apply(out.BetAccepted(ROUND, "1", "bo", "banker", 500), "1-1")
    view.apply(out.BetAccepted(ROUND, "1", "ann", "player", 1000), "1-1")
    view.apply(out.BetAccepted(ROUND, "2", "cy", "tie", 500), "1-1")
    shown = view.to_json()["chips"]
    assert shown["title"] == "Chips on the layout"  # every spot read agrees with what is keyed there
    box_1, box_2 = shown["boxes"]
    assert [(s["name"], s["chips_words"], s["keyed_words"], s["verdict"]) for s in box_1["spots"]] == [
        ("Banker", "chips 15.00", "keyed 15.00", "agrees"), ("Player", "chips 10.00", "keyed 10.00", "agrees")]
    assert box_1["bad"] == [f"Box 1 \u00b7 Banker: chip {FLAGGED} is flagged, not counted"]
    # A spot the reader never read (no antenna under it) agrees, as the core's proposal says.
    assert [(s["chips_words"], s["keyed_words"], s["verdict"]) for s in box_2["spots"]] == [
        ("no chips read", "keyed 5.00", "not read")]
    assert shown["elsewhere"] == [f"Chip tray: chip {UNKNOWN} is not in the registry, not counted"]

    # A chip more on the Banker, the Player's taken away: both differ, in words.
    view.apply(out.ChipsSeen("spot:1:player", "Box 1 \u00b7 Player", (), 0), "1-1", chip_view({
        "spot:1:banker": [chip(TEN), chip(f"{TEN[:-1]}1", value=500), chip(f"{TEN[:-1]}3")], "spot:1:player": []}))
    shown = view.to_json()["chips"]
    assert shown["title"] == ("Chips on the layout \u00b7 2 spots differ from the bets: Box 1 \u00b7 Banker, "
                              "Box 1 \u00b7 Player")
    assert [(s["chips_words"], s["keyed_words"], s["verdict"], s["agrees"]) for s in shown["boxes"][0]["spots"]] == [
        ("chips 25.00", "keyed 15.00", "differs", False), ("chips 0.00", "keyed 10.00", "differs", False)]


def test_payments_a_wrong_one_holding_the_table_and_its_acceptance_until_the_next_round() -> None:
    view = ConsoleView(layout())
    view.apply(out.StateChanged("betting", "burning"), "1-1", chip_view({}))
    assert view.to_json()["chips"]["boxes"] == []
    assert view.to_json()["chips"]["empty"] == "No chips on the betting spots"
    under = {"box": "1", "owed": 1900, "paid": 1000, "verdict": "under",
             "text": "Box 1 paid 10.00, owed 19.00: under by 9.00"}
    right = {"box": "3", "owed": 1000, "paid": 1000, "verdict": "right", "text": "Box 3 paid 10.00, owed 10.00: right"}
    view.apply(out.StateChanged("paying", "dealing"), "1-1",
               chip_view({"spot:1:banker": [chip(TEN)], "payout:1": [chip(f"{TEN[:-1]}1")]}, payment=[under, right]))
    shown = view.to_json()["chips"]
    assert shown["comparing"] is False and shown["hold"] is None
    assert shown["title"] == "Chips on the layout \u00b7 payments"
    assert [(b["name"], b["payment"], b["spots"]) for b in shown["boxes"]] == [
        ("Box 1", [{"verdict": "under", "text": under["text"]}], []),  # the payments, not the spots
        ("Box 3", [{"verdict": "right", "text": right["text"]}], [])]
    # "Next round" found it wrong: the table is held until it is put right or accepted.
    view.apply(out.ChipPaymentHeld("1-1", (str(under["text"]),), -900), "1-1",
               chip_view({"payout:1": [chip(f"{TEN[:-1]}1")]}, payment=[under, right], hold="1-1"))
    hold = view.to_json()["chips"]["hold"]
    assert hold == {"round_id": "1-1", "words": "Wrong payment: round 1-1 holds the table",
                    "detail": "Box 1 under by 9.00 \u2014 put the wrong payment right in the "
                              "payout zone or a supervisor accepts it"}
    view.apply(out.ChipPaymentWasAccepted("1-1", "supervisor", "sue", "paid 9.00 in cash"), "1-1",
               chip_view({"payout:1": [chip(f"{TEN[:-1]}1")]}, payment=[under, right]))
    shown = view.to_json()["chips"]
    assert shown["hold"] is None
    assert shown["news"] == "Payment of round 1-1 accepted as it lay by sue (paid 9.00 in cash)"
    view.apply(out.ChipStatusChanged(FLAGGED, "active", "found in the count room", "supervisor", "sue"), "1-1")
    assert view.to_json()["chips"]["news"] == f"Chip {FLAGGED} put back in play by sue (found in the count room)"
    view.apply(out.StateChanged("betting", "paying"), "1-2", chip_view({}, locked=False))
    assert view.to_json()["chips"]["news"] == ""  # the next round: what was done is said no more


def test_locked_at_no_more_bets() -> None:
    view = ConsoleView(layout())
    view.apply(out.BetAccepted(ROUND, "1", "ann", "banker", 1000), "1-1", chip_view({"spot:1:banker": [chip(TEN)]}))
    view.apply(out.StateChanged("dealing", "betting"), "1-1", chip_view({"spot:1:banker": [chip(TEN)]}, locked=True))
    assert view.to_json()["chips"]["title"] == "Chips on the layout \u00b7 locked at no more bets"
