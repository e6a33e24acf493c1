"""The exact house edge of every wager of a game for a full shoe, as a rating prices a bet.

A rated player's theoretical win is each bet's stake times the house edge of its wager under
the table's rules (docs/ratings.md). The edges are those of ``station analyze`` for a shoe of
the table's decks, worked out once per game, decks and payouts.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

from station.analysis.baccarat_odds import analyse_baccarat
from station.analysis.war_odds import analyse_war
from station.cards import ShoeComposition


@functools.cache
def _edges(game: str, decks: int, tie_pays: int, bonus: int) -> dict[str, Fraction]:
    shoe = ShoeComposition(decks)
    if game == "war":
        return {e.key: e.house_edge for e in analyse_war(shoe, tie_pays, bonus).edges}
    return {e.key: e.house_edge for e in analyse_baccarat(shoe, (tie_pays,)).edges}


@functools.cache
def _side_edges(decks: int) -> dict[str, Fraction]:
    """Baccarat's side bets by pay table name, and EZ Baccarat's Banker (``banker_ez``)."""
    from station.analysis.side_bet_odds import analyse_side_bets

    analysis = analyse_side_bets(ShoeComposition(decks))
    edges = {odds.edge.key: odds.edge.house_edge for odds in analysis.odds}
    return {**edges, analysis.ez_banker.key: analysis.ez_banker.house_edge}


def full_shoe_edges(game: str, decks: int, table: Any) -> dict[str, Fraction]:
    """The house edge of each wager ``game`` offers (by the analysis' keys: ``banker_commission``,
    ``tie_8_to_1``, ``casino_war_go_to_war`` ...; a side bet by its pay table's name,
    ``dragon_7_40``) for a full shoe, under ``table``'s payouts."""
    tie_pays = int(getattr(table, "tie_pays", 10 if game == "war" else 8))
    bonus = int(getattr(table, "tie_after_tie_bonus", 0) or 0)
    edges = _edges(game, decks, tie_pays, bonus)
    if game == "war":
        return edges
    # A baccarat round may be switched to EZ Baccarat's Banker (5.11) on any table.
    return {**edges, **_side_edges(decks)}
