"""The sd_notify protocol: READY=1, STATUS=, WATCHDOG=1, STOPPING=1.

The protocol is one datagram to the AF_UNIX socket named in ``$NOTIFY_SOCKET`` (an ``@`` prefix
means the abstract namespace). It is small enough that a dependency (sdnotify, systemd-python
with its C library) buys nothing. The watchdog is pinged from the core loop itself, never from
a side thread, so a wedged loop is restarted by systemd; and only when ``$WATCHDOG_PID`` is
unset or names this process, as sd_watchdog_enabled(3) specifies.
"""

from __future__ import annotations

import os
import socket


class Notifier:
    """Sends sd_notify messages; a no-op when not started by systemd with Type=notify."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self._address = env.get("NOTIFY_SOCKET", "")
        self._watchdog_usec = self._watchdog_interval(env)
        self._sock: socket.socket | None = None

    @staticmethod
    def _watchdog_interval(env: dict[str, str] | os._Environ[str]) -> int:
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        if not usec.isdigit() or int(usec) <= 0:
            return 0
        if pid and pid != str(os.getpid()):
            return 0
        return int(usec)

    @property
    def enabled(self) -> bool:
        return bool(self._address)

    @property
    def watchdog_interval_s(self) -> float:
        """How often to ping: half the configured watchdog timeout; 0 when there is none."""
        return self._watchdog_usec / 2_000_000

    def notify(self, *fields: str) -> bool:
        if not self._address:
            return False
        address = "\0" + self._address[1:] if self._address.startswith("@") else self._address
        if self._sock is None:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        try:
            self._sock.sendto("\n".join(fields).encode(), address)
        except OSError:
            return False
        return True

    def ready(self, status: str) -> bool:
        return self.notify("READY=1", f"STATUS={status}")

    def status(self, status: str) -> bool:
        return self.notify(f"STATUS={status}")

    def watchdog(self) -> bool:
        return self._watchdog_usec > 0 and self.notify("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
