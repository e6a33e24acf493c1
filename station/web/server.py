"""The live web scoreboard: a small HTTP server with Server-Sent Events.

Why the standard library: the page needs four fixed files and one event stream to a handful of
screens on the table PC itself. ``http.server.ThreadingHTTPServer`` gives each connection its
own thread, which is all an event stream needs; a web framework would add a dependency and an
event loop for nothing.

Why Server-Sent Events: the browser's ``EventSource`` reconnects by itself after the station
restarts, and the stream is one-way (station to screen), which is exactly the job. Every event
carries the whole snapshot, so a new or reconnected page is complete with its first event.

Routes: ``/`` the page, ``/scoreboard.css`` and ``/scoreboard.js`` its files, ``/events`` the
event stream, ``/snapshot`` the current snapshot as JSON (``null`` before the first publish).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from station.web.snapshot import Snapshot

log = logging.getLogger(__name__)

STATIC_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/scoreboard.css": ("scoreboard.css", "text/css; charset=utf-8"),
    "/scoreboard.js": ("scoreboard.js", "text/javascript; charset=utf-8"),
}


def _load_static() -> dict[str, bytes]:
    folder = resources.files("station.web") / "static"
    return {name: (folder / name).read_bytes() for name, _ in set(STATIC_FILES.values())}


class _Hub:
    """The current snapshot and a version counter that stream threads wait on."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.version = 0
        self.data: str | None = None
        self.stopping = False
        self.streams = 0

    def publish(self, data: str) -> int:
        with self.changed:
            self.version += 1
            self.data = data
            self.changed.notify_all()
            return self.version


class _ScoreboardHandler(BaseHTTPRequestHandler):
    server: _ScoreboardHTTPServer
    disable_nagle_algorithm = True  # an event is one small write: send it now, not in 40 ms
    server_version = "station-scoreboard"

    def do_GET(self) -> None:  # noqa: N802 (the http.server naming)
        path = self.path.split("?", 1)[0]
        if path == "/events":
            self._stream()
        elif path == "/snapshot":
            with self.server.hub.changed:
                data = self.server.hub.data
            self._send(HTTPStatus.OK, "application/json", (data or "null").encode())
        elif path in STATIC_FILES:
            name, content_type = STATIC_FILES[path]
            self._send(HTTPStatus.OK, content_type, self.server.static[name])
        else:
            self._send(HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", b"not found\n")

    def _send(self, status: HTTPStatus, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _stream(self) -> None:
        hub = self.server.hub
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.close_connection = True
        with hub.changed:
            hub.streams += 1
        seen = 0
        try:
            self.wfile.write(f"retry: {self.server.retry_ms}\n\n".encode())
            while True:
                with hub.changed:
                    if not hub.stopping and hub.version == seen:
                        hub.changed.wait(timeout=self.server.keepalive)
                    if hub.stopping:
                        return
                    version, data = hub.version, hub.data
                if version != seen and data is not None:
                    self.wfile.write(f"id: {version}\nevent: snapshot\ndata: {data}\n\n".encode())
                    seen = version
                else:
                    # A comment line keeps proxies and idle-connection timers from closing us.
                    self.wfile.write(b": keepalive\n\n")
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            log.debug("scoreboard page disconnected", extra={"client": self.client_address})
        finally:
            with hub.changed:
                hub.streams -= 1
                hub.changed.notify_all()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the http.server signature)
        log.debug("scoreboard http: " + format, *args)


class _ScoreboardHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], hub: _Hub, static: dict[str, bytes],
                 keepalive: float, retry_ms: int) -> None:
        self.hub = hub
        self.static = static
        self.keepalive = keepalive
        self.retry_ms = retry_ms
        super().__init__(address, _ScoreboardHandler)


class ScoreboardServer:
    """Serves the scoreboard page and pushes every published snapshot to every open page.

    ``port=0`` picks a free port (see :attr:`url`). ``publish`` can be called before ``start``;
    the latest snapshot is what a page gets first when it connects.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, keepalive: float = 15.0,
                 retry_ms: int = 1000) -> None:
        self.host = host
        self.port = port
        self.keepalive = keepalive
        self.retry_ms = retry_ms
        self._hub = _Hub()
        self._static = _load_static()
        self._httpd: _ScoreboardHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the scoreboard server is not running")
        host, port = self._httpd.server_address[:2]
        return f"http://{host.decode() if isinstance(host, bytes) else host}:{port}/"

    @property
    def running(self) -> bool:
        return self._httpd is not None

    def start(self) -> ScoreboardServer:
        if self._httpd is not None:
            raise RuntimeError("the scoreboard server is already running")
        with self._hub.changed:
            self._hub.stopping = False
        self._httpd = _ScoreboardHTTPServer(
            (self.host, self.port), self._hub, self._static, self.keepalive, self.retry_ms
        )
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1},
            name="scoreboard-http", daemon=True,
        )
        self._thread.start()
        log.info("scoreboard serving at %s", self.url)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Close every event stream and the listening socket; pages will try to reconnect."""
        httpd, thread = self._httpd, self._thread
        if httpd is None:
            return
        with self._hub.changed:
            self._hub.stopping = True
            self._hub.changed.notify_all()
            self._hub.changed.wait_for(lambda: self._hub.streams == 0, timeout=timeout)
        httpd.shutdown()
        httpd.server_close()
        if thread is not None:
            thread.join(timeout)
        self._httpd = None
        self._thread = None

    def publish(self, snapshot: Snapshot | Mapping[str, Any]) -> int:
        """Send ``snapshot`` to every open page now; returns its sequence number.

        The snapshot is turned into JSON here, in the caller's thread, so the caller may go on
        changing its scoreboard afterwards without changing what was published.
        """
        payload = snapshot.to_dict() if isinstance(snapshot, Snapshot) else dict(snapshot)
        return self._hub.publish(json.dumps(payload, separators=(",", ":")))

    def current(self) -> dict[str, Any] | None:
        """The latest published snapshot as the pages receive it."""
        with self._hub.changed:
            data = self._hub.data
        return json.loads(data) if data is not None else None

    @property
    def open_streams(self) -> int:
        with self._hub.changed:
            return self._hub.streams

    def __enter__(self) -> ScoreboardServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
