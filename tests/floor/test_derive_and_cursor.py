"""What the feed says about a journal, without a broker: deterministic, numbered without a gap,
the same after a restart from any cursor, valid against the schemas; the cursor file; the
[floor] and [metrics] settings.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from station.config.errors import ConfigError
from station.core.options import CoreOptions
from station.core.sessions import generate
from station.event_codec import event_to_dict
from station.events import (
    AccessDenied,
    Actor,
    AlertAcknowledged,
    BetPlaced,
    BuyIn,
    DropCounted,
    IntegrityAlert,
    LimitsChanged,
    PauseRequested,
    RatingClosed,
    RatingOpened,
    ResumeRequested,
    TrayCounted,
)
from station.floor.cursor import cursor_path, load_cursor, store_cursor
from station.floor.derive import FeedDeriver, FeedMessage, FeedPosition, derive_all
from station.floor.settings import slug
from station.journal import Journal, JournalReader, JournalRecord
from station.journal.anchors import journal_id
from station.service.config import parse_config

from .helpers import Received, check_schemas, floor_config, station, station_env

OPTIONS = CoreOptions(decks=8)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> list[JournalRecord]:
    """A journal of 120 rounds with refused bets, irregularities, decisions and device faults,
    a pause, a resume, a denied command, an integrity alert and its acknowledgement, plus a
    record that is not an input."""
    path = tmp_path_factory.mktemp("journal") / "session.sqlite3"
    events = generate(seed=2026, rounds=120)
    supervisor = Actor("supervisor", "sam")
    betting = next(i for i, e in enumerate(events) if isinstance(e, BetPlaced) and i > 30)  # pausable there
    events[betting + 1:betting + 1] = [PauseRequested(supervisor, "count the float"), ResumeRequested(supervisor),
                                       AccessDenied(Actor("dealer", "dana"), "decide"),
                                       IntegrityAlert("advantage_situation", "alert", "Tie: the players' edge is +3.1%",
                                                      key="advantage:tie:1", shoe=1),
                                       AlertAcknowledged(1, supervisor, "watched the table"),
                                       LimitsChanged({"min_bet": 1000, "max_bet": 400_000}, supervisor, "evening"),
                                       TrayCounted("opener", ((2500, 40),), "dana", supervisor),
                                       TrayCounted("fill", ((10_000, 5),), "rob", supervisor, "F-1"),
                                       DropCounted(20_000, supervisor),
                                       TrayCounted("closer", ((2500, 40), (10_000, 5)), "dana", supervisor),
                                       RatingOpened("1", "a", "C-1", supervisor, "2026-12-06T20:00:00.000000Z"),
                                       BuyIn("1", "a", 50_000, supervisor)]
    closing = next(i for i, e in enumerate(events) if isinstance(e, BetPlaced) and i > betting + 200)
    events.insert(closing, RatingClosed("1", "a", supervisor, "2026-12-06T21:00:00.000000Z"))
    with Journal(path) as journal:
        journal.append("Software", {"version": "test", "journal_schema": 1})
        for event in events:
            journal.append(event.kind, event_to_dict(event))
    with JournalReader(path) as reader:
        return list(reader.records())


def _derive(records: list[JournalRecord]) -> list[FeedMessage]:
    return list(derive_all(records, OPTIONS, table="BAC-01", journal_id=journal_id(records[0].hash),
                           devices=("shoe",)))


def test_the_feed_is_deterministic_and_numbered_without_a_gap(session: list[JournalRecord]) -> None:
    first, second = _derive(session), _derive(session)
    assert [m.payload for m in first] == [m.payload for m in second]
    kinds = {m.payload.get("type", "round") for m in first}
    assert {"round", "software", "shoe_start", "shoe_end", "irregularity", "decision", "refusal",
            "device_fault", "device_recovered", "pause", "resume", "access_denied", "integrity_alert",
            "alert_acknowledged", "limits", "limits_applied", "tray", "tray_reconciled", "rating_started", "rating",
            "buy_in"} <= kinds
    for kind in ("round", "event"):
        mine = [m for m in first if m.kind == kind]
        assert [m.n for m in mine] == list(range(1, len(mine) + 1))
        assert [m.payload["prev"] for m in mine] == [0] + [m.seq for m in mine[:-1]]
    seqs = [m.seq for m in first]
    assert seqs == sorted(seqs)
    rounds = [m.payload for m in first if m.kind == "round"]
    assert len(rounds) == 120 and {r["status"] for r in rounds} == {"settled", "voided"}
    decision = next(m.payload for m in first if m.payload.get("type") == "decision")
    assert decision["role"] == "supervisor" and decision["who"] == "sam"
    alert = next(m.payload for m in first if m.payload.get("type") == "integrity_alert")
    assert (alert["ident"], alert["code"], alert["severity"], alert["stopped"], alert["source"]) == (
        1, "advantage_situation", "alert", False, "monitor")
    acknowledged = next(m.payload for m in first if m.payload.get("type") == "alert_acknowledged")
    assert (acknowledged["ident"], acknowledged["who"], acknowledged["note"]) == (1, "sam", "watched the table")
    limits = next(m.payload for m in first if m.payload.get("type") == "limits")
    assert (limits["changed"], limits["who"], limits["reason"]) == (["max_bet"], "sam", "evening")
    applied = next(m for m in first if m.payload.get("type") == "limits_applied")
    played = [(m.seq, m.payload["limits"]["max_bet"]) for m in first if m.kind == "round"]
    assert {most for seq, most in played if seq < applied.seq} == {500_000}
    assert {most for seq, most in played if seq > applied.seq} == {400_000}
    refusal = next(m.payload for m in first if m.payload.get("type") == "refusal")
    assert refusal["input"] == "BetPlaced" and refusal["reason"]
    by_seq = {r.seq: r for r in session}
    assert all(m.payload["hash"] == by_seq[m.seq].hash and m.payload["time"] == by_seq[m.seq].time for m in first)


def test_every_message_and_the_state_match_the_schemas(session: list[JournalRecord]) -> None:
    messages = _derive(session)
    received = [Received(f"p/BAC-01/{m.kind}", m.payload, 0.0, False) for m in messages]
    deriver = FeedDeriver(OPTIONS, table="BAC-01", journal_id=journal_id(session[0].hash), devices=("shoe",))
    for record in session:
        deriver.derive(record)
        if record.seq % 97 == 0:
            received.append(Received("p/BAC-01/state", deriver.state(), 0.0, True))
    check_schemas(received)


@pytest.mark.parametrize("cursor", [1, 2, 57, 400, 1234])
def test_a_restart_from_any_cursor_derives_exactly_what_follows(session: list[JournalRecord], cursor: int) -> None:
    """What a restarted publisher does: replay up to its cursor without messages, then derive."""
    everything = _derive(session)
    ident = journal_id(session[0].hash)
    before = FeedDeriver(OPTIONS, table="BAC-01", journal_id=ident, devices=("shoe",))
    for record in session[:cursor]:
        before.derive(record)
    restarted = FeedDeriver(OPTIONS, table="BAC-01", journal_id=ident, devices=("shoe",), position=before.position)
    for record in session[:cursor]:
        restarted.skip(record)
    after = [m for record in session[cursor:] for m in restarted.derive(record)]
    assert [m.payload for m in after] == [m.payload for m in everything if m.seq > cursor]
    assert restarted.state() == before_state(session, ident)


def before_state(session: list[JournalRecord], ident: str) -> dict[str, Any]:
    deriver = FeedDeriver(OPTIONS, table="BAC-01", journal_id=ident, devices=("shoe",))
    for record in session:
        deriver.derive(record)
    return deriver.state()


def test_the_cursor_is_replaced_whole_and_refuses_another_journal(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    path = cursor_path(journal)
    assert path.name == "journal.sqlite3.floor-cursor"
    assert load_cursor(path, "aaaa") == FeedPosition()
    position = FeedPosition(42)
    position.counters["round"].n, position.counters["round"].prev = 3, 40
    store_cursor(path, "aaaa", position)
    assert load_cursor(path, "aaaa") == position
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind
    assert load_cursor(path, "bbbb", set_aside=False) == FeedPosition() and path.exists()
    assert load_cursor(path, "bbbb") == FeedPosition()  # another journal's: set aside, start over
    assert not path.exists() and path.with_name(path.name + ".unusable").exists()
    path.write_text("{not json")
    assert load_cursor(path, "aaaa") == FeedPosition()
    path.write_text(json.dumps({"journal_id": "aaaa", "seq": 5, "round": {"n": 1, "prev": 9},
                                "event": {"n": 0, "prev": 0}}))
    assert load_cursor(path, "aaaa") == FeedPosition()  # prev beyond seq: not a cursor this code wrote


@pytest.mark.parametrize(("floor", "key", "words"), [
    ({"enabled": True}, "floor.broker", "needed when floor.enabled is true"),
    ({"broker": "tcp://broker:1883"}, "floor.broker", "use mqtt://host[:port] or mqtts://host[:port]"),
    ({"broker": "mqtt://user:pw@broker"}, "floor.broker", "credentials go in username and password_file"),
    ({"broker": "mqtt://broker:70000"}, "floor.broker", "from 1 to 65535"),
    ({"table": "table 4"}, "floor.table", "letters, digits"),
    ({"topic_prefix": "casino/#"}, "floor.topic_prefix", "no wildcards"),
    ({"cert_file": "/etc/c.pem"}, "floor.key_file", "go together"),
    ({"window": 0}, "floor.window", "greater than or equal to 1"),
    ({"drain_s": 30}, "floor.drain_s", "less than or equal to 10"),
    ({"anchor_records": 0}, "floor.anchor_records", "greater than or equal to 1"),
    ({"colour": "red"}, "floor.colour", "unknown key"),
])
def test_floor_settings_are_checked_naming_the_key(floor: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"floor": floor}, Path("station.toml"))
    assert f"station.toml: {key}: " in str(caught.value) and words in str(caught.value), str(caught.value)


def test_the_defaults_keep_the_station_self_contained() -> None:
    config = parse_config({}, Path("station.toml"))
    assert not config.floor.enabled and not config.metrics.enabled
    assert config.metrics.host == "127.0.0.1"
    assert slug("Mini Baccarat 1 (simulated)") == "mini-baccarat-1-simulated"
    good = parse_config({"floor": {"enabled": True, "broker": "mqtts://floor.casino.lan", "table": "BAC-01"}},
                        Path("station.toml")).floor
    assert good.address() == ("floor.casino.lan", 8883) and good.tls


@pytest.mark.e2e
def test_an_anchor_key_in_the_journal_folder_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "anchor.key"
    key.write_text("0123456789abcdef0123456789abcdef")
    config = floor_config(tmp_path / "station.toml", "mqtt://127.0.0.1:1", extra=f'anchor_key_file = "{key}"')
    config.write_text(config.read_text().replace("enabled = true", "enabled = false"))
    demo = station("demo", "--rounds", "1", "--fast", "-c", str(config), "--journal", str(tmp_path / "j.sqlite3"),
                   env=station_env(tmp_path))
    assert demo.returncode == 78 and "floor.anchor_key_file" in demo.stderr and "journal's folder" in demo.stderr


@pytest.fixture(scope="module")
def checkpointed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same kind of session written by the core loop, which checkpoints it as it goes."""
    from station.core.loop import CoreLoop

    path = tmp_path_factory.mktemp("checkpointed") / "session.sqlite3"
    loop = CoreLoop(path, OPTIONS, checkpoint_every=150)
    for event in generate(seed=7, rounds=120):
        loop.post(event)
        loop.run_pending()
    loop.close()
    return path


