"""The processes and links of the station's children: a forked child that answers like a
``subprocess.Popen``, the framed socket a child is fed over, and the launch of a child with a
socket pair.

These are the parts :mod:`station.child_supervisor` works with, kept apart so that the
supervisor is only the policy (start, hello, feed, restart, stop). This module imports nothing
of the station but :mod:`station.child_process` (the wire).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from station.child_process import HEADER, frame

#: Largest frame the station takes from a child.
MAX_FRAME = 1024 * 1024


class ChildProcess(Protocol):
    """What the supervisor asks of a child's process (``subprocess.Popen`` answers it, and so
    does :class:`ForkedChild`)."""

    @property
    def pid(self) -> int: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


class ForkedChild:
    """A child made by ``os.fork``, answering what :class:`ChildProcess` asks the way
    ``subprocess.Popen`` does (one thread may wait while another polls)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._lock = threading.Lock()
        try:  # readable once the child has exited (Linux 5.3 and later): no polling loop
            self._pidfd: int | None = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self._pidfd = None

    def poll(self) -> int | None:
        with self._lock:
            if self.returncode is None:
                try:
                    done, status = os.waitpid(self.pid, os.WNOHANG)
                except ChildProcessError:  # reaped by someone else: its status is lost
                    done, status = self.pid, 0
                if done:
                    self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(f"child {self.pid}", timeout or 0.0)
            pause = 0.05 if left is None else min(left, 0.05)
            try:
                if self._pidfd is None:
                    raise OSError
                select.select([self._pidfd], [], [], left)
            except (OSError, ValueError):  # no pidfd, or it was released meanwhile
                time.sleep(pause)
        return code

    def kill(self) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def release(self) -> None:
        """Close the pidfd once the child is done with (a restart makes a new one)."""
        with self._lock:
            pidfd, self._pidfd = self._pidfd, None
        if pidfd is not None:
            os.close(pidfd)


def wait_or_kill(process: ChildProcess, seconds: float) -> bool:
    """Wait up to ``seconds`` for ``process`` to leave, else kill it; True when it left."""
    try:
        process.wait(seconds)
        return True
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
        return False


class Link(Protocol):
    """The station's end of the way a child is fed and heard. ``fileno`` is readable when a
    message or the end has come; ``receive`` then gives the messages complete so far, (kind,
    data) each, and raises (``EOFError``, ``OSError``, ``ValueError``) at the end. ``send``
    raises ``OSError`` when the child cannot take it (``TimeoutError``: it stopped reading);
    ``send_quit`` tries briefly and never raises; ``shutdown`` ends the child's feed without
    closing the descriptor another thread may be reading."""

    def fileno(self) -> int: ...

    def receive(self) -> list[tuple[bytes, bytes]]: ...

    def send(self, kind: bytes, data: bytes) -> None: ...

    def send_quit(self, kind: bytes, data: bytes) -> None: ...

    def shutdown(self) -> None: ...

    def close(self) -> None: ...


class FramedSocket:
    """A :class:`Link` over the station's end of a Unix socket pair, in the frames of
    :mod:`station.child_process`. ``send_timeout`` (None: wait as long as it takes) bounds a
    send to a child that stopped reading."""

    def __init__(self, sock: socket.socket, *, send_timeout: float | None = None, max_frame: int = MAX_FRAME) -> None:
        self.sock = sock
        self.max_frame = max_frame
        self._buffer = bytearray()
        sock.settimeout(send_timeout)

    def fileno(self) -> int:
        return self.sock.fileno()

    def receive(self) -> list[tuple[bytes, bytes]]:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("the child closed its socket")
        buffer = self._buffer
        buffer += chunk
        frames = []
        while len(buffer) >= HEADER.size:
            kind, size = HEADER.unpack_from(buffer)
            if size > self.max_frame:
                raise ValueError(f"a frame of {size} bytes, more than a child may send")
            if len(buffer) < HEADER.size + size:
                break
            frames.append((kind, bytes(buffer[HEADER.size:HEADER.size + size])))
            del buffer[:HEADER.size + size]
        return frames

    def send(self, kind: bytes, data: bytes) -> None:
        self.sock.sendall(frame(kind, data))

    def send_quit(self, kind: bytes, data: bytes) -> None:
        with contextlib.suppress(OSError):
            self.sock.settimeout(0.2)
            self.sock.sendall(frame(kind, data))

    def shutdown(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.sock.close()


L = TypeVar("L", bound=Link)


@dataclass
class Launched(Generic[L]):
    """One child, just launched: its process, the station's end of its link, and what its
    log line ``started`` says of how it was launched (the outbox: ``method``)."""

    process: ChildProcess
    link: L
    fields: dict[str, Any] = field(default_factory=dict)
    #: The station gave up on it (it stopped reading): ended by the supervisor, not on its own.
    retired: bool = field(default=False, init=False)


def spawn_with_socket(command: Callable[[int], Sequence[str]], *, greeting: bytes = b"",
                      send_timeout: float | None = None, max_frame: int = MAX_FRAME) -> Launched[FramedSocket]:
    """Run ``command(fd)`` (``fd``: the child's end of a new socket pair) in a process group
    of its own, so a terminal's Ctrl-C reaches only the station, which stops it in order.
    ``greeting`` (whole frames) is sent before the child's hello: what it must know first and
    must not have on its command line (the console's users)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        process = subprocess.Popen(list(command(theirs.fileno())), pass_fds=(theirs.fileno(),),
                                   stdin=subprocess.DEVNULL, process_group=0)
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    link = FramedSocket(ours, send_timeout=send_timeout, max_frame=max_frame)
    if greeting:
        with contextlib.suppress(OSError):  # it has ended already: waiting for its hello says so
            ours.sendall(greeting)
    return Launched(process, link)


def exit_status(process: ChildProcess) -> int | None:
    """The exit status of a child whose link has ended (it is ending), or None if it is not."""
    try:
        return process.wait(5)
    except subprocess.TimeoutExpired:
        return None
