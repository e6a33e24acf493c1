"""The console as a person uses it in a real browser: by the accessible names docs/console.md
promises (fields Name and PIN, buttons Sign in, Chip <amount>, Box <n> <Region>, the Player
field, the actions by their names, the dealer's line with role status, refusals with role
alert), while the test deals the simulated shoe by hand."""

from __future__ import annotations

import re
from typing import Any

from drivers.simulators import shuffled_shoe

from ..browser import screenshot
from ..layout import SCREEN_SIZES, control_problems
from .conftest import PINS, ConsoleTable
from .scroll_regions import assert_console_layout_sound

WAIT_MS = 15_000


class ConsolePage:
    def __init__(self, page: Any, table: ConsoleTable) -> None:
        self.page = page
        self.table = table
        page.goto(table.url)

    # --- reading ---------------------------------------------------------------------------

    @property
    def state(self) -> str:
        return str(self.page.evaluate("document.body.dataset.state"))

    def line(self) -> str:
        return str(self.page.get_by_role("status").inner_text())

    def alert(self) -> str:
        return str(self.page.get_by_role("alert").inner_text())

    def wait_state(self, *states: str) -> str:
        names = ",".join(f"'{s}'" for s in states)
        self.page.wait_for_function(f"[{names}].includes(document.body.dataset.state)", timeout=WAIT_MS)
        return self.state

    def wait_text(self, selector: str, pattern: str) -> str:
        self.page.wait_for_function(
            "([selector, pattern]) => new RegExp(pattern).test(document.querySelector(selector)?.innerText || '')",
            arg=[selector, pattern], timeout=WAIT_MS)
        return str(self.page.locator(selector).inner_text())

    # --- doing -----------------------------------------------------------------------------

    def tap(self, name: str) -> None:
        self.page.get_by_role("button", name=name, exact=True).click()

    def sign_in(self, name: str) -> None:
        self.page.get_by_label("Name", exact=True).fill(name)
        self.page.get_by_label("PIN", exact=True).fill(PINS[name])
        self.tap("Sign in")

    def supervisor_signs_in(self, name: str) -> None:
        """A supervisor's turn on the dealer's screen: Supervisor, Name and PIN, Sign in."""
        self.tap("Supervisor")
        self.sign_in(name)
        self.page.wait_for_function("document.body.dataset.role === 'supervisor'", timeout=WAIT_MS)

    def player(self, name: str) -> None:
        self.page.get_by_label("Player", exact=True).fill(name)

    def bet(self, player: str, chip: str, box: str, region: str) -> None:
        """Player, chip, region: the three taps of one bet; the station's answer is awaited."""
        self.player(player)
        self.tap(f"Chip {chip}")
        before = self.page.evaluate("document.querySelectorAll('.bet').length")
        self.tap(f"Box {box} {region}")
        self.page.wait_for_function(
            f"document.querySelectorAll('.bet').length > {before} || document.getElementById('refusal').innerText",
            timeout=WAIT_MS)

    def act(self, name: str, *then: str) -> str:
        self.tap(name)
        return self.wait_state(*then) if then else self.state

    def deal_until(self, *states: str) -> str:
        """Slide cards out of the simulated shoe until the station is in one of ``states``."""
        for _ in range(40):
            state = self.state
            if state in states:
                return state
            if state in ("burning", "dealing", "war_burning", "war_dealing"):
                before = self.line()
                self.table.draw()
                self.page.wait_for_function(
                    "([line, state]) => document.querySelector('[role=status]').innerText !== line || "
                    "document.body.dataset.state !== state", arg=[before, state], timeout=WAIT_MS)
            else:
                raise AssertionError(f"cannot deal in {state}: {self.line()}")
        raise AssertionError(f"still {self.state} after 40 cards")

    def load_shoe(self, seed: int, cut_at: int | None = None) -> None:
        """A shuffled shoe in the simulated shoe, its cut card 15 cards from the back, or
        ``cut_at`` cards from the front (a short shoe: every step of a shoe's life in fewer rounds)."""
        decks = self.table.decks
        self.table.shoe.simulator.load(shuffled_shoe(decks, seed, cut_at if cut_at is not None else 52 * decks - 15))

    def open_shoe(self, seed: int, cut_at: int | None = None) -> None:
        """Shuffle, cut and burn: the dealer's taps and the test's cards."""
        self.wait_state("shuffling")
        self.load_shoe(seed, cut_at)
        self.act("Shuffle done", "cutting")
        self.act("Confirm cut", "burning")
        self.deal_until("betting")


def open_console(browser: Any, table: ConsoleTable, *, seed: int | None = None,
                 cut_at: int | None = None) -> ConsolePage:
    """The started ``table``'s console at 1280x800, dealer dee signed in; with ``seed``, the
    first shoe shuffled, cut (``cut_at``: :meth:`ConsolePage.load_shoe`) and burned."""
    page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    console = ConsolePage(page, table)
    console.sign_in("dee")
    if seed is not None:
        console.open_shoe(seed, cut_at)
    return console


def check_every_size(page: Any, where: str, shots: tuple[tuple[int, int], ...] = ((1366, 768),)) -> None:
    """The layout check (tests/layout.py, with the console's scroll regions scrolled through:
    tests/console/scroll_regions.py) at every screen size, and screenshots of ``where`` at the
    sizes in ``shots``; back to 1280x800 after."""
    name = where.replace(" ", "-")
    for width, height in SCREEN_SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(50)  # one frame for the new layout (the check reads it, it does not wait for it)
        try:
            assert_console_layout_sound(page, where)
        except AssertionError:
            screenshot(page, f"console-{name}-{width}x{height}-FAILED.png")  # what the failure looked like
            raise
        controls = control_problems(page)
        assert not controls, f"{where} at {width}x{height}:\n  " + "\n  ".join(controls)
        if (width, height) in shots:
            screenshot(page, f"console-{name}-{width}x{height}.png")
    page.set_viewport_size({"width": 1280, "height": 800})


def money(text: str) -> int:
    """ "1,234.50" as minor units (two digits), for comparing with the journal."""
    match = re.fullmatch(r"(-?)([\d,]+)\.(\d\d)", text.strip())
    assert match, text
    value = int(match[2].replace(",", "")) * 100 + int(match[3])
    return -value if match[1] else value
