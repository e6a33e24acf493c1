"""The pit page's server: the web scoreboard's, with a stream per view (docs/pit.md).

The connection caps, deadlines, security headers and the dropping of stalled viewers are the
web scoreboard's (:class:`station.web.server.ScoreboardApp`). What differs is the event
stream: the scoreboard sends every viewer the same whole picture; the pit sends each viewer
its view (:mod:`station.pit.views`): the floor, one pit, or every table, whole when the
stream begins and then only what changed. ``/snapshot`` is the whole board as JSON, for
tools and people with ``curl``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from aiohttp import web

from station.pit.views import PitView, ViewKey, Views
from station.web.guard import Limits
from station.web.server import SAFE_HEADERS, ScoreboardApp


class PitApp(ScoreboardApp):
    """Serves ``files`` and each view of ``views``; ``snapshot()`` gives ``/snapshot``'s body."""

    def __init__(self, host: str, port: int, limits: Limits, *, views: Views,
                 snapshot: Callable[[], dict[str, Any]], files: Mapping[str, tuple[str, str]]) -> None:
        super().__init__(host, port, limits, files=files, package="station.pit")
        self.views = views
        self.snapshot = snapshot
        self._wakes: dict[ViewKey, asyncio.Event] = {}

    def changed(self, views: list[PitView]) -> None:
        """Wake the streams of ``views`` (each has a new delta)."""
        for view in views:
            wake = self._wakes.pop(view.key, None)
            if wake is not None:
                wake.set()

    async def _wait(self, key: ViewKey, timeout: float) -> None:
        wake = self._wakes.setdefault(key, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), timeout)

    async def _snapshot(self, request: web.Request) -> web.Response:
        body = json.dumps(self.snapshot(), separators=(",", ":")).encode()
        return web.Response(body=body, headers={**SAFE_HEADERS, "Content-Type": "application/json"})

    async def _events(self, request: web.Request) -> web.StreamResponse:
        try:
            key = ViewKey.parse(dict(request.query))
        except ValueError as exc:
            return web.Response(status=400, text=f"{exc}\n", headers=SAFE_HEADERS)
        limits = self.limits
        response = self._stream_response(request)
        transport = request.transport
        view = self.views.subscribe(key)
        self.hub.streams += 1
        try:
            await response.prepare(request)
            if not await self._write(response, transport, b"retry: %d\n\n%s" % (limits.retry_ms, view.whole())):
                return response
            seen = view.version
            while not self.hub.stopping:
                if view.version == seen:
                    await self._wait(key, limits.keepalive)
                    if self.hub.stopping:
                        break
                # keepalive: keeps proxies and idle-connection timers from closing us
                data = view.since(seen) or b": keepalive\n\n"
                seen = view.version
                if not await self._write(response, transport, data):
                    break
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.hub.streams -= 1
            self.views.unsubscribe(view)
        return response

    async def stop(self) -> None:
        """Wake every stream so that it sees the server stopping, then stop as the scoreboard does."""
        self.hub.stop()
        for wake in self._wakes.values():
            wake.set()
        await super().stop()
