"""The shut-out book, by a clock the test moves: an address refused ``after`` times within
``window_s`` is shut out for ``shut_s``, then let in again; refusals spread thinner than the
window never shut anyone out; the book forgets the addresses heard from longest ago first."""

from __future__ import annotations

from station.web.shutout import MAX_ADDRESSES, Shutout, ShutoutRules, peer_address


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


RULES = ShutoutRules(after=5, window_s=10.0, shut_s=30.0)


def test_the_fifth_refusal_within_the_window_shuts_the_address_out_for_its_time() -> None:
    clock = Clock()
    book = Shutout(RULES, clock)
    assert [book.refused("10.0.0.9") for _ in range(4)] == [False] * 4
    assert not book.is_shut("10.0.0.9")
    assert book.refused("10.0.0.9") is True
    assert book.is_shut("10.0.0.9") and not book.is_shut("10.0.0.8")
    assert book.refused("10.0.0.9") is False, "an address already shut out is not shut out twice"
    assert book.shut_outs == 1 and book.shut() == {"10.0.0.9": 30.0}
    clock.now += 29.9
    assert book.is_shut("10.0.0.9")
    clock.now += 0.1
    assert not book.is_shut("10.0.0.9") and book.shut() == {}


def test_refusals_thinner_than_the_window_never_shut_an_address_out() -> None:
    clock = Clock()
    book = Shutout(RULES, clock)
    for _ in range(50):
        assert book.refused("10.0.0.9") is False
        clock.now += 2.6  # four within any ten seconds
    assert book.shut_outs == 0


def test_the_refusals_after_a_shut_out_count_afresh() -> None:
    clock = Clock()
    book = Shutout(RULES, clock)
    for _ in range(5):
        book.refused("10.0.0.9")
    clock.now += 31
    assert [book.refused("10.0.0.9") for _ in range(5)] == [False, False, False, False, True]
    assert book.shut_outs == 2


def test_the_book_is_bounded_and_forgets_the_oldest_first() -> None:
    clock = Clock()
    book = Shutout(RULES, clock)
    for _ in range(4):
        book.refused("10.0.0.1")
    for n in range(MAX_ADDRESSES):
        book.refused(f"10.1.{n // 256}.{n % 256}")
    assert book.refused("10.0.0.1") is False, "its four refusals were forgotten"
    assert len(book._refusals) == MAX_ADDRESSES


def test_the_peer_is_the_host_of_an_inet_address_and_none_for_a_unix_socket() -> None:
    assert peer_address(("127.0.0.2", 40000)) == "127.0.0.2"
    assert peer_address(("::1", 40000, 0, 0)) == "::1"
    assert peer_address("") is None and peer_address(None) is None


def test_a_listener_hears_every_change_of_the_set_and_expire_ends_what_is_due() -> None:
    clock = Clock()
    heard: list[frozenset[str]] = []
    book = Shutout(RULES, clock, on_change=heard.append)
    assert book.expire() is None, "nobody shut out: nothing to wait for"
    for _ in range(5):
        book.refused("10.0.0.9")
    clock.now += 10
    for _ in range(5):
        book.refused("10.0.0.8")
    assert heard == [frozenset({"10.0.0.9"}), frozenset({"10.0.0.9", "10.0.0.8"})]
    assert book.expire() == 20.0, "the first ends in 20 s"
    clock.now += 20
    assert book.expire() == 10.0 and heard[-1] == frozenset({"10.0.0.8"})
    clock.now += 10
    assert book.expire() is None and heard[-1] == frozenset()
    assert len(heard) == 4, "a change is told once"
