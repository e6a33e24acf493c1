"""A flood of bad HTTP requests, sent as a scanner sends them: each at its time, none waited for.

Used by ``bench/console_load.py`` to stand for a scanner on the casino's network. The flood
runs on the table PC's own CPUs in the bench (there is no second machine), so every microsecond
it spends is taken from the table and counted against the console. It is therefore written
on bare non-blocking sockets and one ``selectors`` loop, about a tenth of an HTTP client
library's cost per attempt (aiohttp's client: about 290 µs per attempt here), so that what the
bench measures is the console's part, not the generator's.

Each attempt binds its source address, starts a non-blocking connect, sends its request once
connected and reads the answer to its end (every answer of the console closes its connection).
An attempt not connected within ``connect_timeout`` (the SYN dropped by a shut-out) counts as
``unanswered``; a reset as ``reset``; otherwise the answer's status code.
"""

from __future__ import annotations

import collections
import errno
import selectors
import socket
import time
from dataclasses import dataclass, field

#: What the flood asks: changes without a session, a malformed body, a form post, a request
#: from another site, an unknown path, a view without a session.
KINDS = [
    ("POST", "/api/command", b'{"command": "bet", "args": {}}', "application/json", ""),
    ("POST", "/api/command", b"{not json", "application/json", ""),
    ("POST", "/api/command", b"command=bet", "application/x-www-form-urlencoded", ""),
    ("POST", "/api/command", b'{"command": "bet"}', "application/json", "http://evil.example"),
    ("GET", "/wp-login.php", b"", "", ""),
    ("GET", "/api/view", b"", "", ""),
]
#: After the last request's time, how long the answers still awaited are waited for.
ANSWER_TIMEOUT_S = 30.0


def request_bytes(host: str, index: int) -> bytes:
    """The ``index``-th request of the flood: one of :data:`KINDS`, and every 200th a wrong
    PIN for a name nobody has (a sign-in's whole cost)."""
    if index % 200 == 0:
        method, path, body, content_type, origin = ("POST", "/api/sign-in", b'{"name": "x%d", "pin": "0000"}' % index,
                                                    "application/json", "")
    else:
        method, path, body, content_type, origin = KINDS[index % len(KINDS)]
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: close", "User-Agent: flood"]
    if body:
        lines += [f"Content-Type: {content_type}", f"Content-Length: {len(body)}"]
    if origin:
        lines.append(f"Origin: {origin}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@dataclass
class _Attempt:
    request: bytes
    connected: bool = False
    answer: bytearray = field(default_factory=bytearray)


def send(host: str, port: int, count: int, rate: float, sources: list[str],
         connect_timeout: float = 1.0) -> dict[str, int]:
    """Send ``count`` requests to ``host:port`` at ``rate`` a second, from ``sources`` in turn;
    how each ended (status code, ``unanswered``, ``reset`` or an errno name), counted."""
    selector = selectors.DefaultSelector()
    answers: collections.Counter[str] = collections.Counter()
    attempts: dict[socket.socket, _Attempt] = {}
    connecting: collections.deque[tuple[float, socket.socket]] = collections.deque()
    started = time.monotonic()
    sent = 0

    def end(sock: socket.socket, how: str) -> None:
        answers[how] += 1
        del attempts[sock]
        selector.unregister(sock)
        sock.close()

    while sent < count or attempts:
        now = time.monotonic()
        while sent < count and sent / rate <= now - started:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.bind((sources[sent % len(sources)], 0))
            code = sock.connect_ex((host, port))
            if code not in (0, errno.EINPROGRESS):
                answers[errno.errorcode.get(code, str(code))] += 1
                sock.close()
            else:
                attempts[sock] = _Attempt(request_bytes(host, sent))
                connecting.append((now + connect_timeout, sock))
                selector.register(sock, selectors.EVENT_WRITE)
            sent += 1
        while connecting and connecting[0][0] <= now:
            _, sock = connecting.popleft()
            attempt = attempts.get(sock)
            if attempt is not None and not attempt.connected:
                end(sock, "unanswered")
        wake = [started + sent / rate] if sent < count else []
        if connecting:
            wake.append(connecting[0][0])
        for key, _ in selector.select(min(0.05, max(0.0, min(wake) - now)) if wake else 0.05):
            sock = key.fileobj  # type: ignore[assignment]
            attempt = attempts[sock]
            if not attempt.connected:
                error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if error:
                    end(sock, "reset" if error == errno.ECONNRESET else errno.errorcode.get(error, str(error)))
                    continue
                attempt.connected = True
                try:
                    sock.send(attempt.request)  # small enough for one send on a fresh socket
                except OSError:
                    end(sock, "reset")
                    continue
                selector.modify(sock, selectors.EVENT_READ)
                continue
            try:
                data = sock.recv(65536)
            except OSError:
                end(sock, "reset")
                continue
            if data:
                attempt.answer += data
                continue
            status = bytes(attempt.answer[9:12]) if attempt.answer.startswith(b"HTTP/1.") else b""
            end(sock, status.decode() if status.isdigit() else "reset")
        if now - started > count / rate + ANSWER_TIMEOUT_S:  # the last answers are overdue
            for sock in list(attempts):
                end(sock, "unanswered")
    selector.close()
    return dict(answers)


__all__ = ["request_bytes", "send"]
