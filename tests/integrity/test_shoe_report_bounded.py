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

from station.core.landmarks import Landmarks
from station.core.options import CoreOptions
from station.core.sessions import generate
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
