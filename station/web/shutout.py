"""Addresses that keep sending what a server refuses are kept out for a while, unread.

A scanner or a broken script on the casino's network can send the dealer's console hundreds
of bad requests a second. Answering each one (an HTTP parse, a route, a refusal) costs the
table PC's CPU, which the table needs. A person's screen is refused now and then (a session
that timed out, a wrong PIN); it is never refused dozens of times in a few seconds. So an
address refused ``after`` times within ``window_s`` is shut out for ``shut_s``: the kernel
drops its packets (:mod:`station.web.source_filter`, told by ``on_change``), those of its
connections already accepted are closed, and where the kernel cannot drop them its new
connections are closed as they are accepted, before a byte of them is read. Each shut-out is
logged once by the server that keeps it and counted.

The book is bounded (``MAX_ADDRESSES``): a flood from many addresses cannot grow it without
limit; the addresses heard from longest ago are forgotten first.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass

#: Addresses whose recent refusals are remembered at once.
MAX_ADDRESSES = 4096


@dataclass(frozen=True)
class ShutoutRules:
    """How many refusals within how long shut an address out, and for how long."""

    after: int = 20
    window_s: float = 10.0
    shut_s: float = 30.0


class Shutout:
    """The refusals of each address and the addresses shut out (on the server's loop only)."""

    def __init__(self, rules: ShutoutRules | None = None, clock: Callable[[], float] = time.monotonic,
                 on_change: Callable[[frozenset[str]], None] | None = None) -> None:
        """``on_change`` gets the addresses shut out whenever that set changes: at a shut-out,
        and at an expiry seen by :meth:`is_shut` or :meth:`expire`."""
        self.rules = rules or ShutoutRules()
        self._clock = clock
        self.on_change = on_change
        self._refusals: OrderedDict[str, deque[float]] = OrderedDict()
        self._until: dict[str, float] = {}
        self.shut_outs = 0  # addresses shut out so far
        self.closed = 0  # connections closed unread because their address was shut out

    def refused(self, address: str) -> bool:
        """Note one refusal of ``address``; True when it is the one that shuts it out."""
        now = self._clock()
        times = self._refusals.pop(address, None) or deque()
        times.append(now)
        while times and now - times[0] > self.rules.window_s:
            times.popleft()
        self._refusals[address] = times  # the newest at the end
        while len(self._refusals) > MAX_ADDRESSES:
            self._refusals.popitem(last=False)
        if len(times) < self.rules.after or self.is_shut(address):
            return False
        self._until[address] = now + self.rules.shut_s
        self.shut_outs += 1
        times.clear()
        self._changed()
        return True

    def is_shut(self, address: str | None) -> bool:
        """Whether connections from ``address`` are closed unread now."""
        if address is None:
            return False
        until = self._until.get(address)
        if until is None:
            return False
        if self._clock() >= until:
            del self._until[address]
            self._changed()
            return False
        return True

    def expire(self) -> float | None:
        """Let in every address whose time is up; the seconds until the next one's is (None
        when no address is shut out). The server calls it by a timer: once the kernel drops an
        address's packets, no connection of it comes to ask :meth:`is_shut`."""
        now = self._clock()
        ended = [address for address, until in self._until.items() if until <= now]
        for address in ended:
            del self._until[address]
        if ended:
            self._changed()
        return min(self._until.values()) - now if self._until else None

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(frozenset(self._until))

    def shut(self) -> dict[str, float]:
        """The addresses shut out now, with the seconds each has left."""
        now = self._clock()
        return {address: round(until - now, 1) for address, until in self._until.items() if until > now}


def peer_address(peer: object) -> str | None:
    """The host part of a transport's ``peername`` (IPv4 or IPv6), or None for a Unix socket."""
    if isinstance(peer, tuple) and peer and isinstance(peer[0], str):
        return peer[0]
    return None


__all__ = ["MAX_ADDRESSES", "Shutout", "ShutoutRules", "peer_address"]
