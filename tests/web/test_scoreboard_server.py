"""The scoreboard HTTP server over real sockets: page, snapshot, event stream, stop and restart."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from station.roads.scoreboard import Scoreboard
from station.web import Limit, ScoreboardServer, Snapshot, TableInfo

OpenStream = Callable[..., Any]

TABLE = TableInfo("Table 7", variant="midi", limits=(Limit("Banker / Player", 1000, 500000),), currency="$", decimals=2)


def get(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.headers["Content-Type"], response.read()


def test_serves_the_page_and_its_files_from_the_package(server: ScoreboardServer) -> None:
    status, ctype, body = get(server.url)
    assert status == 200 and ctype.startswith("text/html")
    assert b'src="/scoreboard.js"' in body and b'href="/scoreboard.css"' in body
    assert b"http" not in body.replace(b"http-equiv", b"")  # nothing from a CDN
    for name, kind in (("scoreboard.js", "text/javascript"), ("scoreboard.css", "text/css")):
        status, ctype, body = get(server.url + name)
        assert status == 200 and ctype.startswith(kind) and len(body) > 1000
    with pytest.raises(urllib.error.HTTPError) as err:
        get(server.url + "../../etc/passwd")
    assert err.value.code == 404


def test_binds_to_loopback_by_default() -> None:
    with ScoreboardServer(port=0) as srv:
        assert srv.url.startswith("http://127.0.0.1:")


def test_snapshot_route_gives_the_latest_publish(server: ScoreboardServer) -> None:
    assert get(server.url + "snapshot")[2] == b"null"
    board = Scoreboard("BPPB")
    server.publish(Snapshot(TABLE, "betting", board.roads()))
    data = json.loads(get(server.url + "snapshot")[2])
    assert data["state"] == "betting"
    assert data["table"]["limits"] == [{"name": "Banker / Player", "minimum": 1000, "maximum": 500000}]
    assert [c["result"] for c in data["roads"]["big_road"]] == ["B", "P", "P", "B"]
    assert server.current() == data


def test_a_new_stream_gets_the_current_snapshot_at_once_then_every_publish(
    server: ScoreboardServer, open_stream: OpenStream
) -> None:
    board = Scoreboard("BPT")
    server.publish(Snapshot(TABLE, "dealing", board.roads()))
    stream = open_stream(server.url)
    assert stream.response.headers["Content-Type"] == "text/event-stream"
    assert stream.next().retry == 1000  # browsers retry after 1 s when the station restarts
    first = stream.next()
    assert first.event == "snapshot" and first.json()["state"] == "dealing"
    board.add("B")
    seq = server.publish(Snapshot(TABLE, "betting", board.roads()))
    second = stream.next()
    assert second.id == str(seq)
    assert second.json()["roads"]["stats"]["rounds"] == 4


def test_every_open_page_gets_each_publish(server: ScoreboardServer, open_stream: OpenStream) -> None:
    streams = [open_stream(server.url) for _ in range(3)]
    for stream in streams:
        assert stream.next().retry is not None
    server.publish(Snapshot(TABLE, "shuffling", Scoreboard().roads()))
    assert [s.next().json()["state"] for s in streams] == ["shuffling"] * 3
    assert server.open_streams == 3


def test_publish_freezes_the_snapshot_at_call_time(server: ScoreboardServer) -> None:
    board = Scoreboard("BB")
    server.publish(Snapshot(TABLE, "betting", board.roads()))
    board.add("P")  # the live board moves on; what was published must not
    current = server.current()
    assert current is not None and current["roads"]["stats"]["rounds"] == 2


def test_keepalive_comments_while_idle(open_stream: OpenStream) -> None:
    with ScoreboardServer(port=0, keepalive=0.05) as srv:
        srv.publish(Snapshot(TABLE, "betting"))
        stream = open_stream(srv.url)
        stream.next()  # retry
        stream.next()  # the snapshot
        # Nothing more is published: the stream carries comment lines instead of falling silent.
        raw = [stream.response.readline() for _ in range(4)]
        assert raw == [b": keepalive\n", b"\n", b": keepalive\n", b"\n"]
        srv.publish(Snapshot(TABLE, "dealing"))
        assert stream.next().json()["state"] == "dealing"


def test_stop_closes_streams_and_a_restart_on_the_same_port_serves_again(open_stream: OpenStream) -> None:
    srv = ScoreboardServer(port=0).start()
    port = int(srv.url.rsplit(":", 1)[1].strip("/"))
    srv.publish(Snapshot(TABLE, "betting"))
    stream = open_stream(srv.url)
    stream.next()
    stream.next()
    srv.stop()
    assert srv.open_streams == 0
    with pytest.raises(EOFError):
        stream.next()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()

    again = ScoreboardServer(port=port).start()
    try:
        again.publish(Snapshot(TABLE, "shoe end"))
        stream = open_stream(again.url)
        stream.next()
        assert stream.next().json()["state"] == "shoe end"
    finally:
        again.stop()


def test_start_twice_is_refused(server: ScoreboardServer) -> None:
    with pytest.raises(RuntimeError):
        server.start()
