"""Side bets on the layout (RULES "Baccarat side bets"): accepted under their own limits,
settled by their pay tables, beside the Banker, Player and Tie bets.

A side bet lies on a region of its own of a box (``("3", "ann", "dragon_7")``), named by
:class:`~station.games.baccarat.side_bets.SideBet`. It is placed under the same rules of
places and seating as the main bets (3.1, 5.6-5.8: a player with only a side bet on a box
sits there too), made of the table's chips, and held to the side bet's own minimum and
maximum, per player per box (the sum of that player's chips on that spot). It takes no part
in the table differential (5.17, which weighs Banker against Player), is never left on
after a Tie (5.16 is about the Banker and Player bets: a Tie settles a side bet like any
other result, a Dragon 7 loses and a pair may win), and is settled in integers: wholly
valid, no commission, ``net`` the winnings, minus the stake, or 0 for a stand-off.

A refusal names the side bet and the rules' section (``"side bets"``), amounts written in
the table's money: "Dragon 7 bet of 2.00 EUR on box 3 is below the Dragon 7 minimum of 5.00
EUR".
"""

from __future__ import annotations

from collections.abc import Mapping

from station.games.baccarat.rules import BaccaratResult
from station.games.baccarat.side_bets import SideBet, SideResult, settle_side, side_hand
from station.games.baccarat.table import BaccaratTable
from station.games.baccarat.wagers import REGIONS, place_of, place_problem, seating_problem
from station.games.interface import MeterAward
from station.games.layout import Acceptance, BetFormError, BetKey, SettledBet

#: The rules' section a side bet's refusal rests on.
SIDE_BETS_RULE = "side bets"


def is_main(key: BetKey) -> bool:
    """A Banker, Player or Tie bet (not a side bet)."""
    return key[2] in REGIONS


def main_bets(bets: Mapping[BetKey, int]) -> dict[BetKey, int]:
    """The Banker, Player and Tie bets of a layout, in its order."""
    return {key: amount for key, amount in bets.items() if is_main(key)}


def unknown_region(region: str, table: BaccaratTable) -> str:
    """Why ``region`` takes no bet at this table, in a dealer's words."""
    try:
        bet = SideBet(region)
    except ValueError:
        offered = ", ".join((*REGIONS, *(offer.region for offer in table.side_bets)))
        return f"{region!r} is not a baccarat betting region of this table ({offered})"
    return f"this table offers no {bet.words} bet"


def accept_side_bet(key: BetKey, amount: int, others: Mapping[BetKey, int], table: BaccaratTable) -> Acceptance:
    """May ``amount`` on the side-bet spot ``key`` join ``others`` (the rest of the layout)?
    A layout entry whose box cannot be read raises :class:`BetFormError`."""
    box, player, region = key
    offer = table.side_bet(region)
    if offer is None:
        known = region in {bet.value for bet in SideBet}
        return Acceptance.refuse(unknown_region(region, table), SIDE_BETS_RULE if known else "")
    place = place_of(box)
    where = place_problem(place, table)
    if where:
        return Acceptance.refuse(where, "3.1")
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        return Acceptance.refuse(f"a bet must be a positive whole amount, got {amount!r}", "5.3")
    if not isinstance(player, str) or not player:
        return Acceptance.refuse("a bet needs the player it belongs to", "5.5")
    c, money, name = table.smallest_chip, table.money.with_currency, offer.bet.words
    what = f"{name} bet of {money(amount)}"
    if amount % c:
        return Acceptance.refuse(f"{what} cannot be made of chips of {money(c)}", SIDE_BETS_RULE)
    already = sum(a for (b, p, r), a in others.items() if p == player and r == region and place_of(b) == place)
    mine_here = already + amount
    if mine_here < offer.min_bet:
        return Acceptance.refuse(f"{what} on {place} is below the {name} minimum of {money(offer.min_bet)}",
                                 SIDE_BETS_RULE)
    seating = seating_problem(place, player, [(place_of(b), p) for b, p, _ in others], table)
    if seating is not None:
        return seating
    if mine_here > offer.max_bet:
        room = max(0, offer.max_bet - already)
        return Acceptance.refuse(
            f"{what} takes player {player}'s {name} on {place} to {money(mine_here)}, over the {name} maximum "
            f"of {money(offer.max_bet)}: at most {money(room)} more", SIDE_BETS_RULE)
    return Acceptance.ok()


def settle_side_bet(key: BetKey, amount: int, result: BaccaratResult, table: BaccaratTable) -> SettledBet:
    """One side bet settled against the decided round, by the table's pay table for it."""
    box, player, region = key
    offer = table.side_bet(region)
    if offer is None:
        raise BetFormError(unknown_region(region, table))
    _hand, outcome, winnings = settle_side(offer.pay_table, amount, result)
    net = winnings if outcome is SideResult.WIN else -amount if outcome is SideResult.LOSE else 0
    return SettledBet(box, player, region, amount, amount, 0, outcome.value, net, 0)


def meter_awards(bets: Mapping[BetKey, int], result: BaccaratResult, table: BaccaratTable) -> tuple[MeterAward, ...]:
    """The side bets of ``bets`` whose hand wins a share of the progressive's meter, in layout order."""
    awards = []
    for key in bets:
        offer = table.side_bet(key[2]) if not is_main(key) else None
        if offer is None or not offer.pay_table.meter:
            continue
        hand = side_hand(offer.bet, result)
        if hand in offer.pay_table.meter:
            awards.append(MeterAward(key, hand, offer.pay_table.meter[hand]))
    return tuple(awards)
