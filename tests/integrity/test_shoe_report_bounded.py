"""``station integrity report --shoe N`` reads only the stretch around shoe N and reports it as
the whole journal's report does.

A session of several shoes goes through a real core loop with the station's integrity service
(its monitor checkpoints beside the loop's), onto a real journal. For every shoe, the report
read from the checkpoint before it (:func:`station.integrity.report.shoe_report`) must equal
that shoe in the report read from the first record: the account, the edges after each round,
the tests, the deck checks and the alerts with who acknowledged them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from station.core import integrity_steps
from station.core import outputs as out
from station.core.landmarks import Landmarks
from station.core.loop import CoreLoop
from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.core.sessions import generate
from station.core.state import machine_state, restore_machine
from station.events import Actor, AlertAcknowledged, Event, IntegrityAlert
from station.integrity.monitor import IntegritySettings
from station.integrity.report import _monitor_before, integrity_report, shoe_report

from .test_monitor_checkpoints import SETTINGS, run


def test_each_shoe_reads_alike_from_its_stretch(tmp_path: Path) -> None:
    journal, options = tmp_path / "j.sqlite3", CoreOptions(decks=4)
    run(journal, options, generate(5, 170, decks=4), SETTINGS, every=150)
    whole = integrity_report(journal, options, SETTINGS)
    numbers = [s["shoe"] for s in whole["shoes"]]
    assert len(numbers) >= 4, numbers
    for number in numbers:
        alone = shoe_report(journal, options, SETTINGS, number)
        assert alone["shoes"] == [s for s in whole["shoes"] if s["shoe"] == number], f"shoe {number}"
        assert alone["alert_counts"] == whole["alert_counts"]
    assert shoe_report(journal, options, SETTINGS, numbers[-1] + 5)["shoes"] == []
    with Landmarks(journal, options) as marks:  # a later shoe starts at a checkpoint, with the monitor's
        history, _ = _monitor_before(marks, options, SETTINGS, marks.before_round(numbers[-1] - 1, 1))
        assert history.checkpoint_seq > 0


def test_a_monitor_kept_under_other_settings_is_not_started_from(tmp_path: Path) -> None:
    """The monitor's checkpoints were kept under the station's settings; a report asked under
    others reads from the first record (what the monitor would have found under them)."""
    journal, options = tmp_path / "j.sqlite3", CoreOptions(decks=4)
    run(journal, options, generate(6, 120, decks=4), SETTINGS, every=150)
    other = IntegritySettings(advantage_percent=SETTINGS.advantage_percent + 1.0, repeat_depth=SETTINGS.repeat_depth)
    whole = integrity_report(journal, options, other)
    last = whole["shoes"][-1]["shoe"]
    with Landmarks(journal, options) as marks:
        history, _ = _monitor_before(marks, options, other, marks.before_round(last - 1, 1))
        assert history.checkpoint_seq == 0
    assert shoe_report(journal, options, other, last)["shoes"] == whole["shoes"][-1:]


def test_alerts_the_register_no_longer_keeps_are_reported_with_who_acknowledged_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The register keeps the open alerts and the latest acknowledged ones (3 here, 100 at a
    table): the whole report hears every alert as it was raised and acknowledged, and a shoe's
    report finds who acknowledged one the register has forgotten through the journal's index."""
    monkeypatch.setattr(integrity_steps, "ACKNOWLEDGED_KEPT", 3)
    journal, options = tmp_path / "j.sqlite3", CoreOptions(decks=4)
    idents: list[int] = []
    inputs = generate(7, 150, decks=4)
    with CoreLoop(journal, options, checkpoint_every=120) as loop:
        loop.subscribe(lambda o: idents.extend([o.ident] if isinstance(o, out.AlertRaised) else []),
                       (out.AlertRaised,))
        acked = 0
        for batch, start in enumerate(range(0, len(inputs), 5)):
            for event in inputs[start:start + 5]:
                loop.post(event)
            if batch % 6 == 0:
                loop.post(IntegrityAlert("test_alert", "alert", f"seen in batch {batch}", f"test:{batch}",
                                         loop.published.shoe))
            if batch % 6 == 4 and acked < len(idents) - 1:
                loop.post(AlertAcknowledged(idents[acked], Actor("supervisor", "sam"), f"checked {batch}"))
                acked += 1
            loop.run_pending()
        assert len(loop.published.open_alerts) == len(idents) - acked
    whole = integrity_report(journal, options, SETTINGS)
    reported = [a for s in whole["shoes"] for a in s["alerts"]] + whole["other_alerts"]
    assert sorted(a["ident"] for a in reported) == sorted(idents), "every alert, forgotten by the register or not"
    assert sum(1 for a in reported if a["acknowledged"]) == acked > 3
    assert all(a["acknowledged"]["who"] == "sam" for a in reported if a["acknowledged"])
    for shoe in [s["shoe"] for s in whole["shoes"]]:
        alone = shoe_report(journal, options, SETTINGS, shoe)
        assert alone["shoes"] == [s for s in whole["shoes"] if s["shoe"] == shoe], f"shoe {shoe}"


def test_the_register_keeps_open_alerts_and_the_latest_acknowledged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(integrity_steps, "ACKNOWLEDGED_KEPT", 2)
    machine = TableMachine(CoreOptions(decks=4))
    sam = Actor("supervisor", "sam")

    def apply(event: Event) -> list[out.Output]:
        mark = len(machine.outbox)
        machine.apply(event)
        return list(machine.outbox[mark:])

    for n in range(1, 7):
        apply(IntegrityAlert("test_alert", "alert", f"alert {n}", f"test:{n}", shoe=0))
    for ident in (1, 2, 3, 4):
        apply(AlertAcknowledged(ident, sam))
    assert [a.ident for a in machine.alerts] == [3, 4, 5, 6] and machine.alerts_raised == 6
    refused = apply(AlertAcknowledged(1, sam))
    assert any(isinstance(o, out.Refused) and "acknowledged long ago" in o.reason for o in refused)
    refused = apply(AlertAcknowledged(7, sam))
    assert any(isinstance(o, out.Refused) and "there is no alert 7" in o.reason for o in refused)
    raised = apply(IntegrityAlert("test_alert", "alert", "the seventh", "test:7", shoe=0))
    assert [o.ident for o in raised if isinstance(o, out.AlertRaised)] == [7]
    again = apply(IntegrityAlert("test_alert", "alert", "the first again", "test:1", shoe=0))
    assert any(isinstance(o, out.Refused) and "raised already" in o.reason for o in again), (
        "a key of the shoe in play is kept when its alert is forgotten")
    restored = restore_machine(CoreOptions(decks=4), machine_state(machine))
    assert restored.alerts_raised == 7 and [a.ident for a in restored.alerts] == [3, 4, 5, 6, 7]
