"""The broker goes away under the pit page and comes back: the page says so at once, in red,
keeps the last known tiles meanwhile, and is whole again when the broker returns (every
retained status and state comes again with the new subscription). A real mosquitto stopped
and started on its port, the real ``station pit``, a replayer of a real feed, Chromium."""

from __future__ import annotations

import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from ..browser import BROWSER_MARKS, launched_chromium, screenshot
from ..floor.helpers import Broker
from ..layout import assert_layout_sound
from ..waiting import wait_until
from .helpers import PitProcess, pit_config, start_replayer

pytestmark = BROWSER_MARKS


def _vienna_now() -> str:
    return datetime.now(ZoneInfo("Europe/Vienna")).strftime("%H:%M:%S")


def _seconds(clock: str) -> int:
    hours, minutes, seconds = (int(part) for part in clock.split(":"))
    return (hours * 3600 + minutes * 60 + seconds + 43200) % 86400  # no false alarm at midnight


def test_the_page_says_when_it_has_no_broker_and_fills_in_again(broker: Broker, recorded_journal: Path,
                                                                tmp_path: Path) -> None:
    page_process = PitProcess(pit_config(tmp_path / "pit.toml", broker.url), tmp_path / "pit.log").start()
    replayer: subprocess.Popen[Any] | None = start_replayer(recorded_journal, broker.url, first=1, tables=3,
                                                            round_s=5, log=tmp_path / "replay.log")
    try:
        with launched_chromium() as chromium:
            page = chromium.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
            page.goto(page_process.url)  # a floor of one pit: its tables
            wait_until(lambda: page.locator(".tile").count() == 3, 30, "three tiles", poll=0.05)
            assert page.is_hidden("#banner")
            # The page's clock is the pit's (its [pit] timezone), whatever the screen's own zone.
            wait_until(lambda: abs(_seconds(page.inner_text("#clock")) - _seconds(_vienna_now())) <= 3, 10,
                       "the clock in Vienna time", poll=0.05)

            broker.stop()
            wait_until(lambda: page.is_visible("#banner"), 15, "the banner saying the broker is gone", poll=0.05)
            banner = page.inner_text("#banner")
            assert banner.startswith("No connection to the floor broker since ") and "last known state" in banner
            assert page.locator(".tile").count() == 3  # the last known tiles stay
            assert abs(_seconds(page.inner_text("#clock")) - _seconds(_vienna_now())) <= 3
            assert_layout_sound(page, "the pit page without its broker")
            screenshot(page, "pit-no-broker.png")

            # The replayer's tables died with the broker's connection; they come back with it.
            assert replayer is not None
            replayer.terminate()
            replayer.wait(20)
            replayer = None
            broker.start()
            wait_until(lambda: page.is_hidden("#banner"), 30, "the banner gone once the broker is back", poll=0.05)
            # The tables' last wills, retained by the broker: they show offline, not a stale online.
            wait_until(lambda: page.eval_on_selector_all(".tile", "ts => ts.map(t => t.dataset.status)")
                       == ["offline"] * 3, 30, "three tiles offline from the retained last wills", poll=0.05)
            page.close()
    finally:
        if replayer is not None:
            replayer.terminate()
            replayer.wait(20)
        assert page_process.stop() == 0
