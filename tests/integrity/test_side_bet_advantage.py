"""Side bets watched for advantage play: the integrity monitor prices each side bet a table
offers (by the pay table it pays by, and EZ Baccarat's Banker) at the cards left in the shoe,
and raises an advantage alert when one turns in the players' favour, as it does for the main
bets; the edges are ``station analyze``'s, exactly."""

from __future__ import annotations

import dataclasses

from station.analysis.side_bet_odds import analyse_side_bets
from station.cards import FULL_DECK, ShoeComposition, parse_card
from station.core import outputs as out
from station.core.options import CoreOptions
from station.games.baccarat.game import BaccaratGame
from station.games.baccarat.side_bets import OfferedSideBet, SideBet
from station.games.baccarat.table import BaccaratTable, BankerPayout
from station.games.registry import game_named
from station.integrity.edges import house_edges, offered_wagers
from station.integrity.monitor import IntegrityMonitor


def _table(**changes: object) -> BaccaratTable:
    table = BaccaratGame().default_table()
    offers = (OfferedSideBet(SideBet.DRAGON_7, "dragon_7_40", 500, 10_000),
              OfferedSideBet(SideBet.DRAGON_BONUS_PLAYER, "dragon_bonus_player_b", 500, 10_000))
    return dataclasses.replace(table, side_bets=offers, **changes)  # type: ignore[arg-type]


def _left(comp: ShoeComposition) -> tuple[int, ...]:
    return tuple(comp.count(card) for card in FULL_DECK)


def test_the_side_bets_a_table_offers_are_priced_as_station_analyze_prices_them() -> None:
    table = _table(banker_payout=BankerPayout.EZ)
    rules = game_named("baccarat")
    wagers = offered_wagers("baccarat", rules.regions_of(table), table, "ez")
    assert [w.key for w in wagers] == ["banker_ez", "player", "tie_8_to_1", "dragon_7_40", "dragon_bonus_player_b"]
    assert wagers[3].name == "Dragon 7 (three card 7 40:1)"
    comp = ShoeComposition(8)
    comp.remove_all([parse_card(code) for code in ("7S", "7H", "TD", "2C", "KS")])
    edges = house_edges("baccarat", comp, wagers, table)
    exact = analyse_side_bets(comp, ["dragon_7_40", "dragon_bonus_player_b"])
    assert edges["dragon_7_40"] == exact.edge("dragon_7_40").house_edge
    assert edges["dragon_bonus_player_b"] == exact.edge("dragon_bonus_player_b").house_edge
    assert edges["banker_ez"] == exact.ez_banker.house_edge


def test_a_shoe_rich_in_tens_and_sevens_turns_dragon_7_and_is_an_advantage_alert() -> None:
    monitor = IntegrityMonitor(CoreOptions(table=_table()))
    comp = ShoeComposition(8, {parse_card(code): 8 for code in ("TS", "TH", "TD", "7S")})
    found = monitor.feed(out.CardsAccounted(1, "1-70", "round", (), _left(comp), 8))
    dragon = [f for f in found if f.code == "advantage_situation" and f.data["wager"] == "dragon_7_40"]
    assert dragon, [f.data["wager"] for f in found]
    assert dragon[0].data["player_edge_percent"] > 100
    assert "Dragon 7 (three card 7 40:1): the players' edge is" in dragon[0].detail
    # A full shoe favours the house on every side bet: no alert.
    quiet = IntegrityMonitor(CoreOptions(table=_table()))
    assert not [f for f in quiet.feed(out.CardsAccounted(1, "1-1", "round", (), _left(ShoeComposition(8)), 8))
                if f.code == "advantage_situation"]
