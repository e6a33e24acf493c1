"""A generated week of play (tests/meters/week.py): ``station meters`` equals the figures worked
out again from ``station journal export`` by code that shares nothing with the station
(tests/meters/independent.py), for every gaming day, dealer session and shoe; it reads them from
the meters' checkpoints, and reading every record instead gives the same; ``--json`` matches its
JSON Schema; the human table shows money in the currency and times in the table's zone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from station.cli.main import main

from .independent import by_day, compute

SCHEMA = Path(__file__).resolve().parents[2] / "station" / "meters" / "meters.schema.json"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def exported(path: Path, folder: Path) -> list[str]:
    target = folder / "export.jsonl"
    assert main(["journal", "export", "--journal", str(path), "-o", str(target)]) == 0
    return target.read_text().splitlines()


def compare(report: dict[str, Any], expected: dict[str, dict[str, Any]]) -> None:
    assert [d["gaming_day"] for d in report["days"]] == list(expected)
    for day in report["days"]:
        theirs = expected[day["gaming_day"]]
        assert day["totals"] == theirs["totals"], day["gaming_day"]
        assert {s["session"]: s["figures"] for s in day["sessions"]} == theirs["sessions"], day["gaming_day"]
        assert {s["shoe"]: s["figures"] for s in day["shoes"]} == theirs["shoes"], day["gaming_day"]


def test_the_week_s_meters_equal_an_independent_computation_from_the_export(week, tmp_path, capsys) -> None:
    path, played, _ = week
    status, text, _ = run(capsys, "meters", "--journal", str(path), "--day", "all", "--json")
    assert status == 0
    report = json.loads(text)
    expected = by_day(compute(exported(path, tmp_path)))
    compare(report, expected)
    days = report["days"]
    assert sum(d["totals"]["rounds"] for d in days) == played.rounds
    assert sum(d["totals"]["voided_rounds"] for d in days) == played.voided == 1
    assert sum(d["totals"]["corrections"] for d in days) == len(played.corrected) == 1
    assert sum(d["totals"]["refusals"] for d in days) == played.refusals > 0
    assert sum(sum(d["totals"]["integrity_alarms"].values()) for d in days) == played.alarms == 1
    # The maximum lowered on the sixth stretch: the rounds before and after it, by their limits.
    under = [limits for d in days for limits in d["totals"]["rounds_by_limits"]]
    assert set(under) == {"1000-500000", "1000-400000"}, under
    # The gaming day of the spring change is 23 hours, and play ran across its end at 06:00 CEST.
    spring = next(d for d in days if d["gaming_day"] == "2026-03-28")
    assert (spring["begins"], spring["ends"]) == ("2026-03-28T05:00:00.000000Z", "2026-03-29T04:00:00.000000Z")
    assert spring["totals"]["last_round"] > "2026-03-29T03:54:00.000000Z"
    after = next(d for d in days if d["gaming_day"] == "2026-03-29")
    assert after["totals"]["first_round"] < "2026-03-29T04:10:00.000000Z"


def test_the_figures_come_from_the_checkpoints_and_equal_those_of_every_record(week, capsys) -> None:
    path, _, service = week
    assert service.checkpoints > 0
    _, text, _ = run(capsys, "meters", "--journal", str(path), "--day", "all", "--json")
    quick = json.loads(text)
    _, text, _ = run(capsys, "meters", "--journal", str(path), "--day", "all", "--json", "--from-start")
    slow = json.loads(text)
    assert quick["read"]["checkpoint"] is not None
    assert quick["read"]["records_read"] <= 150 + 50  # the records after the newest checkpoint
    assert slow["read"]["checkpoint"] is None
    assert slow["read"]["records_read"] == slow["read"]["last_seq"]
    assert {**quick, "read": None} == {**slow, "read": None}


def test_json_matches_its_schema_for_each_way_of_asking(week, capsys) -> None:
    path, _, _ = week
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for extra in ([], ["--day", "2026-03-28"], ["--day", "all"], ["--day", "2026-05-01"]):
        status, text, _ = run(capsys, "meters", "--journal", str(path), "--json", *extra)
        assert status == 0
        jsonschema.validate(json.loads(text), schema)


def test_the_human_table_has_money_in_the_currency_and_times_in_the_table_s_zone(week, capsys) -> None:
    path, _, _ = week
    status, text, _ = run(capsys, "meters", "--journal", str(path), "--day", "2026-03-28")
    assert status == 0
    assert text.startswith("Gaming day 2026-03-28: 2026-03-28 06:00 CET to 2026-03-29 06:00 CEST (Europe/Vienna)")
    assert "money in EUR" in text
    _, report, _ = run(capsys, "meters", "--journal", str(path), "--day", "2026-03-28", "--json")
    stakes = json.loads(report)["days"][0]["totals"]["stakes"]
    assert f"{stakes // 100:,}.{stakes % 100:02d}" in text
    assert "device_fault" in text or "irregularities: none" in text


def test_a_day_without_play_and_the_wrong_dealer(week, capsys) -> None:
    path, _, _ = week
    status, text, _ = run(capsys, "meters", "--journal", str(path), "--day", "2026-05-01")
    assert (status, text.splitlines()[-1]) == (0, "no play on this gaming day")
    status, _, err = run(capsys, "meters", "--journal", str(path), "--dealer", "nobody-here")
    assert status == 1
    assert err.startswith("station meters: no session of dealer 'nobody-here' in the journal")
    assert len(err.splitlines()) == 1



def test_one_dealer_s_play_and_rounds_per_hour(week, capsys) -> None:
    path, _, _ = week
    _, text, _ = run(capsys, "meters", "--journal", str(path), "--day", "all", "--json")
    every = json.loads(text)
    for name in ("ann", "bob"):
        _, text, _ = run(capsys, "meters", "--journal", str(path), "--day", "all", "--json", "--dealer", name)
        mine = json.loads(text)
        assert mine["dealer"] == name
        for day, whole in zip(mine["days"], (d for d in every["days"] if d["gaming_day"] in
                                              {m["gaming_day"] for m in mine["days"]}), strict=True):
            theirs = next(d for d in whole["dealers"] if d["dealer"] == name)
            assert day["totals"] == theirs["figures"]
            assert {s["dealer"] for s in day["sessions"]} == {name}
            assert day["dealers"] == [theirs]
        _, text, _ = run(capsys, "meters", "--journal", str(path), "--json", "--dealer", name)
        last = json.loads(text)["days"]
        assert [d["gaming_day"] for d in last] == [mine["days"][-1]["gaming_day"]]


def test_the_text_report_fits_a_hundred_columns_with_every_figure_and_a_rate_only_over_a_minute(
        week: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """Through a pipe (as here) the report is 100 columns wide at most: the columns that do not
    fit go on in a second table with the same labels; nothing is left out."""
    path, _, _ = week
    _, text, _ = run(capsys, "meters", "--journal", str(path), "--day", "all")
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    headings = " ".join(line for line in lines if line.startswith("   "))  # a table's heading: no row label
    for heading in ("rounds", "per hour", "open", "stakes", "house", "commission", "void parts", "voided back",
                    "corr.", "refused", "irreg.", "alarms"):
        assert heading in headings, heading
    _, text, _ = run(capsys, "meters", "--journal", str(path), "--day", "all", "--json")
    figures = [d["totals"] for d in json.loads(text)["days"]]
    assert all((f["rounds_per_hour"] is None) == (f["open_us"] < 60_000_000) for f in figures)
    assert any(f["rounds_per_hour"] is not None for f in figures)