@pytest.mark.parametrize("cursor", [1, 2, 333, 1111, -1])
def test_a_restart_from_a_checkpoint_publishes_what_a_start_from_the_first_record_would(checkpointed: Path,
                                                                                        cursor: int) -> None:
    """The outbox's restart (``resume_deriver``) reads only from the newest checkpoint at or
    before its cursor, and the messages after the cursor are the very ones a deriver that took
    every record from the first one gives."""
    from station.core.checkpoints import CHECKPOINT
    from station.floor.resume import resume_deriver

    with JournalReader(checkpointed) as reader:
        records = list(reader.records())
        cursor = records[cursor].seq if cursor < 0 else cursor
        ident = journal_id(records[0].hash)
        everything = _derive(records)
        before = FeedDeriver(OPTIONS, table="BAC-01", journal_id=ident, devices=("shoe",))
        for record in records[:cursor]:
            before.derive(record)
        restarted = resume_deriver(reader, OPTIONS, before.position, table="BAC-01", journal_id=ident,
                                   devices=("shoe",))
        after = [m for record in reader.records(cursor) for m in restarted.derive(record)]
    usable = [r.payload["at"] for r in records if r.kind == CHECKPOINT and r.payload["at"] <= cursor]
    assert [m.payload for m in after] == [m.payload for m in everything if m.seq > cursor]
    assert restarted.state() == before_state(records, ident)
    assert restarted.started_after == max(usable, default=0)  # it read nothing before that checkpoint
    assert any(r.kind == CHECKPOINT for r in records)


