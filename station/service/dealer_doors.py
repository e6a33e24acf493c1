"""How a dealer signs in to the table, and how a refusal at a door is journaled.

Three doors lead to the same journaled :class:`~station.events.DealerSignedIn`
(docs/dealers.md):

- the **console**: a dealer signing in there with their PIN is signing in to the table
  (:mod:`station.console.launch` posts it);
- ``station ctl dealer NAME``: a supervisor signs anyone in, a dealer only themselves
  (:func:`dealer_problem`, checked by the control socket's ``dealer`` command);
- the **button box**: a long press of ``[dealer] sign_in_button``, then the dealer's
  ``dealer_id`` (``[[control.users]]``) typed as button numbers (:class:`ButtonBoxSignIn`).
  A dealer id is like a badge number, not a secret: the PIN at the console is the
  authenticated way, and a supervisor corrects a wrong sign-in with ``ctl dealer``.

A refusal before anyone is known (a wrong PIN, an unknown token, a dealer id nobody has) is
journaled as a :class:`~station.events.SignInRefused` by :class:`RefusalRecorder`, at most
once a second per door with the count of refusals since, so a flood of guesses is in the
journal without filling it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

from station.events import Actor, ButtonPressed, DealerSignedIn, Event, SignInRefused

if TYPE_CHECKING:
    from station.service.config import StationConfig

log = structlog.get_logger(__name__)

#: Roles whose users may deal (a supervisor may take a table too).
DEALING_ROLES = ("dealer", "supervisor")
#: Seconds between two journaled refusals at one door (the ones between are counted).
REFUSAL_INTERVAL_S = 1.0
#: Seconds an entry on the button box waits for its next press before it is dropped.
ENTRY_TIMEOUT_S = 10.0
BUTTON_BOX = "buttonbox"

Post = Callable[[Event], None]


def dealer_problem(actor: Actor, name: str, dealers: Mapping[str, str]) -> str | None:
    """Why ``actor`` may not sign ``name`` in as the table's dealer (None: they may).
    ``dealers`` is every user who may deal, by name, with their role."""
    if name not in dealers:
        known = ", ".join(sorted(dealers)) or "none is configured"
        return f"{name} is not a dealer of this station ([[control.users]] with role dealer or supervisor: {known})"
    if actor.role != "supervisor" and actor.who != name:
        return f"a dealer signs in only themselves; {actor.who} may not sign in {name} (a supervisor may)"
    return None


class RefusalRecorder:
    """Journals refusals at the doors: the first at once, then at most one per
    ``REFUSAL_INTERVAL_S`` per door, carrying how many there were (any thread)."""

    def __init__(self, post: Post, clock: Callable[[], float] = time.monotonic) -> None:
        self._post = post
        self._clock = clock
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def refused(self, door: str, reason: str, claimed: str = "") -> None:
        now = self._clock()
        with self._lock:
            held = self._held.get(door, 0) + 1
            last = self._last.get(door)
            if last is not None and now - last < REFUSAL_INTERVAL_S:
                self._held[door] = held
                return
            self._last[door], self._held[door] = now, 0
        self._post(SignInRefused(door, reason, claimed[:32], held))


@dataclass
class _Entry:
    digits: str
    last_press: float


class ButtonBoxSignIn:
    """Sits between the drivers and the core loop (``emit``): everything passes through as it
    is, except the button box's sign-in, which it turns into a ``DealerSignedIn`` (or a
    refusal) and which never reaches the table as presses.

    ``numbers`` maps the box's button names to their numbers; ``dealer_ids`` maps each
    dealer id (button numbers, none the beginning of another) to the user's name and role."""

    def __init__(self, post: Post, *, button: str, numbers: Mapping[str, int], dealer_ids: Mapping[str, Actor],
                 refusals: RefusalRecorder, clock: Callable[[], float] = time.monotonic) -> None:
        self._post = post
        self._button = button
        self._numbers = dict(numbers)
        self._ids = dict(dealer_ids)
        self._longest = max((len(i) for i in self._ids), default=0)
        self._refusals = refusals
        self._clock = clock
        self._entry: _Entry | None = None
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        if not isinstance(event, ButtonPressed) or event.device != BUTTON_BOX:
            self._post(event)
            return
        with self._lock:
            part_of_entry, signed_in = self._take(event)
        if signed_in is not None:
            self._post(signed_in)
        elif not part_of_entry:
            self._post(event)

    def _take(self, press: ButtonPressed) -> tuple[bool, DealerSignedIn | None]:
        """Whether the press is part of a sign-in (not a press for the table), and the
        sign-in it completes."""
        now = self._clock()
        entry = self._entry
        if entry is not None and now - entry.last_press > ENTRY_TIMEOUT_S:
            entry = self._entry = None  # left unfinished: this press is a press again
        if entry is None:
            if press.long_press and press.button == self._button:
                self._entry = _Entry("", now)
                log.info("button_box_sign_in_started")
                return True, None
            return False, None
        if press.long_press:  # a long press leaves the entry
            self._entry = None
            return True, None
        entry.digits += str(self._numbers.get(press.button, 0))
        entry.last_press = now
        actor = self._ids.get(entry.digits)
        if actor is not None:
            self._entry = None
            return True, DealerSignedIn(actor.who, actor, BUTTON_BOX)
        if len(entry.digits) >= self._longest or not any(i.startswith(entry.digits) for i in self._ids):
            self._entry = None
            self._refusals.refused(BUTTON_BOX, "no dealer has the id entered on the button box")
        return True, None


def device_sink(config: StationConfig, post: Post, refusals: RefusalRecorder) -> Post:
    """Where the drivers' events go: the core loop, through the button box's sign-in when the
    configuration has one (``[dealer] sign_in_button`` and a button box)."""
    from drivers.devices.buttonbox import DEFAULT_BUTTONS

    button = config.dealer.sign_in_button
    if not button or config.devices.buttonbox is None:
        return post
    ids = {u.dealer_id: Actor(u.role, u.name) for u in config.control.users if u.dealer_id}
    numbers = {name: number for number, name in DEFAULT_BUTTONS.items()}
    return ButtonBoxSignIn(post, button=button, numbers=numbers, dealer_ids=ids, refusals=refusals)
