"""The picture protocol (docs/pit.md, version 2): a whole picture, then only what changed.

A viewer that applies a view's whole picture and then every delta after it holds exactly the
view's whole picture at the end, whatever the messages were (a property over random floors:
tables coming, changing pit, going offline, alarms raised and acknowledged, the hour rolling);
a viewer that fell behind further than the view keeps deltas is sent a whole picture; a pit's
viewer is never sent another pit's table; a picture that changes nothing of a view is not
sent to it. The messages are written out (statuses, states and alerts as the feed carries
them): the protocol is about what changes on a tile, whichever message changed it."""

from __future__ import annotations

import json
from typing import Any
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from station.pit.board import PitBoard
from station.pit.views import RING, PitView, ViewKey, Views

from .picture_model import ViewModel, events
from .test_board import HOUR, PREFIX, iso, status

VIENNA = ZoneInfo("Europe/Vienna")
KEYS = (ViewKey("floor"), ViewKey("all"), ViewKey("pit", "A"), ViewKey("pit", "B"), ViewKey("pit", "C"))
HEAD = {"title": "Floor", "timezone": "Europe/Vienna", "page_seconds": 20}


def _state(table: str, state: str, round_no: int) -> dict[str, Any]:
    return {"v": 1, "kind": "state", "table": table, "journal_id": "1" * 16, "seq": round_no, "state": state,
            "shoe": 1, "round_id": f"1-{round_no}", "game": "baccarat", "time": iso(HOUR + round_no)}


def _alert(table: str, ident: int, acknowledged: bool) -> dict[str, Any]:
    kind = "alert_acknowledged" if acknowledged else "integrity_alert"
    return {"v": 1, "kind": "event", "table": table, "journal_id": "1" * 16, "type": kind, "ident": ident,
            "code": "shoe_unshuffled", "severity": "alarm", "detail": "ordered", "time": iso(HOUR + ident)}


def _take(board: PitBoard, message: dict[str, Any]) -> str | None:
    return board.take(f"{PREFIX}/{message['table']}/{message['kind']}", json.dumps(message).encode())


MESSAGES = st.one_of(
    st.builds(lambda t, pit, n, online: status(f"BAC-{t}", "online" if online else "offline",
                                               "" if online else "connection lost", pit=pit, number=n),
              st.integers(1, 9), st.sampled_from(["A", "B", "C", ""]), st.integers(0, 4), st.booleans()),
    st.builds(lambda t, state, n: _state(f"BAC-{t}", state, n), st.integers(1, 9),
              st.sampled_from(["betting", "dealing", "paused", "shuffling"]), st.integers(1, 30)),
    st.builds(lambda t, ident, ack: _alert(f"BAC-{t}", ident, ack), st.integers(1, 9), st.integers(1, 3),
              st.booleans()),
)
STEPS = st.lists(st.one_of(MESSAGES, st.sampled_from(["picture", "hour", "join"])), max_size=60)


class _Floor:
    """A board and its views, with a viewer model per view fed every event the view makes."""

    def __init__(self) -> None:
        self.board = PitBoard(PREFIX, VIENNA, now=HOUR)
        self.views = Views(self.board, lambda: dict(HEAD))
        self.changed: set[str] | None = set()
        self.viewers: list[tuple[PitView, ViewModel]] = []

    def join(self, key: ViewKey) -> None:
        view = self.views.subscribe(key)
        model = ViewModel()
        [(event, data)] = events(view.whole())
        assert model.apply(event, data)
        self.viewers.append((view, model))

    def picture(self) -> list[PitView]:
        changed, self.changed = self.changed, set()
        return self.views.refresh(changed)

    def deliver(self, seen: dict[int, int]) -> None:
        for index, (view, model) in enumerate(self.viewers):
            for event, data in events(view.since(seen.get(index, model.version or 0))):
                assert model.apply(event, data)
            seen[index] = view.version


