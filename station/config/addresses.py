"""Where a page listens: one address of the PC, never every network it is on."""

from __future__ import annotations


def one_address(value: str) -> str:
    """A page's listening address: loopback or one address of the PC, never the wildcard
    (it would serve the page on every network the PC is on). Shared by ``[web] bind`` and
    the pit page's ``[pit] bind``; raises ValueError saying why not."""
    import ipaddress

    if value == "localhost":
        return value
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        raise ValueError(f"{value!r} is not an IP address (use 127.0.0.1, or an address of this PC)") from None
    if address.is_unspecified:
        raise ValueError(
            f"{value} would serve the page on every network of the PC: name the one address the "
            "pit screens reach (docs/web-scoreboard.md)"
        )
    if address.is_multicast:
        raise ValueError(f"{value} is a multicast address")
    return value
