"""The integrity monitor's cost per round over whole 8-deck shoes, and the order tests' false
alarms in simulated shoes.

Run: ``.venv/bin/python bench/integrity.py [--shoes N] [--false-alarm-shoes N]``

1. **Cost per round**: properly shuffled 8-deck shoes are dealt by the rules; after each round
   the monitor is fed what the core publishes (the round's result and the account of its cards
   with the composition left) and runs everything it runs live: the exact edges of every offered
   wager, the advantage check, the first-cards order and repeat tests, and at the shoe's end the
   result statistics. Each feed is timed; p50, p99 and max over all rounds (target p99 < 10 ms).
2. **False alarms**: the first 16 cards of many shuffled shoes through the order tests, with the
   count of each statistic at thresholds low enough to be seen, against the bound formula
   (docs/integrity.md).

Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from station.cards import FULL_DECK, Card, ShoeComposition
from station.core import outputs as out
from station.core.options import CoreOptions
from station.core.rounds import RoundId
from station.games.baccarat.rules import Hand, next_hand, result_of
from station.integrity import order
from station.integrity.edges import warm_up
from station.integrity.monitor import IntegrityMonitor


def cost_per_round(shoes: int, seed: int) -> list[float]:
    warm_up()
    monitor = IntegrityMonitor(CoreOptions())
    rng = random.Random(seed)
    times: list[float] = []
    for number in range(1, shoes + 1):
        cards = [c for _ in range(8) for c in FULL_DECK]
        rng.shuffle(cards)
        comp = ShoeComposition(8)
        burn = 1 + cards[0].rank.pip
        comp.remove_all(cards[:burn])
        left = tuple(comp.count(c) for c in FULL_DECK)
        monitor.feed(out.CardsAccounted(number, "", "start", tuple(cards[:burn]), left, 8))
        i, n = burn, 0
        while i < len(cards) - 15 - 6:
            player: list[Card] = []
            banker: list[Card] = []
            first = i
            while (hand := next_hand(tuple(player), tuple(banker))) is not None:
                (player if hand is Hand.PLAYER else banker).append(cards[i])
                i += 1
            n += 1
            dealt = cards[first:i]
            comp.remove_all(dealt)
            rid = RoundId(number, n)
            settled = out.RoundSettled(rid, "baccarat", (), (), result_of(player, banker).outcome.value, False,
                                       False, False, (), 0)
            account = out.CardsAccounted(number, rid, "round", tuple(dealt), tuple(comp.count(c) for c in FULL_DECK),
                                         8, shoe_over=i >= len(cards) - 15 - 6)
            start = time.perf_counter()
            monitor.feed(settled)
            monitor.feed(account)
            if account.shoe_over:
                monitor.feed(out.CardsAccounted(number, "", "end", (), account.left, 8, shoe_over=True))
            times.append(time.perf_counter() - start)
    return times


def false_alarms(shoes: int, seed: int) -> None:
    rng = random.Random(seed)
    deck = [c for _ in range(8) for c in FULL_DECK]
    pool = 52 * 8 - 15
    thresholds = {"suited steps >= 3": 0, "suited steps >= 4": 0, "rank steps up >= 9": 0,
                  "suit period 4 >= 8 of 12": 0, "alarm": 0}
    for _ in range(shoes):
        result = order.order_statistics(rng.sample(deck, 16))
        thresholds["suited steps >= 3"] += result.suited_steps >= 3
        thresholds["suited steps >= 4"] += result.suited_steps >= 4
        thresholds["rank steps up >= 9"] += result.rank_steps_up >= 9
        thresholds["suit period 4 >= 8 of 12"] += result.suit_cycles[4] >= 8
        thresholds["alarm"] += bool(result.found)
    bounds = {"suited steps >= 3": math.comb(15, 3) * (16 / pool) ** 3,
              "suited steps >= 4": math.comb(15, 4) * (16 / pool) ** 4,
              "rank steps up >= 9": math.comb(15, 9) * (64 / pool) ** 9,
              "suit period 4 >= 8 of 12": math.comb(12, 8) * (104 / pool) ** 8,
              "alarm": order.false_alarm_bounds(8)["total"]}
    print(f"order tests, {shoes:,} shuffled 8-deck shoes (first 16 cards):")
    for name, count in thresholds.items():
        print(f"  {name:<28} observed {count / shoes:.3e} ({count})   bound {bounds[name]:.3e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=20)
    parser.add_argument("--false-alarm-shoes", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    times = sorted(cost_per_round(args.shoes, args.seed))
    p = lambda q: times[min(len(times) - 1, int(q * len(times)))] * 1000  # noqa: E731
    print(f"monitor per round, {args.shoes} shoes, {len(times)} rounds: p50 {p(0.5):.3f} ms, p99 {p(0.99):.3f} ms, "
          f"max {times[-1] * 1000:.3f} ms, mean {statistics.fmean(times) * 1000:.3f} ms")
    if args.false_alarm_shoes:
        false_alarms(args.false_alarm_shoes, args.seed)


if __name__ == "__main__":
    main()
