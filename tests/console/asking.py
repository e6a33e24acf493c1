"""Asking the console from a source address of the test's choosing (another host of the
loopback net, as another machine on the casino's network would be)."""

from __future__ import annotations

import http.client

#: How long an attempt is given to be accepted before it counts as unanswered: an accepted one
#: on loopback takes well under a millisecond; one whose SYN the kernel drops never is.
UNANSWERED_S = 0.5


def ask_from(source: str, port: int, path: str) -> int | None:
    """GET ``path`` from ``source``; the status, or None when nothing answers: the connection
    is never accepted (a shut-out address: the kernel drops its SYN) or is closed unanswered."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=UNANSWERED_S, source_address=(source, 0))
    try:
        connection.connect()
    except TimeoutError:
        return None
    try:
        assert connection.sock is not None
        connection.sock.settimeout(30)  # accepted: its answer may wait for a busy CPU
        connection.request("GET", path)
        return connection.getresponse().status
    except (ConnectionError, http.client.RemoteDisconnected):
        return None
    finally:
        connection.close()
