"""Web scoreboard latency: from a revealed result being published to the page having drawn it.

Run: ``.venv/bin/python bench/web_latency.py [--rounds N]`` (needs Debian's chromium and the
``playwright`` package, as the browser tests do).

A real :class:`~station.web.server.ScoreboardServer` on 127.0.0.1 and a real headless Chromium
showing the page. For each of N rounds dealt by the engine from a seeded 8-deck shoe, the
script notes the wall-clock time just before ``publish()`` and reads back the page's own
``drawn <seq>`` performance mark (``performance.timeOrigin + mark.startTime``, the same wall
clock on the same machine). Prints p50/p90/max of publish -> received and publish -> drawn.
Target: drawn within 100 ms. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

from playwright.sync_api import sync_playwright

from station.cards import FULL_DECK
from station.games.baccarat.rules import play_round
from station.roads.scoreboard import Scoreboard
from station.web import Limit, ScoreboardServer, Snapshot, TableInfo

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args()
    cards = list(FULL_DECK) * 8
    random.Random(7).shuffle(cards)
    draw = iter(cards).__next__
    table = TableInfo("Bench table", limits=(Limit("Table", 1000, 500000),))
    board = Scoreboard()
    received: list[float] = []
    drawn: list[float] = []
    with ScoreboardServer("127.0.0.1", 0) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
        page.goto(server.url)
        page.wait_for_function("document.querySelector('#connection').dataset.connected === 'true'")
        for _ in range(args.rounds):
            result = play_round(draw)
            board.add(result)
            published = time.time() * 1000
            seq = server.publish(Snapshot(table, "betting", board.roads(), result))
            page.wait_for_function(f"performance.getEntriesByName('drawn {seq}').length > 0", timeout=10_000)
            marks = page.evaluate(
                f"""() => [performance.getEntriesByName('received {seq}')[0].startTime,
                           performance.getEntriesByName('drawn {seq}')[0].startTime,
                           performance.timeOrigin]"""
            )
            received.append(marks[2] + marks[0] - published)
            drawn.append(marks[2] + marks[1] - published)
        browser.close()

    def figures(samples: list[float]) -> str:
        ordered = sorted(samples)
        return (f"p50 {statistics.median(ordered):.1f} ms, p90 {ordered[int(0.9 * len(ordered))]:.1f} ms, "
                f"max {ordered[-1]:.1f} ms")

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"{args.rounds} results")
    print(f"publish -> page received: {figures(received)}")
    print(f"publish -> page drawn:    {figures(drawn)} (target < 100 ms)")


if __name__ == "__main__":
    main()
