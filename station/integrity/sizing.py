"""Bets that rise with their value: the mark of a counter or an edge sorter (docs/integrity.md).

A player who counts the shoe for Dragon 7 (or sorts edges for the main bets) bets little or
nothing while the bet is poor and much when the cards left favour it. So for each player at
each box, and each wager the table offers, the monitor keeps, round by round of the shoe, the
players' edge on that wager for the round (what the exact analysis gave after the round
before) and what the player staked on it (0 in a round they played without it). When an
advantage alert is raised for a wager, the players whose stakes correlate with its edge
(Pearson's r of at least :data:`RISING_R` over at least :data:`MIN_ROUNDS` rounds, their stake
not the same every round) are named in it.

The samples are plain JSON on the shoe's record (:class:`~station.integrity.monitor.ShoeRecord`),
so the monitor's checkpoints keep them; a shoe keeps at most :data:`KEPT_ROUNDS` per player.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: A player is named when their stake and the wager's edge correlate at least this much ...
RISING_R = 0.6
#: ... over at least this many rounds of the shoe.
MIN_ROUNDS = 8
#: Rounds kept per player and wager (a continuous shuffler's shoe never ends).
KEPT_ROUNDS = 200


def _key(box: str, player: str, wager: str) -> str:
    return f"{box}|{player}|{wager}"


def note_round(sizing: dict[str, list[list[float]]], edges_percent: Mapping[str, float],
               bets: Iterable[tuple[str, str, str, int]], regions: Mapping[str, str]) -> None:
    """A round settled with ``bets`` (box, player, region, stake), played at ``edges_percent``
    (house edge per wager, percent): each player's stake on each wager against the players'
    edge on it. ``regions`` maps each wager to the region it is bet on."""
    stakes: dict[tuple[str, str], dict[str, int]] = {}
    for box, player, region, stake in bets:
        mine = stakes.setdefault((box, player), {})
        mine[region] = mine.get(region, 0) + stake
    for (box, player), by_region in stakes.items():
        for wager, edge in edges_percent.items():
            if wager not in regions:
                continue
            region = regions[wager]
            samples = sizing.setdefault(_key(box, player, wager), [])
            samples.append([-float(edge), float(by_region.get(region, 0))])
            del samples[:-KEPT_ROUNDS]


def correlation(pairs: Sequence[Sequence[float]]) -> float | None:
    """Pearson's r of the pairs, None when either side never changes."""
    n = len(pairs)
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / math.sqrt(sxx * syy)


def rising(sizing: Mapping[str, list[list[float]]], wager: str) -> list[dict[str, Any]]:
    """The players whose stake on ``wager`` rises with its value, the strongest first."""
    found = []
    for key, pairs in sizing.items():
        box, player, of = key.split("|", 2)
        if of != wager or len(pairs) < MIN_ROUNDS:
            continue
        r = correlation(pairs)
        if r is not None and r >= RISING_R:
            found.append({"box": box, "player": player, "correlation": round(r, 3), "rounds": len(pairs)})
    return sorted(found, key=lambda f: (-f["correlation"], f["box"], f["player"]))


def rising_words(found: Sequence[Mapping[str, Any]]) -> str:
    """"; bets rising with it: box 3 ann (r 0.91 over 14 rounds)", or "" when nobody's do."""
    if not found:
        return ""
    return "; bets rising with it: " + ", ".join(
        f"box {f['box']} {f['player']} (r {f['correlation']:.2f} over {f['rounds']} rounds)" for f in found)
