"""Who is signed in at the console, and how often a PIN may be wrong.

Pure bookkeeping with an injected clock (no I/O, no web framework), so every rule here is
tested without a browser:

- **Sessions.** Signing in makes a session with a random id (the cookie) and a random CSRF
  token of its own, which every change must carry. A session with no tap for ``idle_s`` is
  gone: polling for the table's picture is not a tap, so a screen left open signs itself out.
- **A supervisor on the dealer's screen.** A supervisor who signs in over a dealer's session
  acts for one decision: the first change they make that the table applies ends their turn
  and the screen is the dealer's again (as does signing out, or ``SUPERVISOR_TURN_S`` without a
  decision). A supervisor who signs in on a screen of their own (a tablet) keeps the session.
- **Wrong PINs.** At most ``MAX_FAILURES`` wrong PINs per name within ``FAILURE_WINDOW_S``; the
  next try waits until the oldest of them is a minute old, whatever PIN it brings, so trying
  every four-digit PIN takes days. Unknown names count like known ones.
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

MAX_FAILURES = 5
FAILURE_WINDOW_S = 60.0
#: Seconds a supervisor signed in over a dealer's session has for their decision.
SUPERVISOR_TURN_S = 120.0
#: Sessions kept at most (a table has a handful of screens; a flood of sign-ins cannot fill memory).
MAX_SESSIONS = 64


@dataclass(frozen=True)
class User:
    name: str
    role: str
    pin_scrypt: str


@dataclass
class ConsoleSession:
    """One screen's sign-in: its user, and a supervisor acting on it for one decision."""

    ident: str
    csrf: str
    user: User
    last_tap: float
    supervisor: User | None = None
    supervisor_since: float = 0.0
    turns: int = 0
    """How often who acts on this screen has changed: a screen told of an older turn (a long
    poll answered just before a command's reply ended the supervisor's turn) keeps the newer."""

    @property
    def acting(self) -> User:
        """Who a change is made as: the supervisor while their turn lasts, else the user."""
        return self.supervisor or self.user

    def hand_to(self, supervisor: User | None, now: float = 0.0) -> None:
        """A supervisor's turn begins (``supervisor``) or ends (None)."""
        self.supervisor, self.supervisor_since = supervisor, now
        self.turns += 1

    def describe(self) -> dict[str, object]:
        acting = self.acting
        return {"name": self.user.name, "role": self.user.role, "acting": acting.name,
                "acting_role": acting.role, "supervisor_turn": self.supervisor is not None, "turn": self.turns}


@dataclass
class Counters:
    signed_in: int = 0
    wrong_pins: int = 0
    waits: int = 0
    idle_signed_out: int = 0
    csrf_refused: int = 0
    no_session: int = 0


@dataclass
class SessionBook:
    """Every session of the console and every name's recent wrong PINs."""

    idle_s: float
    clock: Callable[[], float]
    sessions: dict[str, ConsoleSession] = field(default_factory=dict)
    failures: dict[str, deque[float]] = field(default_factory=dict)
    counters: Counters = field(default_factory=Counters)

    # --- wrong PINs ----------------------------------------------------------------------

    def wait_s(self, name: str) -> float:
        """Seconds ``name`` must wait before another PIN is tried (0: none)."""
        now = self.clock()
        tries = self.failures.get(name)
        if tries is None:
            return 0.0
        while tries and now - tries[0] >= FAILURE_WINDOW_S:
            tries.popleft()
        if not tries:
            del self.failures[name]
            return 0.0
        return FAILURE_WINDOW_S - (now - tries[0]) if len(tries) >= MAX_FAILURES else 0.0

    def failed(self, name: str) -> None:
        self.counters.wrong_pins += 1
        if len(self.failures) > 4096 and name not in self.failures:  # a flood of invented names
            self.failures.pop(next(iter(self.failures)))
        self.failures.setdefault(name, deque()).append(self.clock())

    # --- sessions ------------------------------------------------------------------------

    def sign_in(self, user: User, over: ConsoleSession | None) -> ConsoleSession:
        """``user`` signed in on a screen whose session is ``over`` (None: none). A supervisor
        over a dealer's session takes a turn on it; anyone else starts a session of their own."""
        now = self.clock()
        self.counters.signed_in += 1
        self.failures.pop(user.name, None)
        if over is not None and user.role == "supervisor" and over.user.role == "dealer":
            over.hand_to(user, now)
            over.last_tap = now
            return over
        if over is not None:
            self.sessions.pop(over.ident, None)
        while len(self.sessions) >= MAX_SESSIONS:
            oldest = min(self.sessions.values(), key=lambda s: s.last_tap)
            del self.sessions[oldest.ident]
        session = ConsoleSession(secrets.token_urlsafe(32), secrets.token_urlsafe(32), user, now)
        self.sessions[session.ident] = session
        return session

    def find(self, ident: str | None) -> ConsoleSession | None:
        """The live session with this id; an idle one is ended here."""
        if not ident:
            return None
        session = self.sessions.get(ident)
        if session is None:
            return None
        now = self.clock()
        if now - session.last_tap > self.idle_s:
            del self.sessions[ident]
            self.counters.idle_signed_out += 1
            return None
        if session.supervisor is not None and now - session.supervisor_since > min(SUPERVISOR_TURN_S, self.idle_s):
            session.hand_to(None)
        return session

    def tapped(self, session: ConsoleSession) -> None:
        session.last_tap = self.clock()

    def decided(self, session: ConsoleSession) -> None:
        """A change the table applied: a supervisor's turn on a dealer's screen ends with it."""
        session.hand_to(None)

    def sign_out(self, session: ConsoleSession) -> str:
        """Ends the supervisor's turn if there is one, else the session; says which."""
        if session.supervisor is not None:
            session.hand_to(None)
            return "supervisor"
        self.sessions.pop(session.ident, None)
        return "session"
