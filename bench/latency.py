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
import multiprocessing
import os
import platform
import queue
import statistics
import sys
import threading
import time
from typing import Any

import structlog


def _simulator_process(conn: Any, transport: str, cards: int) -> None:
    """Child process: the shoe simulator, drawing on request and reporting write times."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    from drivers.simulators import start_simulator
    from drivers.simulators.pool import shuffled_shoe

    running = start_simulator("shoe", transport=transport)
    shoe = running.simulator
    items = [c for _ in range(cards // 416 + 1) for c in shuffled_shoe(8, seed=1)][:cards]
    shoe.load(items)
    conn.send(running.url)
    stamps: queue.SimpleQueue[int] = queue.SimpleQueue()
    while conn.recv() == "draw":
        shoe.draw(on_sent=stamps.put)
        conn.send(stamps.get())
    running.stop()
    conn.send("stopped")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--socket", action="store_true", help="over socket:// instead of a pty")
    parser.add_argument("--process", action="store_true",
                        help="run the simulated shoe in its own process, as a real device is outside the station")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))

    from drivers.devices import ShoeDriver
    from drivers.simulators import ShoeSimulator, start_simulator
    from drivers.simulators.pool import shuffled_shoe
    from station.events import CardDrawn

    written: list[int] = []
    delivered: list[int] = []
    got = threading.Event()

    def emit(event: object) -> None:
        if isinstance(event, CardDrawn):
            delivered.append(time.perf_counter_ns())
            got.set()

    transport = "socket" if args.socket else "pty"
    if args.process:
        # perf_counter is CLOCK_MONOTONIC on Linux, so times compare across processes
        parent, child = multiprocessing.Pipe()
        proc = multiprocessing.get_context("spawn").Process(
            target=_simulator_process, args=(child, transport, args.cards)
        )
        proc.start()
        url = parent.recv()

        def draw() -> None:
            parent.send("draw")
            written.append(parent.recv())
    else:
        running = start_simulator("shoe", transport=transport)
        shoe = running.simulator
        assert isinstance(shoe, ShoeSimulator)
        url = running.url
        shoe.load([c for _ in range(args.cards // 416 + 1) for c in shuffled_shoe(8, seed=1)][: args.cards])

        def draw() -> None:
            shoe.draw(on_sent=written.append)

    driver = ShoeDriver("shoe", url, emit)
    if not driver.start(10):
        print("driver did not connect", file=sys.stderr)
        return 1
    started = time.perf_counter()
    for _ in range(args.cards):
        got.clear()
        draw()
        if not got.wait(5):
            print("a card was not delivered within 5 s", file=sys.stderr)
            return 1
    elapsed = time.perf_counter() - started
    driver.stop()  # first, so stopping the simulator is not reported as a lost link
    if args.process:
        parent.send("stop")
        parent.recv()
        proc.join(10)
    else:
        running.stop()

    lat_us = sorted((d - w) / 1000 for w, d in zip(written, delivered, strict=True))
    n = len(lat_us)

    def pct(p: float) -> float:
        return lat_us[min(n - 1, int(p / 100 * n))]

    where = "simulator in its own process" if args.process else "simulator in-process"
    print(f"card-frame latency over {n} cards ({transport}, {where}), "
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
