"""The console tells the station when a dealer leaves the table: their last session there
ended, by signing out or after a while without a tap (swept on time, not only when the
screen next asks). A supervisor leaving, or a dealer still signed in on another screen, is not
a dealer leaving."""

from __future__ import annotations

from station.console.sessions import SessionBook, User

from .inprocess import Clock

DEE, SUE = User("dee", "dealer", ""), User("sue", "supervisor", "")


def test_a_dealer_leaves_when_their_last_session_ends() -> None:
    book = SessionBook(600.0, Clock())
    first, second = book.sign_in(DEE, None), book.sign_in(DEE, None)
    book.sign_in(SUE, None)
    assert book.sign_out(first) == "session"
    assert book.left_the_table() == [], "still signed in on the other screen"
    assert book.sign_out(second) == "session"
    assert book.left_the_table() == ["dee"]
    assert book.left_the_table() == [], "told once"


def test_an_idle_dealer_is_swept_out_on_time() -> None:
    clock = Clock()
    book = SessionBook(600.0, clock)
    book.sign_in(DEE, None)
    book.sign_in(SUE, None)
    clock.now += 599
    book.sweep()
    assert book.left_the_table() == [] and len(book.sessions) == 2
    clock.now += 2
    book.sweep()
    assert book.left_the_table() == ["dee"] and book.sessions == {}
    assert book.counters.idle_signed_out == 2
