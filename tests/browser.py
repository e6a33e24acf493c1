"""What the browser tests share: Debian's Chromium driven by Playwright (never a downloaded
browser), the reason they skip where either is missing, where screenshots go, and rounds
dealt by the real engine for the pages to show."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from station.cards import FULL_DECK
from station.games.baccarat.rules import BaccaratResult, play_round

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
#: ``pytestmark`` of a module of browser tests.
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
    ),
]


@contextmanager
def launched_chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, through Playwright (skips the test without playwright)."""
    playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright Python package")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def screenshot(page: Any, name: str, **options: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), **options)


def dealt_rounds(seed: int, count: int) -> list[BaccaratResult]:
    """Rounds played by the real engine from an 8-deck shoe shuffled with ``seed``."""
    cards = list(FULL_DECK) * 8
    random.Random(seed).shuffle(cards)
    draw = iter(cards).__next__
    return [play_round(draw) for _ in range(count)]
