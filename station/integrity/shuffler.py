"""The service's hands on the shuffler: what the core asks for, done through the driver.

The core never touches a driver. When a set is about to go into play it publishes
:class:`~station.core.outputs.DeckCheckWanted`; when the shuffler started afresh,
:class:`~station.core.outputs.ShufflerStateWanted`. This agent hears them on the core loop's
thread, queues them, and on a thread of its own asks the shuffler's driver: the count comes back
as the driver's own ``DeckCheck`` event (or, when the shuffler gives none,
:class:`~station.events.DeckCheckUnanswered`), the state as a ``ShufflerStatus`` event with what
the shuffler reports. Everything goes back through the core loop's queue, so it is journaled and
replay reaches the same state. A request to the shuffler may take seconds (a deck check is
allowed 2 s); the loop never waits for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import structlog

from drivers.devices.errors import DeviceError
from station.core import outputs as out
from station.events import DeckCheckUnanswered, Event, ShufflerStatus
from station.integrity.worker import OutputWorker

log = structlog.get_logger(__name__)

#: Attempts at a deck check before the set is reported uncounted, and the pause between them.
DECK_CHECK_ATTEMPTS = 2
RETRY_PAUSE_S = 0.5
#: After asking the state, how long the shuffler must stay quiet for its answer to be posted.
QUIET_S = 0.2


class ShufflerAgent(OutputWorker):
    """Deck checks and state queries for the core, one at a time, off the loop's thread."""

    THREAD_NAME = "shuffler-agent"
    FAILED_EVENT = "shuffler_agent_failed"  # a defect here must not end the agent
    KINDS: tuple[type[out.Output], ...] = (out.DeckCheckWanted, out.ShufflerStateWanted)

    def __init__(self, post: Callable[[Event], None], driver_of: Callable[[str], Any]) -> None:
        super().__init__()
        self._post = post
        self._driver_of = driver_of
        self.done = 0  # requests handled (tests wait on it)

    def ask_state(self, device: str) -> None:
        """Ask the shuffler's state (at start: a report may have been lost while the station was down)."""
        self._inbox.put(out.ShufflerStateWanted(device))

    def _handle(self, output: out.Output) -> None:
        if isinstance(output, out.DeckCheckWanted):
            self._deck_check(output.device, output.set_colour)
        elif isinstance(output, out.ShufflerStateWanted):
            self._state(output.device)

    def _handled(self, output: out.Output) -> None:
        self.done += 1

    def _deck_check(self, device: str, colour: str) -> None:
        driver = self._driver_of(device)
        check = getattr(driver, "deck_check", None)
        if check is None:
            self._post(DeckCheckUnanswered(device, f"no shuffler named {device!r} is configured"))
            return
        reason = ""
        for attempt in range(1, DECK_CHECK_ATTEMPTS + 1):
            try:
                check()  # the driver emits the count as a DeckCheck event
                log.info("deck_check_done", device=device, set=colour, attempt=attempt)
                return
            except DeviceError as exc:
                reason = str(exc)
                log.warning("deck_check_failed", device=device, set=colour, attempt=attempt, reason=reason)
            if attempt < DECK_CHECK_ATTEMPTS:
                time.sleep(RETRY_PAUSE_S)
        self._post(DeckCheckUnanswered(device, reason))

    def _state(self, device: str) -> None:
        driver = self._driver_of(device)
        if driver is None:
            return
        stats = getattr(driver, "stats", None)
        before = stats.events_delivered if stats is not None else 0
        try:
            info = driver.status()
        except DeviceError as exc:
            log.warning("shuffler_state_unknown", device=device, reason=str(exc))
            return
        time.sleep(QUIET_S)
        if stats is not None and stats.events_delivered != before:
            # The shuffler is reporting by itself (a shuffle under way): its own reports, in
            # order, are the truth; an answer posted now could overtake those still in flight.
            log.info("shuffler_state_superseded", device=device, state=info.state.value)
            return
        log.info("shuffler_state", device=device, state=info.state.value, set=info.set_colour,
                 cards=info.cards_held)
        self._post(ShufflerStatus(device, info.state, info.progress, info.set_colour, info.detail))
