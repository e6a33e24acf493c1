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
from station.core.rounds import RoundId
from station.games.baccarat.game import BaccaratGame
from station.games.baccarat.side_bets import OfferedSideBet, SideBet
from station.games.baccarat.table import BaccaratTable, BankerPayout
from station.games.layout import SettledBet
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


def test_the_alert_names_the_players_whose_side_bet_rises_with_its_value() -> None:
    """Thirteen rounds of a shoe drifting towards Dragon 7 (tens and sevens left as the rest
    go), then the round it turns: ann at box 3 bets Dragon 7 harder the better it gets, bob at
    box 1 bets it flat, cat plays Player only. The alert names ann, and only ann."""
    monitor = IntegrityMonitor(CoreOptions(table=_table()))
    others = [c for c in FULL_DECK if c.rank.value not in ("T", "J", "Q", "K", "7")]
    comp, taken, alerts = ShoeComposition(8), 0, []
    for number in range(14):
        stage = "start" if number == 0 else "round"
        found = monitor.feed(out.CardsAccounted(1, f"1-{number}", stage, (), _left(comp), 8))
        alerts += [f for f in found if f.code == "advantage_situation" and f.data["wager"] == "dragon_7_40"]
        if alerts:
            break
        edge = analyse_side_bets(comp, ["dragon_7_40"]).edge("dragon_7_40").house_edge * 100
        counted = 500 * max(1, int(10 - edge))  # the count says bet more
        bets = (SettledBet("3", "ann", "dragon_7", counted, counted, 0, "lose", -counted),
                SettledBet("1", "bob", "dragon_7", 500, 500, 0, "lose", -500),
                SettledBet("5", "cat", "player", 1000, 1000, 0, "win", 1000))
        monitor.feed(out.RoundSettled(RoundId(1, number + 1), "baccarat", (), (), "banker", False, False, False,
                                      bets, 0))
        for _ in range(10):
            comp.remove_all([others[taken % len(others)]])
            taken += 1
    assert len(alerts) == 1 and alerts[0].round_id == "1-13"
    rising = alerts[0].data["rising"]
    assert [(r["box"], r["player"], r["rounds"]) for r in rising] == [("3", "ann", 13)]
    assert rising[0]["correlation"] > 0.9
    assert alerts[0].detail.endswith(f"; bets rising with it: box 3 ann (r {rising[0]['correlation']:.2f} over "
                                     "13 rounds)")
    # The samples are the shoe's, and a checkpoint of the monitor keeps them.
    from station.integrity.monitor_state import monitor_state, restore_monitor

    again = restore_monitor(monitor.options, monitor.settings, monitor_state(monitor))
    assert again.shoe is not None and again.shoe.sizing == monitor.shoe.sizing  # type: ignore[union-attr]
