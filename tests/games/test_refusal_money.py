"""Every amount in a refusal reads as the table's money: its currency and its minor digits,
from ``[table] currency`` and ``minor_digits`` through the table options the rules are given
(never "over the maximum of 500000"). The words are the rules'; the figures are formatted by
the one :class:`station.money.Money` of the table."""

from __future__ import annotations

from station.config.table import TableSection
from station.games.baccarat.differential import reduce_for_differential
from station.games.baccarat.rules import Outcome
from station.games.baccarat.table import BaccaratTable
from station.games.baccarat.wagers import Bet, accept_bet, box
from station.games.registry import game_named
from station.games.table import Chips
from station.games.war.table import WarTable
from station.games.war.wagers import WagerKind, WarWager, accept_wager
from station.money import Money

EUR = Money(2, "EUR")


def mini(money: Money = EUR, **changes: object) -> BaccaratTable:
    options: dict[str, object] = {"variant": "mini", "boxes": 7, "min_bet": 1000, "max_bet": 500_000,
                                  "chips": Chips((100, 500, 2500)), "money": money}
    options.update(changes)
    return BaccaratTable(**options)  # type: ignore[arg-type]


def test_a_baccarat_refusal_gives_every_amount_in_euros() -> None:
    over = accept_bet(Bet(box(1), "ann", Outcome.PLAYER, 600_000), [], mini())
    assert over.reason == ("Player bet of 6,000.00 EUR takes player ann's total on Player to 6,000.00 EUR, "
                           "over the maximum of 5,000.00 EUR: at most 5,000.00 EUR more")
    banker = accept_bet(Bet(box(1), "ann", Outcome.BANKER, 2500), [], mini())
    assert banker.reason == ("Banker bet of 25.00 EUR cannot be paid exactly in chips of 1.00 EUR: "
                             "largest acceptable is 20.00 EUR")
    low = accept_bet(Bet(box(2), "bo", Outcome.TIE, 500), [], mini())
    assert low.reason == "Tie bet of 5.00 EUR on box 2 is below the table minimum of 10.00 EUR"


def test_the_minor_digits_are_the_tables_own() -> None:
    yen = mini(Money(0, "JPY"), min_bet=1000, max_bet=100_000)
    assert accept_bet(Bet(box(1), "ann", Outcome.PLAYER, 200_000), [], yen).reason.endswith(
        "over the maximum of 100,000 JPY: at most 100,000 JPY more")
    dinar = mini(Money(3, "BHD"))
    assert "below the table minimum of 1.000 BHD" in accept_bet(Bet(box(1), "ann", Outcome.TIE, 500), [],
                                                               dinar).reason


def test_a_casino_war_refusal_gives_every_amount_in_euros() -> None:
    war = WarTable(boxes=7, min_bet=1000, max_bet=50_000, chips=Chips((500, 2500)), box_max=60_000, money=EUR)
    over = accept_wager(WarWager(3, "ann", WagerKind.WAR, 55_000), [], war)
    assert over.reason == ("Casino War Wager of 550.00 EUR on box 3 is over the table maximum of 500.00 EUR: "
                           "at most 500.00 EUR more")
    odd = accept_wager(WarWager(3, "ann", WagerKind.WAR, 1500), [], war)
    assert odd.reason == ("Casino War Wager of 15.00 EUR could not be halved in chips of 5.00 EUR on a surrender: "
                          "use a multiple of 10.00 EUR")


def test_a_differential_reason_gives_every_amount_in_euros() -> None:
    table = mini(table_differential=1000)
    bets = [Bet(box(1), "ann", Outcome.PLAYER, 5000), Bet(box(2), "bo", Outcome.BANKER, 2000)]
    plan = reduce_for_differential(bets, table)
    assert plan.reason == ("Player total 50.00 EUR exceeds Banker total 20.00 EUR by 30.00 EUR; the table "
                           "differential is 10.00 EUR: Player bets reduced to 30.00 EUR")
    assert plan.reductions[0].reason.endswith("ann's Player bet on box 1 50.00 EUR -> 30.00 EUR")


def test_the_configuration_gives_the_tables_money_and_it_is_no_rule() -> None:
    for game in ("baccarat", "war"):
        section = TableSection(game=game, currency="JPY", minor_digits=0, min_bet=1000, max_bet=100_000,
                               chips=[100, 500, 1000, 2000])
        table = game_named(game).table_from_settings(section)
        assert table.money == Money(0, "JPY")
    # Two tables that differ only in how they write amounts have the same rules.
    assert mini(Money(0, "JPY")) == mini(EUR)
