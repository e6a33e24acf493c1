"""How many damaged pedal reports each version's check lets through: version 1's CRC-8 and
version 2's CRC-16, on the same kinds of damage.

Run: ``.venv/bin/python bench/pedal_fuzz.py [--reports 1000000] [--seeds 25]``

Each report is a valid one (any sequence, event, button, held buttons and hold time) damaged
once by ``drivers.simulators.pedals.mutations`` (bits flipped, a burst, bytes replaced or
swapped, a byte lost or added, cut short, run on, stuck bits, garbage), the same seeded mix
for both versions. For each version and seed it prints how many damaged reports decoded with
content other than what was sent, how many of them with a changed held bitmap and with a
changed button, by kind of damage, and the time taken; with several seeds, the total and the
95% upper bound of the rate (none seen in n reports: 3/n, the rule of three).

Prints the figures; asserts nothing (tests/usb/test_fuzz.py holds version 2 to none).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from drivers.simulators.pedals.mutations import MUTATIONS, mutants
from drivers.usb.codec import ReportError, decode_report


def measure(version: int, count: int, seed: int) -> int:
    started = time.perf_counter()
    accepted: Counter[str] = Counter()
    held = button = 0
    for mutant in mutants(count, version, seed):
        try:
            report = decode_report(mutant.raw, version)
        except ReportError:
            continue
        if report == mutant.original:
            continue  # (cannot happen: a mutant differs, and a report has one encoding)
        accepted[mutant.how] += 1
        held += report.held != mutant.original.held
        button += report.button != mutant.original.button
    took = time.perf_counter() - started
    total = sum(accepted.values())
    kinds = ", ".join(f"{how} {accepted[how]}" for how in MUTATIONS if accepted[how]) or "-"
    name = "version 1 (CRC-8)" if version == 1 else "version 2 (CRC-16)"
    print(f"{name:<19} seed {seed:>3}  {count:>9,} damaged  {total:>5,} accepted with other content "
          f"(held changed {held:,}, button changed {button:,})  [{kinds}]  {took:5.1f} s", flush=True)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=1_000_000, help="damaged reports per version and seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[25], help="generator seeds (25: the test's)")
    args = parser.parse_args()
    print(f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}")
    for version in (1, 2):
        total = sum(measure(version, args.reports, seed) for seed in args.seeds)
        n = args.reports * len(args.seeds)
        if len(args.seeds) > 1 or not total:
            bound = f"; 95% upper bound {3 / n * 1e6:.2f} per million" if not total else ""
            print(f"  version {version}: {total:,} of {n:,} ({total / n * 1e6:.1f} per million){bound}")


if __name__ == "__main__":
    main()
