"""``station diag sign-test``: walk the progressive sign through everything it shows.

First the sign's own self-test (every LED row and digit lit) and its status, then test amounts
on the meter — zero, an amount with every digit, one past what 32 bits hold (the sign's amounts
are 64-bit: docs/protocols/sign.md) — a hit being paid and ended, a line for players and its
removal, brightness steps and back, and finally a clear. Each step is one command the sign must
ACK; a refusal (NAK), a timeout or a lost link is a failed step with the driver's reason. After
a lost link or a command unanswered through all its retransmissions the remaining steps are
skipped rather than each timing out in turn (as ``display-test`` does).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from drivers.devices import DeviceError, SignDriver
from station.diag.display_test import StepResult, brightness_steps, run_steps
from station.money import format_money

#: Test amounts in minor units: nothing yet, every digit 1-9 once, and 2**32 (past a u32).
TEST_AMOUNTS = (0, 123_456_789, 4_294_967_296)
TITLE = "Sign test"


def _steps(sign: SignDriver, money: tuple[str, int]) -> Iterator[tuple[str, Callable[[], str]]]:
    currency, digits = money
    original: dict[str, int] = {}

    def self_test() -> str:
        report = sign.self_test()
        if not report.passed:
            raise DeviceError(f"self-test failed (code {report.code}): {report.detail}")
        return report.detail

    def read_status() -> str:
        info = sign.status()
        original["brightness"] = info.brightness
        if info.error or info.failed_rows:
            rows = ", ".join(map(str, info.failed_rows)) or "none"
            raise DeviceError(f"the sign reports error code {info.error} (dark LED rows: {rows})")
        return f"brightness {info.brightness}, {info.commands_shown} commands shown"

    def meter_step(amount: int) -> Callable[[], str]:
        def step() -> str:
            sign.show_meter(TITLE, amount, digits, currency)
            return format_money(amount, digits, currency)

        return step

    def hit_step() -> str:
        sign.show_hit(TITLE, 50_000, digits, currency, "5")
        return f"box 5 wins {format_money(50_000, digits, currency)}, flashing"

    def end_hit_step() -> str:
        sign.end_hit()
        return "the meter again"

    def message_step(text: str) -> Callable[[], str]:
        def step() -> str:
            sign.show_message(text)
            return repr(text) if text else "taken down"

        return step

    def clear_step() -> str:
        sign.clear()
        return "sign cleared"

    yield "self-test", self_test
    yield "status", read_status
    for amount in TEST_AMOUNTS:
        yield f"meter {amount}", meter_step(amount)
    yield "hit", hit_step
    yield "hit paid", end_hit_step
    yield "message", message_step("Sign test")
    yield "message down", message_step("")
    yield from brightness_steps(sign, original)
    yield "clear", clear_step


def run_sign_test(
    sign: SignDriver,
    *,
    money: tuple[str, int] = ("", 2),
    pause: float = 0.0,
    on_step: Callable[[StepResult], Any] | None = None,
) -> list[StepResult]:
    """Run every step in order; ``pause`` seconds between steps let a person look at the sign.
    ``money`` is the table's currency and minor digits."""
    return run_steps(_steps(sign, money), "sign", pause=pause, on_step=on_step)
