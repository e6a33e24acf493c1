"""The significant-event log read from a real journal written by a real core loop: each code
from the journal's own records, in journal order, once; the floor feed's ``significant``
messages valid against their JSON Schemas; the catalogue, docs/events.md and the schemas
naming the same codes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from station.cards import FULL_DECK
from station.core.options import CoreOptions
from station.events import (
    AccessDenied,
    Actor,
    BetCorrected,
    DealerSignedIn,
    DeckCheck,
    DeviceBooted,
    DeviceFault,
    DeviceRecovered,
    DiskSpace,
    IntegrityAlert,
    JournalOutage,
    LidClosed,
    LidOpened,
    ShufflerState,
    ShufflerStatus,
    SignInRefused,
    StationStarted,
    StationStopped,
)
from station.floor.derive import derive_all
from station.journal import JournalReader
from station.significant.codes import CODES, FAMILIES
from station.significant.derive import SignificantDeriver
from station.significant.log import projected, read_log

from ..core_table import Table
from ..floor.helpers import schema_validators

ROOT = Path(__file__).resolve().parents[2]
SUE = Actor("supervisor", "sue")
T0 = "2026-12-01T20:00:00.000000Z"


def started(previous: str, **more: Any) -> StationStarted:
    return StationStarted("0.2.0", "a" * 64, "boot-1", previous, **more)


def full_set(missing: str = "") -> tuple[tuple[str, int], ...]:
    return tuple((c.code, 8 - (c.code == missing)) for c in FULL_DECK)


def a_journal(path: Path) -> Table:
    """A table whose journal holds one of (nearly) every significant event, in a known order."""
    table = Table(path, CoreOptions())
    table.loop.journal.append("Configuration", {"table": {"game": "baccarat", "variant": "mini",
                                                          "equipment": "manual", "decks": 8}})
    table.post(started("none"))
    table.post(DealerSignedIn("ana", Actor("dealer", "ana"), "console"))
    table.start_shoe()
    table.bet("1", "p1", "banker", 2000)
    table.act("no_more_bets").cards("2S 4H")
    table.post(LidOpened("shoe"), LidClosed("shoe"))
    table.cards("3D 4C").act("next_round")
    table.post(BetCorrected("1-1", "1", "p1", "banker", "1", "p1", "player", 2000, "chips on Player", SUE))
    table.post(DeviceFault("shoe", "no reply", "timeout"), DeviceFault("shoe", "no reply", "timeout"),
               DeviceRecovered("shoe"))
    table.post(ShufflerStatus("shuffler", ShufflerState.DOOR_OPEN), ShufflerStatus("shuffler", ShufflerState.IDLE))
    table.post(DeviceBooted("display", "power-up"))
    table.post(DeckCheck("shuffler", 8, full_set(missing="AS"), missing=("AS",)))
    table.post(IntegrityAlert("repeat_shoe", "alarm", "this shoe repeats shoe 3", "repeat:1", stop=False))
    table.post(JournalOutage("database or disk is full", T0, 4200))
    table.post(DiskSpace(True, 0, 500, "2026-12-01T20:00:01.000000Z"), DiskSpace(False, 900, 500, T0))
    table.post(SignInRefused("console", "wrong name or PIN", "ana", 3), AccessDenied(Actor("dealer", "ana"), "decide"))
    table.post(DealerSignedIn("ben", SUE, "control"))
    table.post(StationStopped("SIGTERM"))
    table.post(started("clean", previous_version="0.1.9", previous_configuration_sha256="b" * 64,
                       previous_boot_id="boot-1"))
    table.post(started("unclean", previous_version="0.2.0", previous_boot_id="boot-0"))
    table.post(started("unclean", previous_version="0.2.0", previous_boot_id="boot-1"))
    table.loop.close()
    return table


EXPECTED = [
    "configuration_opened", "start_new_journal", "dealer_change", "shoe_lid_opened", "shoe_lid_closed", "correction",
    "device_lost", "device_back", "shuffler_door_opened", "shuffler_door_closed", "device_rebooted",
    "deck_check_failed", "integrity_alarm", "journal_unwritable", "journal_writable", "disk_low", "disk_space_back",
    "access_denied", "access_denied", "dealer_change", "station_stopped", "start_after_clean_stop",
    "software_version_changed", "configuration_changed", "start_after_unclean_stop", "start_after_unclean_stop",
]


def test_each_code_once_in_journal_order_from_the_journal_alone(tmp_path: Path) -> None:
    table = a_journal(tmp_path / "journal.sqlite3")
    events = read_log(table.path, table.options)
    assert [e.code for e in events] == EXPECTED
    by_code = {e.code: e for e in events}
    assert by_code["device_lost"].device == "shoe" and by_code["device_lost"].data["reason"] == "no reply"
    assert by_code["journal_unwritable"].time == T0  # when it began, not when it could be journaled
    assert by_code["journal_writable"].data == {"waited_ms": 4200}
    assert by_code["deck_check_failed"].device == "shuffler"
    assert by_code["integrity_alarm"].device == "monitor" and by_code["integrity_alarm"].data["alert"] == "repeat_shoe"
    changes = [e for e in events if e.code == "dealer_change"]
    assert [(e.data["dealer"], e.data["relieved"], e.device) for e in changes] == [("ana", "", "console"),
                                                                                  ("ben", "ana", "control")]
    unclean = [e for e in events if e.code == "start_after_unclean_stop"]
    assert [e.data["power_loss"] for e in unclean] == [True, False]
    assert "power loss" in unclean[0].text and "killed or crashed" in unclean[1].text
    refused = next(e for e in events if e.code == "access_denied")
    assert (refused.device, refused.data["attempts"], refused.data["claimed"]) == ("console", 3, "ana")
    since = read_log(table.path, table.options, since=events[-3].time, codes=frozenset({"start_after_unclean_stop"}))
    assert [e.code for e in since] == ["start_after_unclean_stop"] * 2


def test_a_deriver_resumed_mid_journal_knows_which_devices_are_down(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite3", CoreOptions())
    table.post(DeviceFault("shoe", "no reply", "timeout"))
    resumed = SignificantDeriver.resumed(table.machine)
    table.post(DeviceFault("shoe", "no reply", "timeout"), DeviceRecovered("shoe"))
    table.loop.close()
    with JournalReader(table.path) as reader:
        steps = list(projected(reader.records(), table.options))
    later = [e.code for record, event, outputs in steps[1:] for e in resumed.take(record, event, outputs)]
    assert later == ["device_back"]  # faulted before it started: not lost a second time
    fresh = SignificantDeriver()
    assert [e.code for step in steps for e in fresh.take(*step)] == ["device_lost", "device_back"]


def test_the_feed_carries_every_event_valid_against_its_familys_schema(tmp_path: Path) -> None:
    table = a_journal(tmp_path / "journal.sqlite3")
    with JournalReader(table.path) as reader:
        messages = [m.payload for m in derive_all(reader.records(), table.options, table="T1",
                                                  journal_id="0123456789abcdef")]
    significant = [m for m in messages if m["kind"] == "significant"]
    assert [m["code"] for m in significant] == EXPECTED
    assert [m["n"] for m in significant] == list(range(1, len(EXPECTED) + 1))
    validator = schema_validators()["significant"]
    for message in significant:
        errors = list(validator.iter_errors(message))
        assert not errors, f"{message['code']}: {errors[0].message}: {message}"
    lid = next(m for m in significant if m["code"] == "shoe_lid_opened")
    assert lid["round_id"] == "1-1" and lid["device"] == "shoe" and lid["timezone"] == "UTC"
    wrong = {**lid, "data": {"reason": "not a lid's field"}}
    assert list(validator.iter_errors(wrong)), "a family's schema holds its codes' data"
    rounds = [m for m in messages if m["kind"] == "round"]
    assert [m["dealer"] for m in rounds] == ["ana"]


def test_the_catalogue_the_document_and_the_schemas_name_the_same_codes() -> None:
    document = (ROOT / "docs" / "events.md").read_text()
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", document, re.M))
    assert documented == set(CODES)
    folder = ROOT / "station" / "floor" / "schemas"
    for family in FAMILIES:
        schema = json.loads((folder / f"significant-{family}.schema.json").read_text())
        in_schema = {code for branch in schema["oneOf"] for code in branch["properties"]["code"]["enum"]}
        assert in_schema == {c.name for c in CODES.values() if c.family == family}, family
