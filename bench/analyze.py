"""Time the exact odds analysis: one complete baccarat enumeration per composition.

Prints, in milliseconds, the median and minimum over several runs of:
- the one-off table of rounds by value multiset (built once per process),
- ``count_rounds`` (the enumeration alone) and ``analyse_baccarat`` (counts, pairs, edges)
  for a full 8-deck and 6-deck shoe and for 8-deck shoes with cards removed,
- a straightforward nested-loop enumeration by point value, as the baseline,
- ``analyse_war`` for comparison,
- a whole ``station analyze --json`` process, start-up included.

Usage: ``python bench/analyze.py [--runs N]``. Nothing here is asserted; the figures go to
``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial

from station.analysis import round_table as table_module
from station.analysis.baccarat_odds import analyse_baccarat, count_rounds
from station.analysis.war_odds import analyse_war
from station.cards import FULL_DECK, ShoeComposition
from station.games.baccarat.rules import banker_draws


def straightforward_counts(values: list[int]) -> list[int]:
    """The baseline: nested loops over the point values of every card of every round.

    Kept here only to show what the multiset table saves; tallies Banker, Player, Tie on
    the same six-card denominator.
    """
    c = list(values)
    n = sum(c)
    tally = [0, 0, 0]

    def settle(p: int, b: int, weight: int) -> None:
        tally[0 if b > p else 1 if p > b else 2] += weight

    for p1 in range(10):
        w1 = c[p1]
        c[p1] -= 1
        for b1 in range(10):
            w2 = w1 * c[b1]
            c[b1] -= 1
            for p2 in range(10):
                w3 = w2 * c[p2]
                c[p2] -= 1
                for b2 in range(10):
                    w4 = w3 * c[b2]
                    if w4 <= 0:
                        continue
                    c[b2] -= 1
                    p, b = (p1 + p2) % 10, (b1 + b2) % 10
                    if p >= 8 or b >= 8 or (p >= 6 and b >= 6):
                        settle(p, b, w4 * (n - 4) * (n - 5))
                    elif p >= 6:
                        for y in range(10):
                            settle(p, (b + y) % 10, w4 * c[y] * (n - 5))
                    else:
                        for x in range(10):
                            w5 = w4 * c[x]
                            c[x] -= 1
                            px = (p + x) % 10
                            if banker_draws(b, x):
                                for y in range(10):
                                    settle(px, (b + y) % 10, w5 * c[y])
                            else:
                                settle(px, b, w5 * (n - 5))
                            c[x] += 1
                    c[b2] += 1
                c[p2] += 1
            c[b1] += 1
        c[p1] += 1
    return tally


def timings(action: Callable[[], object], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), min(samples)


def shoe_minus(decks: int, removed: int, seed: int) -> ShoeComposition:
    shoe = ShoeComposition(decks)
    cards = [card for card in FULL_DECK for _ in range(decks)]
    shoe.remove_all(random.Random(seed).sample(cards, removed))
    return shoe


def report(label: str, median: float, best: float) -> None:
    print(f"{label:<46} median {median:8.2f} ms   min {best:8.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    print(f"CPython {platform.python_version()} on {platform.machine()}, {args.runs} runs each")

    start = time.perf_counter()
    table = table_module.round_table()
    print(f"{'round table (once per process)':<46} {1000 * (time.perf_counter() - start):8.2f} ms"
          f"   ({table.multisets} value multisets)")

    shoes = {
        "8 decks, full": ShoeComposition(8),
        "6 decks, full": ShoeComposition(6),
        "8 decks, 10 cards removed": shoe_minus(8, 10, seed=1),
        "8 decks, 200 cards removed": shoe_minus(8, 200, seed=2),
        "8 decks, 400 cards removed": shoe_minus(8, 400, seed=3),
    }
    for name, shoe in shoes.items():
        values = shoe.by_baccarat_value()
        report(f"count_rounds, {name}", *timings(partial(count_rounds, values), args.runs))
    for name, shoe in shoes.items():
        report(f"analyse_baccarat, {name}", *timings(partial(analyse_baccarat, shoe), args.runs))
    full = ShoeComposition(8).by_baccarat_value()
    baseline_runs = max(3, args.runs // 10)
    report(f"straightforward by-value loops, 8 decks ({baseline_runs} runs)",
           *timings(partial(straightforward_counts, full), baseline_runs))
    fast = count_rounds(full)
    agrees = straightforward_counts(full) == [fast.banker, fast.player, fast.tie]
    print(f"{'straightforward loops give the same counts':<46} {agrees}")
    report("analyse_war, 6 decks, full", *timings(lambda: analyse_war(ShoeComposition(6)), args.runs))

    command = [sys.executable, "-m", "station", "analyze", "--decks", "8", "--json"]
    runs = max(3, args.runs // 6)
    report(f"station analyze --json process ({runs} runs)",
           *timings(lambda: subprocess.run(command, check=True, capture_output=True), runs))


if __name__ == "__main__":
    main()
