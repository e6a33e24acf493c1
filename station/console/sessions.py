"""Who is signed in at the console, and how often a PIN may be wrong.

Pure bookkeeping with an injected clock (no I/O, no web framework), so every rule here is
tested without a browser:

- **Sessions.** Signing in makes a session with a random id (the cookie) and a random CSRF
  token of its own, which every change must carry. A session with no tap for ``idle_s`` is
  gone: polling for the table's picture is not a tap, so a screen left open signs itself out.
- **A supervisor on the dealer's screen.** A supervisor who signs in over a dealer's session
  acts for one decision, in a :class:`SupervisorTurn` with a cookie and a CSRF token *of its
  own*: whoever holds the dealer's cookie (from any address) cannot act as the supervisor, and
  while the turn lasts the dealer's cookie cannot act at all (it is ``covered``). The first
  change the table applies ends the turn and the screen is the dealer's again, as does signing
  out or ``SUPERVISOR_TURN_S`` without a decision. An ended turn's cookie then leads back to the
  dealer's session (the screen is given the dealer's cookie again) but never acts as the dealer:
  a change sent with it was meant as the supervisor's. At most ``MAX_ENDED_TURNS`` ended turns
  are remembered, none for longer than ``idle_s``. A supervisor who signs in on a screen of
  their own (a tablet) keeps a session like anyone else.
- **Turns and screens.** Each change of who acts on a screen is a numbered turn, and a screen
  has a non-secret id: a page told of an older turn of the same screen (a poll answered just
  before a command's reply ended the turn) keeps the newer.
- **Wrong PINs.** At most ``MAX_FAILURES`` wrong PINs per name within ``FAILURE_WINDOW_S``; the
  next try waits until the oldest of them is a minute old, whatever PIN it brings, so trying
  every four-digit PIN takes days. Unknown names count like known ones.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

MAX_FAILURES = 5
FAILURE_WINDOW_S = 60.0
#: Seconds a supervisor signed in over a dealer's session has for their decision.
SUPERVISOR_TURN_S = 120.0
#: Sessions kept at most (a table has a handful of screens; a flood of sign-ins cannot fill memory).
MAX_SESSIONS = 64
#: Ended supervisor's turns remembered at most (each leads a screen back to its dealer's session).
MAX_ENDED_TURNS = 64

#: What a cookie is, when it is looked up: nothing known (``none``); a session of its own with
#: nobody else acting on it (``own``); a supervisor's live turn (``turn``); a session under a
#: supervisor's live turn (``covered``: it may not act); an ended turn, its screen the dealer's
#: again (``ended``: it is given the dealer's session back, and may not act).
Standing = Literal["none", "own", "turn", "covered", "ended"]


@dataclass(frozen=True)
class User:
    name: str
    role: str
    pin_scrypt: str


@dataclass
class SupervisorTurn:
    """A supervisor acting on a dealer's screen for one decision, with a cookie (``ident``) and
    a CSRF token of its own, so the dealer's cookie never carries the supervisor's role."""

    ident: str
    csrf: str
    supervisor: User
    since: float
    session: ConsoleSession
    """The dealer's session the turn is on: the screen goes back to it when the turn ends."""


@dataclass
class ConsoleSession:
    """One screen's sign-in: its user, and a supervisor's turn on it while one lasts."""

    ident: str
    csrf: str
    user: User
    last_tap: float
    screen: str = field(default_factory=lambda: secrets.token_hex(6))
    """Not a secret: tells a page which screen a description is of (with :attr:`turns`)."""
    turn: SupervisorTurn | None = None
    turns: int = 0
    """How often who acts on this screen has changed: a screen told of an older turn (a long
    poll answered just before a command's reply ended the supervisor's turn) keeps the newer."""

    @property
    def acting(self) -> User:
        """Who a change is made as: the supervisor while their turn lasts, else the user."""
        return self.turn.supervisor if self.turn is not None else self.user

    def describe(self) -> dict[str, object]:
        """The screen as a page shows it (never a secret: the CSRF token is the caller's to add)."""
        acting = self.acting
        return {"name": self.user.name, "role": self.user.role, "acting": acting.name,
                "acting_role": acting.role, "supervisor_turn": self.turn is not None, "turn": self.turns,
                "screen": self.screen}


@dataclass(frozen=True)
class EndedTurn:
    """What is kept of an ended turn: its token, and whose screen it was on."""

    csrf: str
    session: str
    ended: float


@dataclass(frozen=True)
class Key:
    """What a cookie opens at the moment it is looked up (see :data:`Standing`)."""

    standing: Standing
    session: ConsoleSession | None = None
    turn: SupervisorTurn | None = None
    csrf: str = ""
    """The token a change sent with this cookie must carry."""

    @property
    def acting(self) -> User | None:
        """Who a change sent with this cookie is made as; None: it may not act."""
        if self.standing == "turn" and self.turn is not None:
            return self.turn.supervisor
        if self.standing == "own" and self.session is not None:
            return self.session.user
        return None


NOBODY = Key("none")


@dataclass
class Counters:
    signed_in: int = 0
    wrong_pins: int = 0
    waits: int = 0
    idle_signed_out: int = 0
    csrf_refused: int = 0
    no_session: int = 0
    turns_started: int = 0
    covered_refused: int = 0
    ended_turn_refused: int = 0