@settings(max_examples=150, deadline=None)
@given(STEPS)
def test_a_whole_picture_and_every_delta_after_it_equal_the_whole_picture_of_the_end(steps: list[Any]) -> None:
    floor = _Floor()
    for key in KEYS:
        floor.join(key)
    seen: dict[int, int] = {}
    joined = 0
    for step in steps:
        if step == "picture":
            floor.picture()
            floor.deliver(seen)
        elif step == "hour":
            floor.board.tick(HOUR + 3600)
            floor.changed = None
        elif step == "join":  # a viewer that comes mid-way starts from the whole picture of then
            floor.join(KEYS[joined % len(KEYS)])
            joined += 1
        else:
            table = _take(floor.board, step)
            if table is not None and floor.changed is not None:
                floor.changed.add(table)
    floor.picture()
    floor.deliver(seen)
    truth = Views(floor.board, lambda: dict(HEAD))  # each view made anew from the board as it is now
    for view, model in floor.viewers:
        fresh = ViewModel()
        [(event, data)] = events(truth.subscribe(view.key).whole())
        fresh.apply(event, data)
        assert {**model.picture(), "version": None} == {**fresh.picture(), "version": None}, view.key
        assert model.version == view.version
        if view.key.kind == "pit":
            assert all(t["pit"] == view.key.pit for t in model.tables.values())
        assert model.gaps == 0


def test_a_viewer_further_behind_than_the_deltas_kept_gets_a_whole_picture() -> None:
    floor = _Floor()
    floor.join(ViewKey("pit", "A"))
    [(view, model)] = floor.viewers
    start = model.version
    assert start is not None
    for n in range(RING + 5):
        _take(floor.board, _state("BAC-1", "betting" if n % 2 else "dealing", n + 1))
        floor.changed = {"BAC-1"}
        if n == 0:
            _take(floor.board, status("BAC-1", pit="A", number=1))
        floor.picture()
    caught_up = events(view.since(start))
    assert [event for event, _ in caught_up] == ["whole"]
    assert model.apply(*caught_up[0]) and model.version == view.version
    # One picture behind: the one delta it missed, not the whole.
    before = view.version
    _take(floor.board, _state("BAC-1", "paused", 999))
    floor.changed = {"BAC-1"}
    floor.picture()
    [(event, data)] = events(view.since(before))
    assert event == "delta" and json.loads(data)["base"] == before and model.apply(event, data)


def test_a_delta_for_another_version_is_a_gap_for_the_viewer() -> None:
    model = ViewModel()
    assert model.apply("whole", json.dumps({"v": 2, "view": "pit", "pit": "A", "version": 5, "head": {},
                                            "tables": []}))
    assert not model.apply("delta", json.dumps({"v": 2, "view": "pit", "pit": "A", "base": 7, "version": 8}))
    assert model.gaps == 1 and model.version == 5


def test_a_pit_viewer_is_sent_only_its_pits_tables_and_nothing_when_they_do_not_change() -> None:
    floor = _Floor()
    for table, pit in (("BAC-1", "A"), ("BAC-2", "B")):
        _take(floor.board, status(table, pit=pit, number=1))
    floor.join(ViewKey("pit", "A"))
    floor.join(ViewKey("floor"))
    [(pit_a, model), (floor_view, _)] = floor.viewers
    assert set(model.tables) == {"BAC-1"}
    version = pit_a.version
    _take(floor.board, _state("BAC-2", "dealing", 3))
    floor.changed = {"BAC-2"}
    assert floor.picture() == []  # a state is not on the floor's view, and pit B is not pit A
    _take(floor.board, _alert("BAC-2", 1, acknowledged=False))
    floor.changed = {"BAC-2"}
    assert floor.picture() == [floor_view]  # pit B has a table in alarm: not pit A's business
    assert pit_a.since(version) == b""
    # The table moves to pit A: it comes into A's view, with the order.
    _take(floor.board, status("BAC-2", pit="A", number=2))
    floor.changed = {"BAC-2"}
    assert pit_a in floor.picture()
    [(event, data)] = events(pit_a.since(version))
    delta = json.loads(data)
    assert event == "delta" and [t["table"] for t in delta["tables"]] == ["BAC-2"]
    assert delta["order"] == ["BAC-1", "BAC-2"] and delta["head"]["counts"]["tables"] == 2


def test_every_file_of_the_page_is_served_and_every_module_it_imports_is_one_of_them() -> None:
    import re
    from pathlib import Path

    from station.pit.service import PIT_FILES

    static = Path(__file__).resolve().parents[2] / "station" / "pit" / "static"
    served = {name for name, _type in PIT_FILES.values()}
    assert served == {path.name for path in static.iterdir() if path.suffix in (".html", ".css", ".js")}
    for script in static.glob("*.js"):
        for imported in re.findall(r'from "\./([\w.-]+)"', script.read_text()):
            assert f"/{imported}" in PIT_FILES, f"{script.name} imports {imported}, which is not served"
