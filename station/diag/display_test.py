"""``station diag display-test``: walk the results board through everything it can show.

First the board's own self-test (its test pattern on every panel), then one of each thing
the station sends during play — table limits, a round result, the roads, the "what to deal
next" line, brightness steps — and finally a clear. Each step is one command the board must
ACK; a refusal (NAK), a timeout or a lost link is a failed step with the driver's reason.
After a lost link or a command unanswered through all its retransmissions the remaining
steps are skipped rather than each timing out in turn.

The sample round and roads are built by the real game engine and road builder, so the
board is shown data of exactly the shape it gets at the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from drivers.devices import DeviceError, DeviceTimeout, DeviceUnavailable, DisplayDriver
from drivers.devices.display import WarBox, WarBoxOutcome
from station.cards import parse_card, parse_cards
from station.games.baccarat.rules import result_of
from station.money import format_range
from station.roads.rules import build_roads
from station.service.board import wire_roads

SAMPLE_HISTORY = "BBPPPTBPBBBPTPPB"
BRIGHTNESS_STEPS = (25, 50, 75, 100)


@dataclass(frozen=True)
class StepResult:
    name: str
    passed: bool
    detail: str
    skipped: bool = False


def _steps(display: DisplayDriver, limits: tuple[int, int], money: tuple[str, int] = ("", 0)
           ) -> Iterator[tuple[str, Callable[[], str]]]:
    original: dict[str, int] = {}

    def self_test() -> str:
        report = display.self_test()
        if not report.passed:
            raise DeviceError(f"self-test failed (code {report.code}): {report.detail}")
        return report.detail

    def read_status() -> str:
        info = display.status()
        original["brightness"] = info.brightness
        if info.error:
            raise DeviceError(f"the board reports error code {info.error}")
        return f"brightness {info.brightness}, {info.commands_shown} commands shown"

    def limits_step() -> str:
        currency, digits = money
        display.show_limits(limits[0], limits[1], currency=currency, minor_digits=digits)
        return format_range(limits[0], limits[1], digits, currency)

    def result_step() -> str:
        result = result_of(parse_cards("4H 5C"), parse_cards("KD 7S"))
        display.show_round(result, round_no=1)
        return f"{result.outcome.value} {result.player_total}-{result.banker_total}"

    def roads_step() -> str:
        display.show_roads(**wire_roads(build_roads(SAMPLE_HISTORY)))
        return f"{len(SAMPLE_HISTORY)} rounds: {SAMPLE_HISTORY}"

    def war_step() -> str:
        display.show_war_result(2, "7D", (
            WarBox(1, parse_card("7C"), WarBoxOutcome.WAR_WIN, (parse_card("QS"),)),
            WarBox(3, parse_card("7S"), WarBoxOutcome.SURRENDER),
            WarBox(5, parse_card("AD"), WarBoxOutcome.WIN),
        ), "5H")
        return "round 2: a war won, a surrender, a win"

    def expected_step() -> str:
        display.show_expected("deal Banker third card")
        return "deal Banker third card"

    def message_step() -> str:
        display.show_message("Display test")
        return "Display test"

    def clear_step() -> str:
        display.clear()
        return "board cleared"

    yield "self-test pattern", self_test
    yield "status", read_status
    yield "limits", limits_step
    yield "sample result", result_step
    yield "sample roads", roads_step
    yield "sample Casino War result", war_step
    yield "expected action", expected_step
    yield "message", message_step
    yield from brightness_steps(display, original)
    yield "clear", clear_step


def run_display_test(
    display: DisplayDriver,
    *,
    limits: tuple[int, int] = (1000, 500_000),
    money: tuple[str, int] = ("", 0),
    pause: float = 0.0,
    on_step: Callable[[StepResult], Any] | None = None,
) -> list[StepResult]:
    """Run every step in order; ``pause`` seconds between steps let a person look at the board."""
    return run_steps(_steps(display, limits, money), "board", pause=pause, on_step=on_step)


def run_steps(steps: Iterable[tuple[str, Callable[[], str]]], device: str, *, pause: float = 0.0,
              on_step: Callable[[StepResult], Any] | None = None) -> list[StepResult]:
    """Run a device test's steps in order, ``pause`` seconds apart; after a lost link or a
    command unanswered through all its retransmissions the rest are skipped, each saying so
    (the link to the ``device`` was lost), rather than each timing out in turn."""
    results: list[StepResult] = []
    link_lost = False
    for index, (name, action) in enumerate(steps):
        if link_lost:
            result = StepResult(name, False, f"skipped: the link to the {device} was lost", skipped=True)
        else:
            if index and pause > 0:
                time.sleep(pause)
            try:
                result = StepResult(name, True, action())
            except (DeviceUnavailable, DeviceTimeout) as exc:
                link_lost = True
                result = StepResult(name, False, str(exc))
            except DeviceError as exc:
                result = StepResult(name, False, str(exc))
        results.append(result)
        if on_step is not None:
            on_step(result)
    return results


class Dimmable(Protocol):
    def brightness(self, level: int) -> None: ...


def brightness_steps(device: Dimmable, original: dict[str, int]) -> Iterator[tuple[str, Callable[[], str]]]:
    """The brightness walked up in :data:`BRIGHTNESS_STEPS`, then back to what the status read
    (``original["brightness"]``; full when it could not be read)."""
    def step(level: int) -> Callable[[], str]:
        def set_level() -> str:
            device.brightness(level)
            return f"{level}%"

        return set_level

    def restore() -> str:
        level = original.get("brightness", 100)
        device.brightness(level)
        return f"{level}% (as found)"

    for level in BRIGHTNESS_STEPS:
        yield f"brightness {level}", step(level)
    yield "brightness restored", restore


def format_step(step: StepResult) -> str:
    verdict = "ok    " if step.passed else "SKIP  " if step.skipped else "FAILED"
    return f"  {verdict} {step.name:<20} {step.detail}"