@dataclass
class SessionBook:
    """Every session of the console, every live and recently ended supervisor's turn, and
    every name's recent wrong PINs."""

    idle_s: float
    clock: Callable[[], float]
    sessions: dict[str, ConsoleSession] = field(default_factory=dict)
    turns: dict[str, SupervisorTurn] = field(default_factory=dict)
    ended: OrderedDict[str, EndedTurn] = field(default_factory=OrderedDict)
    failures: dict[str, deque[float]] = field(default_factory=dict)
    counters: Counters = field(default_factory=Counters)
    #: Dealers whose own session ended (signed out, or after a while without a tap) and who
    #: have no other: the station hears they left the table (:meth:`left_the_table`).
    leaving: list[str] = field(default_factory=list)

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

    # --- sessions and turns --------------------------------------------------------------

    def sign_in(self, user: User, over: ConsoleSession | None) -> Key:
        """``user`` signed in on a screen whose session is ``over`` (None: none). A supervisor
        over a dealer's session takes a turn on it (ending any turn already on it); anyone else
        starts a session of their own, ending the one the screen had."""
        now = self.clock()
        self.counters.signed_in += 1
        self.failures.pop(user.name, None)
        if over is not None and self.sessions.get(over.ident) is not over:
            over = None  # ended meanwhile (idle, or pushed out): nothing to sign in over
        if over is not None and over.turn is not None:
            self._end_turn(over)
        if over is not None and user.role == "supervisor" and over.user.role == "dealer":
            turn = SupervisorTurn(secrets.token_urlsafe(32), secrets.token_urlsafe(32), user, now, over)
            over.turn, over.last_tap = turn, now
            over.turns += 1
            self.turns[turn.ident] = turn
            self.counters.turns_started += 1
            return Key("turn", over, turn, turn.csrf)
        if over is not None:
            self._remove(over)
        while len(self.sessions) >= MAX_SESSIONS:
            self._remove(min(self.sessions.values(), key=lambda s: s.last_tap))
        session = ConsoleSession(secrets.token_urlsafe(32), secrets.token_urlsafe(32), user, now)
        self.sessions[session.ident] = session
        return Key("own", session, csrf=session.csrf)

    def look_up(self, ident: str | None) -> Key:
        """What the cookie ``ident`` opens now; idle sessions and turns past their time are
        ended here (nothing else runs on a timer)."""
        if not ident:
            return NOBODY
        turn = self.turns.get(ident)
        if turn is not None:
            session = self._live(turn.session.ident)  # may end the turn (its time is up)
            if session is None:
                return NOBODY
            if session.turn is turn:
                return Key("turn", session, turn, turn.csrf)
        ended = self.ended.get(ident)
        if ended is not None:
            session = self._live(ended.session)
            if session is None:
                return NOBODY
            if session.turn is not None:
                return Key("covered", session)  # another turn has begun on the screen since
            return Key("ended", session, csrf=ended.csrf)
        session = self._live(ident)
        if session is None:
            return NOBODY
        if session.turn is not None:
            return Key("covered", session)
        return Key("own", session, csrf=session.csrf)

    def tapped(self, session: ConsoleSession) -> None:
        session.last_tap = self.clock()

    def decided(self, turn: SupervisorTurn) -> None:
        """A change of the supervisor's that the table applied: their turn ends with it (unless
        it has ended meanwhile)."""
        if turn.session.turn is turn:
            self._end_turn(turn.session)

    def sign_out(self, key: Key) -> str:
        """Ends the supervisor's turn when ``key`` is one, else the session; says which."""
        if key.standing == "turn" and key.turn is not None:
            self.decided(key.turn)
            return "supervisor"
        if key.standing == "own" and key.session is not None:
            self._remove(key.session)
            return "session"
        return "nothing"

    # --- inside ---------------------------------------------------------------------------

    def _live(self, ident: str) -> ConsoleSession | None:
        """The session ``ident`` if it is still live: an idle one is ended, and a turn on it
        past its time ends (the screen is the dealer's again)."""
        session = self.sessions.get(ident)
        if session is None:
            return None
        now = self.clock()
        if now - session.last_tap > self.idle_s:
            self._remove(session)
            self.counters.idle_signed_out += 1
            return None
        if session.turn is not None and now - session.turn.since > min(SUPERVISOR_TURN_S, self.idle_s):
            self._end_turn(session)
        return session

    def _end_turn(self, session: ConsoleSession) -> None:
        """The turn on ``session`` ends: its cookie is remembered for a while, leading back to
        the dealer's session (never acting as the dealer)."""
        turn = session.turn
        if turn is None:
            return
        now = self.clock()
        session.turn = None
        session.turns += 1
        self.turns.pop(turn.ident, None)
        self.ended[turn.ident] = EndedTurn(turn.csrf, session.ident, now)
        while self.ended and (len(self.ended) > MAX_ENDED_TURNS
                              or now - next(iter(self.ended.values())).ended > self.idle_s):
            self.ended.popitem(last=False)

    def _remove(self, session: ConsoleSession) -> None:
        """The session is gone, and any turn on it (their ended turns lead nowhere from now)."""
        self.sessions.pop(session.ident, None)
        if session.turn is not None:
            self.turns.pop(session.turn.ident, None)
            session.turn = None
        if session.user.role == "dealer":
            self.leaving.append(session.user.name)

    def sweep(self) -> None:
        """End every session idle for longer than ``idle_s`` now, not only when its screen
        next asks (a dealer who walked away is signed out on time)."""
        for ident in list(self.sessions):
            self._live(ident)

    def left_the_table(self) -> list[str]:
        """The dealers signed out since the last call who have no session left."""
        gone, self.leaving = self.leaving, []
        present = {s.user.name for s in self.sessions.values()}
        return [name for name in dict.fromkeys(gone) if name not in present]
