"""The kernel drops the packets of shut-out addresses: watched from the connecting side.

A real listening socket with the real program attached (``SO_ATTACH_FILTER``): a connection
from an address it names is never answered (its SYN is dropped, so ``connect`` waits out its
timeout), one from any other address is accepted at once; the program follows every change
of the set, IPv4, IPv6 and an IPv4 peer of a dual-stack socket alike, and takes a full set of
addresses (the console's own use of it: tests/console/test_console_floods.py).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sys
from collections.abc import Iterator

import pytest

from station.web.source_filter import MAX_FILTERED, SourceFilter, drop_program

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="socket filters are Linux's")

#: How long an attempt from a dropped address is given before it counts as unanswered. The
#: kernel answers an allowed one on loopback in well under a millisecond; a dropped one is
#: never answered, however long the wait.
UNANSWERED_S = 0.5


def _connects(family: int, source: str, target: tuple[str, int], timeout: float = UNANSWERED_S) -> bool:
    with socket.socket(family, socket.SOCK_STREAM) as client:
        client.bind((source, 0))
        client.settimeout(timeout)
        try:
            client.connect(target)
        except TimeoutError:
            return False
        return True


@contextlib.contextmanager
def _listener(family: int, host: str, *, v6only: bool | None = None) -> Iterator[socket.socket]:
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        if v6only is not None:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, int(v6only))
        sock.bind((host, 0))
        sock.listen(64)
        yield sock


def test_an_ipv4_address_in_the_set_is_never_answered_and_the_others_are() -> None:
    with _listener(socket.AF_INET, "127.0.0.1") as sock:
        target = sock.getsockname()
        door = SourceFilter(sock)
        door.drop_from({"127.0.0.2"})
        assert door.working and door.dropping == {"127.0.0.2"}
        assert not _connects(socket.AF_INET, "127.0.0.2", target), "its SYN is dropped"
        assert _connects(socket.AF_INET, "127.0.0.3", target, timeout=10)
        assert _connects(socket.AF_INET, "127.0.0.1", target, timeout=10)
        door.drop_from({"127.0.0.3"})
        assert _connects(socket.AF_INET, "127.0.0.2", target, timeout=10), "let in again"
        assert not _connects(socket.AF_INET, "127.0.0.3", target)
        door.drop_from(set())
        assert door.dropping == frozenset() and door.attachments == 3
        assert _connects(socket.AF_INET, "127.0.0.3", target, timeout=10), "the program is off"


def test_an_ipv6_address_is_matched_by_all_of_its_words() -> None:
    if not socket.has_ipv6:
        pytest.skip("this Python has no IPv6")
    try:
        listening = _listener(socket.AF_INET6, "::1")
        sock = listening.__enter__()
    except OSError as exc:
        pytest.skip(f"no IPv6 loopback here: {exc}")
    try:
        target = sock.getsockname()[:2]
        door = SourceFilter(sock)
        door.drop_from({"::2", "0:0:1::1", "1::1", "127.0.0.1"})  # differ from ::1 in one word each
        assert _connects(socket.AF_INET6, "::1", target, timeout=10)
        door.drop_from({"::1"})
        assert not _connects(socket.AF_INET6, "::1", target)
    finally:
        listening.__exit__(None, None, None)


def test_an_ipv4_peer_of_a_dual_stack_socket_is_matched_by_its_ipv4_header() -> None:
    try:
        listening = _listener(socket.AF_INET6, "::", v6only=False)
        sock = listening.__enter__()
    except OSError as exc:
        pytest.skip(f"no dual-stack socket here: {exc}")
    try:
        port = sock.getsockname()[1]
        door = SourceFilter(sock)
        door.drop_from({"::ffff:127.0.0.2"})  # how such a peer's address is named to the server
        assert not _connects(socket.AF_INET, "127.0.0.2", ("127.0.0.1", port))
        assert _connects(socket.AF_INET, "127.0.0.3", ("127.0.0.1", port), timeout=10)
    finally:
        listening.__exit__(None, None, None)


def test_a_full_set_fits_the_kernel_and_still_names_its_last_address() -> None:
    addresses = [f"2001:db8::{n:x}" for n in range(MAX_FILTERED - 1)] + ["127.0.0.2"]
    assert len(drop_program(addresses)) <= 4096, "the kernel's limit on a program"
    with _listener(socket.AF_INET, "127.0.0.1") as sock:
        target = sock.getsockname()
        door = SourceFilter(sock)
        door.drop_from([*addresses, "10.9.9.9"])  # one more than fits: left to the server
        assert door.working and len(door.dropping) == MAX_FILTERED
        assert not _connects(socket.AF_INET, "127.0.0.2", target)
        assert _connects(socket.AF_INET, "127.0.0.3", target, timeout=10)


def test_what_is_not_an_ip_address_is_left_out_of_the_program() -> None:
    assert drop_program(["not an address", "127.0.0.2"]) == drop_program(["127.0.0.2"])


class _Refusing:
    """Stands in for a kernel without socket filters: every ``setsockopt`` fails as such a
    kernel's does (no real socket here can be made to refuse ``SO_ATTACH_FILTER``)."""

    def setsockopt(self, level: int, optname: int, value: int | bytes, /) -> None:
        raise OSError(92, "Protocol not available")


def test_a_kernel_that_cannot_filter_says_so_once_and_the_server_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    door = SourceFilter(_Refusing())
    with caplog.at_level(logging.WARNING, logger="station.web.source_filter"):
        door.drop_from({"127.0.0.2"})
        door.drop_from({"127.0.0.2", "127.0.0.3"})
    assert not door.working and door.dropping == frozenset()
    assert [r.getMessage() for r in caplog.records] == [
        "the kernel cannot drop shut-out addresses ([Errno 92] Protocol not available): "
        "their connections are closed as accepted"]
