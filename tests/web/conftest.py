"""Shared helpers for the web scoreboard tests: a minimal Server-Sent Events reader."""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest

from station.web.server import ScoreboardServer


@dataclass
class Event:
    id: str | None
    event: str | None
    data: str
    retry: int | None = None

    def json(self) -> Any:
        return json.loads(self.data)


class SseStream:
    def __init__(self, url: str, timeout: float = 5.0) -> None:
        parts = urlsplit(url)
        assert parts.hostname is not None, url
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        self.conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        self.comments = 0

    def next(self) -> Event:
        """The next event that has data or a retry field; comment lines are counted and skipped."""
        fields: dict[str, str] = {}
        data: list[str] = []
        while True:
            raw = self.response.readline()
            if not raw:
                raise EOFError("event stream closed")
            line = raw.decode().rstrip("\n")
            if line == "":
                if data or "retry" in fields:
                    return Event(fields.get("id"), fields.get("event"), "\n".join(data),
                                 int(fields["retry"]) if "retry" in fields else None)
                continue
            if line.startswith(":"):
                self.comments += 1
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            else:
                fields[name] = value

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def open_stream() -> Iterator[Callable[..., SseStream]]:
    """Open an event stream on a server URL; every stream opened is closed after the test."""
    streams: list[SseStream] = []

    def _open(url: str, timeout: float = 5.0) -> SseStream:
        stream = SseStream(url, timeout)
        streams.append(stream)
        return stream

    yield _open
    for stream in streams:
        stream.close()


@pytest.fixture
def server() -> Iterator[ScoreboardServer]:
    """The scoreboard's server on a free local port, stopped after the test."""
    srv = ScoreboardServer("127.0.0.1", 0).start()
    try:
        yield srv
    finally:
        srv.stop()
