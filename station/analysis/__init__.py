"""Exact odds of Baccarat and Casino War for any shoe composition.

Everything here is exact: counts are Python integers, probabilities and house edges are
:class:`fractions.Fraction`. Nothing is sampled. ``station analyze`` prints these figures;
the service may use them to show the odds of the cards still in the shoe.
"""

from station.analysis.baccarat_odds import (
    BaccaratAnalysis,
    RoundCounts,
    analyse_baccarat,
    count_pairs,
    count_rounds,
)
from station.analysis.edges import BetEdge
from station.analysis.war_odds import WarAnalysis, WarCounts, analyse_war, count_war

__all__ = [
    "BaccaratAnalysis",
    "BetEdge",
    "RoundCounts",
    "WarAnalysis",
    "WarCounts",
    "analyse_baccarat",
    "analyse_war",
    "count_pairs",
    "count_rounds",
    "count_war",
]
