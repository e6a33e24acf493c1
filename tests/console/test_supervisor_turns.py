"""A supervisor's turn on a dealer's screen, as pure bookkeeping on a clock the test turns
(:class:`SessionBook`): the turn has a cookie and a token of its own, the dealer's cannot act
while it lasts, it ends with the first applied change, a sign-out or its time, and its
cookie then leads back to the dealer's session without ever acting as the dealer."""

from __future__ import annotations

from station.console.sessions import MAX_ENDED_TURNS, MAX_SESSIONS, SUPERVISOR_TURN_S, Key, SessionBook, User

DEALER, OTHER = User("dee", "dealer", ""), User("dan", "dealer", "")
SUE, SAM = User("sue", "supervisor", ""), User("sam", "supervisor", "")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def signed_in(book: SessionBook, user: User, over: Key | None = None) -> Key:
    return book.sign_in(user, over.session if over is not None else None)


def test_a_turn_has_a_cookie_and_a_token_of_its_own_and_the_dealers_cannot_act_during_it() -> None:
    book = SessionBook(600, Clock())
    dealer = signed_in(book, DEALER)
    turn = signed_in(book, SUE, dealer)
    assert dealer.session is not None and turn.turn is not None
    assert turn.standing == "turn" and turn.session is dealer.session, "the turn is on the dealer's screen"
    assert turn.turn.ident not in (dealer.session.ident, dealer.session.csrf)
    assert turn.csrf not in (dealer.session.ident, dealer.session.csrf)
    assert book.look_up(turn.turn.ident).acting is SUE
    covered = book.look_up(dealer.session.ident)
    assert covered.standing == "covered" and covered.acting is None and covered.csrf == "", \
        "the dealer's cookie acts as nobody while the turn lasts"
    described = turn.session.describe()
    assert described["supervisor_turn"] and described["acting"] == "sue" and described["name"] == "dee"
    assert described["screen"] == dealer.session.screen and described["turn"] == 1
    assert "csrf" not in described, "the description names no secret"


def test_the_first_applied_change_ends_the_turn_and_its_cookie_leads_back_but_never_acts() -> None:
    book = SessionBook(600, Clock())
    dealer = signed_in(book, DEALER)
    turn = signed_in(book, SUE, dealer)
    assert turn.turn is not None and dealer.session is not None
    book.decided(turn.turn)
    back = book.look_up(dealer.session.ident)
    assert back.standing == "own" and back.acting is DEALER and back.csrf == dealer.session.csrf
    ended = book.look_up(turn.turn.ident)
    assert ended.standing == "ended" and ended.session is dealer.session
    assert ended.acting is None, "an ended turn's cookie never acts as the dealer"
    assert ended.csrf == turn.csrf, "its own token, for a sign-out that comes too late"
    assert dealer.session.describe()["turn"] == 2 and not dealer.session.describe()["supervisor_turn"]
    book.decided(turn.turn)  # a second answer for the same turn changes nothing
    assert dealer.session.turns == 2


def test_a_turn_ends_at_its_time_limit_and_by_signing_out() -> None:
    clock = Clock()
    book = SessionBook(600, clock)
    dealer = signed_in(book, DEALER)
    turn = signed_in(book, SUE, dealer)
    assert turn.turn is not None and dealer.session is not None
    clock.now += SUPERVISOR_TURN_S - 1
    assert book.look_up(turn.turn.ident).standing == "turn"
    clock.now += 2
    assert book.look_up(turn.turn.ident).standing == "ended"
    assert book.look_up(dealer.session.ident).standing == "own"
    again = signed_in(book, SUE, dealer)
    assert book.sign_out(again) == "supervisor"
    assert again.turn is not None and book.look_up(again.turn.ident).standing == "ended"
    assert book.look_up(dealer.session.ident).standing == "own", "the dealer stays signed in"
    assert book.sign_out(book.look_up(again.turn.ident)) == "nothing", "an ended turn signs nobody out"
    assert book.look_up(dealer.session.ident).standing == "own"


def test_a_second_sign_in_over_a_turn_ends_it_and_the_first_turns_cookie_is_covered_then() -> None:
    book = SessionBook(600, Clock())
    dealer = signed_in(book, DEALER)
    first = signed_in(book, SUE, dealer)
    second = signed_in(book, SAM, first)  # over the turn: the screen's session is the dealer's
    assert first.turn is not None and second.turn is not None and second.session is dealer.session
    assert book.look_up(first.turn.ident).standing == "covered", "another turn is on the screen now"
    assert book.look_up(second.turn.ident).acting is SAM
    book.decided(second.turn)
    assert book.look_up(first.turn.ident).standing == "ended"


def test_a_supervisor_on_a_screen_of_their_own_keeps_a_session() -> None:
    book = SessionBook(600, Clock())
    own = signed_in(book, SUE)
    assert own.standing == "own" and own.turn is None and own.session is not None
    assert book.look_up(own.session.ident).acting is SUE
    over = signed_in(book, SAM, own)  # a supervisor over a supervisor's session: a session of their own
    assert over.standing == "own" and over.session is not own.session
    assert book.look_up(own.session.ident).standing == "none"


def test_a_new_dealer_over_a_turn_ends_the_screen_and_its_turn() -> None:
    book = SessionBook(600, Clock())
    dealer = signed_in(book, DEALER)
    turn = signed_in(book, SUE, dealer)
    other = signed_in(book, OTHER, turn)
    assert other.standing == "own" and other.session is not None and other.session is not dealer.session
    assert turn.turn is not None and dealer.session is not None
    assert book.look_up(turn.turn.ident).standing == "none"
    assert book.look_up(dealer.session.ident).standing == "none"
    assert book.turns == {}


def test_ended_turns_are_remembered_within_bounds() -> None:
    clock = Clock()
    book = SessionBook(600, clock)
    dealer = signed_in(book, DEALER)
    idents = []
    for _ in range(MAX_ENDED_TURNS + 20):
        turn = signed_in(book, SUE, dealer)
        assert turn.turn is not None
        idents.append(turn.turn.ident)
        book.decided(turn.turn)
        clock.now += 1
    assert len(book.ended) == MAX_ENDED_TURNS
    assert book.look_up(idents[0]).standing == "none" and book.look_up(idents[-1]).standing == "ended"
    clock.now += 599  # the dealer taps on: ended turns older than the idle limit go as the next one ends
    assert dealer.session is not None
    book.tapped(dealer.session)
    turn = signed_in(book, SUE, dealer)
    assert turn.turn is not None
    book.decided(turn.turn)
    assert len(book.ended) < MAX_ENDED_TURNS
    # Sessions pushed out by a flood of sign-ins take their turns with them.
    for _ in range(MAX_SESSIONS):
        signed_in(book, OTHER)
    assert book.look_up(turn.turn.ident).standing == "none" and book.turns == {}
