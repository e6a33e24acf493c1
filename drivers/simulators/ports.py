"""The device end of a simulated serial line: a pseudo-terminal, or a TCP socket.

:class:`PtyPort` publishes its pty under a stable symlink (like a udev
``/dev/serial/by-id/`` link). Unplugging closes the pty master, so the host's open
slave gets EIO/hang-up exactly as with a USB-serial adapter pulled out, and removes the
symlink; replugging creates a fresh pty and points the symlink at it, so the host's
reconnection by path finds the device again.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import tempfile
import threading
import tty


class PortClosed(OSError):
    """The simulated cable is unplugged."""


class PtyPort:
    def __init__(self, name: str = "device", directory: str | None = None) -> None:
        self._own_dir = directory is None
        self.directory = directory or tempfile.mkdtemp(prefix="station-sim-")
        self.path = os.path.join(self.directory, name)
        self._master: int | None = None
        self._slave: int | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return self.path

    @property
    def plugged(self) -> bool:
        return self._master is not None

    @property
    def pty_path(self) -> str | None:
        """The /dev/pts/N the symlink currently points to."""
        return os.ttyname(self._slave) if self._slave is not None else None

    def plug(self) -> None:
        with self._lock:
            if self._master is not None:
                return
            master, slave = os.openpty()
            # Raw mode at once: a pty starts in cooked mode with echo, which would bounce
            # the device's own frames back to it before the host has configured the port.
            tty.setraw(slave)
            os.set_blocking(master, False)
            # The device keeps its own slave descriptor open so that the master never sees
            # EIO while the host closes and reopens the port.
            self._master, self._slave = master, slave
            tmp = self.path + ".new"
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(os.ttyname(slave), tmp)
            os.replace(tmp, self.path)

    def unplug(self) -> None:
        with self._lock:
            if os.path.lexists(self.path):
                os.unlink(self.path)
            master, slave = self._master, self._slave
            self._master = self._slave = None
        for fd in (master, slave):
            if fd is not None:
                os.close(fd)

    def close(self) -> None:
        self.unplug()
        if self._own_dir:
            with contextlib.suppress(OSError):
                os.rmdir(self.directory)

    def write(self, data: bytes) -> None:
        """Write all of ``data``; bytes nobody reads are dropped when the pty buffer is full."""
        view = memoryview(data)
        while view:
            master = self._master
            if master is None:
                raise PortClosed("unplugged")
            try:
                n = os.write(master, view)
            except BlockingIOError:
                return  # like a UART with nobody listening: the bytes are lost
            except OSError as exc:
                raise PortClosed(str(exc)) from exc
            view = view[n:]

    def read(self, timeout: float) -> bytes:
        master = self._master
        if master is None:
            raise PortClosed("unplugged")
        try:
            ready, _, _ = select.select([master], [], [], timeout)
            if not ready:
                return b""
            return os.read(master, 4096)
        except BlockingIOError:
            return b""
        except (OSError, ValueError) as exc:
            raise PortClosed(str(exc)) from exc


class TcpPort:
    """The device listening on 127.0.0.1; the host connects with ``socket://host:port``.

    One host connection at a time (a new one replaces the old). Unplugging closes the
    listener and the connection; replugging listens again on the same port.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self._listener: socket.socket | None = None
        self._conn: socket.socket | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"socket://{self.host}:{self.port}"

    @property
    def plugged(self) -> bool:
        return self._listener is not None

    def plug(self) -> None:
        with self._lock:
            if self._listener is not None:
                return
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((self.host, self.port))
            listener.listen(1)
            self.port = listener.getsockname()[1]
            self._listener = listener

    def unplug(self) -> None:
        with self._lock:
            for sock in (self._conn, self._listener):
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
                    sock.close()
            self._conn = self._listener = None

    def close(self) -> None:
        self.unplug()

    def write(self, data: bytes) -> None:
        conn = self._conn
        if conn is None:
            if self._listener is None:
                raise PortClosed("unplugged")
            return  # plugged but no host connected: bytes are lost, as on an idle line
        try:
            conn.sendall(data)
        except OSError:
            self._drop_connection(conn)

    def read(self, timeout: float) -> bytes:
        listener, conn = self._listener, self._conn
        if listener is None:
            raise PortClosed("unplugged")
        watch = [s for s in (listener, conn) if s is not None]
        try:
            ready, _, _ = select.select(watch, [], [], timeout)
        except (OSError, ValueError):
            return b""
        if listener in ready:
            try:
                new, _ = listener.accept()
            except OSError:
                return b""
            new.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._conn is not None:
                self._drop_connection(self._conn)
            self._conn = new
            return b""
        if conn is not None and conn in ready:
            try:
                data = conn.recv(4096)
            except OSError:
                data = b""
            if not data:
                self._drop_connection(conn)
            return data
        return b""

    def _drop_connection(self, conn: socket.socket) -> None:
        if self._conn is conn:
            self._conn = None
        with contextlib.suppress(OSError):
            conn.close()