def test_a_cursor_written_before_the_significant_kind_counts_it_again_and_goes_on(checkpointed: Path,
                                                                                 tmp_path: Path) -> None:
    """A station upgraded to one that publishes ``significant`` finds a cursor with no number
    for it: the numbers of the records up to the cursor are counted (from the first record,
    not a checkpoint), and what follows is numbered as a derivation from the start numbers it;
    the rounds and events go on from their stored numbers."""
    from station.floor.cursor import cursor_path, load_cursor, store_cursor
    from station.floor.resume import resume_deriver

    with JournalReader(checkpointed) as reader:
        records = list(reader.records())
        ident = journal_id(records[0].hash)
        everything = _derive(records)
        cursor = records[len(records) // 2].seq
        before = FeedDeriver(OPTIONS, table="BAC-01", journal_id=ident, devices=("shoe",))
        for record in records[:cursor]:
            before.derive(record)
        assert before.position.counters["significant"].n > 0, "the session has significant events before the cursor"
        stored = cursor_path(tmp_path / "journal.sqlite3")
        old = before.position.copy()
        del old.counters["significant"]  # as the software before it wrote the cursor
        store_cursor(stored, ident, old, fsync=False)
        loaded = load_cursor(stored, ident)
        assert loaded.recount == ("significant",) and loaded.seq == cursor
        restarted = resume_deriver(reader, OPTIONS, loaded, table="BAC-01", journal_id=ident, devices=("shoe",))
        assert restarted.position.counters == before.position.counters
        after = [m for record in reader.records(cursor) for m in restarted.derive(record)]
    assert [m.payload for m in after] == [m.payload for m in everything if m.seq > cursor]
