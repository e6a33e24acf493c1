"""Card-frame latency: simulated shoe writes a card frame -> the driver's CardDrawn is delivered.

Runs the real path: the shoe simulator writes each frame to a pseudo-terminal master in
one write; the driver's reader thread reads the slave through pyserial, decodes, emits
and ACKs. The clock starts immediately before the simulator's write of the frame and
stops inside the driver's emit sink. Prints p50/p99/max over N cards (default 10,000).

    .venv/bin/python bench/latency.py [--cards N] [--socket]
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import statistics
import sys
import threading
import time

import structlog


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--socket", action="store_true", help="over socket:// instead of a pty")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))

    from drivers.devices import ShoeDriver
    from drivers.simulators import start_simulator
    from drivers.simulators.pool import shuffled_shoe
    from station.events import CardDrawn

    written: list[int] = []
    delivered: list[int] = []
    got = threading.Event()

    def emit(event: object) -> None:
        if isinstance(event, CardDrawn):
            delivered.append(time.perf_counter_ns())
            got.set()

    running = start_simulator("shoe", transport="socket" if args.socket else "pty")
    shoe = running.device
    driver = ShoeDriver("shoe", running.url, emit)
    if not driver.start(wait=10):
        print("driver did not connect", file=sys.stderr)
        return 1
    shoe.wait_idle(10)
    decks_needed = args.cards // 416 + 1
    items = [c for _ in range(decks_needed) for c in shuffled_shoe(8, seed=len(written))][: args.cards]
    shoe.load(items)
    started = time.perf_counter()
    for _ in range(args.cards):
        got.clear()
        shoe.draw(on_sent=written.append)
        if not got.wait(5):
            print("a card was not delivered within 5 s", file=sys.stderr)
            return 1
    elapsed = time.perf_counter() - started
    shoe.wait_idle(10)
    driver.stop()
    running.stop()

    lat_us = sorted((d - w) / 1000 for w, d in zip(written, delivered, strict=True))
    n = len(lat_us)

    def pct(p: float) -> float:
        return lat_us[min(n - 1, int(p / 100 * n))]

    print(f"card-frame latency over {n} cards ({'socket' if args.socket else 'pty'}), "
          f"Python {platform.python_version()}, {platform.machine()}")
    print(f"  p50 {pct(50):8.1f} us")
    print(f"  p90 {pct(90):8.1f} us")
    print(f"  p99 {pct(99):8.1f} us")
    print(f"  max {lat_us[-1]:8.1f} us")
    print(f"  mean {statistics.fmean(lat_us):7.1f} us")
    print(f"  {n / elapsed:,.0f} cards/s dealt one at a time (draw, deliver, ACK)")
    print(f"  driver: {driver.stats.duplicates} duplicates, {driver.stats.bad_frames} bad frames")
    load = os.getloadavg()
    print(f"  machine: {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} during the run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
