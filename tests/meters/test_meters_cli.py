"""``station meters`` on what it may be given: no journal, something that is not one, a journal
with no play yet, a date that is not one. Each answer is one line and an exit status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from station.cli.main import main
from station.config.options import CONFIGURATION_RECORD, new_journal_record
from station.journal import Journal
from station.service.config import load_config

from .week import week_config


def test_no_journal_is_one_line_and_status_2(tmp_path, capsys) -> None:
    missing = tmp_path / "nowhere.sqlite3"
    assert main(["meters", "--journal", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err == f"station meters: no journal at {missing}\n"
    assert not missing.exists()  # read-only: nothing is created


def test_a_file_that_is_not_a_journal_is_one_line_and_status_2(tmp_path, capsys) -> None:
    other = tmp_path / "notes.sqlite3"
    other.write_text("not a journal at all\n")
    assert main(["meters", "--journal", str(other)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("station meters: ") and str(other) in err
    assert len(err.splitlines()) == 1


def test_a_date_that_is_not_one_is_refused_by_the_command_line(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["meters", "--journal", str(tmp_path / "j.sqlite3"), "--day", "2026-02-30"])
    assert stopped.value.code == 2
    assert "expected a date written YYYY-MM-DD, or 'all', got '2026-02-30'" in capsys.readouterr().err


def test_a_journal_without_play_has_no_gaming_day(tmp_path, capsys) -> None:
    loaded = load_config(week_config(tmp_path))
    journal = tmp_path / "journal.sqlite3"
    with Journal(journal) as writer:
        writer.append(CONFIGURATION_RECORD, new_journal_record(loaded.config))
    assert main(["meters", "--journal", str(journal)]) == 0
    assert capsys.readouterr().out == f"no play in {journal}\n"
    assert main(["meters", "--journal", str(journal), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["days"], report["gaming_days"], report["table"]["timezone"]) == ([], [], "Europe/Vienna")
    assert report["table"]["currency"] == "EUR"


def test_the_configuration_names_the_journal(tmp_path, capsys) -> None:
    journal = tmp_path / "table.sqlite3"
    config = week_config(tmp_path)
    config.write_text(config.read_text().replace('journal = ""', f'journal = "{journal}"'))
    loaded = load_config(config)
    with Journal(journal) as writer:
        writer.append(CONFIGURATION_RECORD, new_journal_record(loaded.config))
    assert main(["meters", "--config", str(config), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["journal"] == str(journal)
    assert main(["meters", "--config", str(tmp_path / "absent.toml")]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_json_of_an_empty_journal_is_valid(tmp_path, capsys) -> None:
    import jsonschema

    schema = json.loads((Path(__file__).resolve().parents[2] / "station" / "meters" / "meters.schema.json")
                        .read_text())
    loaded = load_config(week_config(tmp_path))
    journal = tmp_path / "journal.sqlite3"
    with Journal(journal) as writer:
        writer.append(CONFIGURATION_RECORD, new_journal_record(loaded.config))
    assert main(["meters", "--journal", str(journal), "--json", "--day", "2026-03-28"]) == 0
    report = json.loads(capsys.readouterr().out)
    jsonschema.validate(report, schema)
    assert report["days"][0]["totals"]["rounds"] == 0


def test_a_journal_of_software_that_knows_other_table_keys_is_one_line(tmp_path, capsys) -> None:
    loaded = load_config(week_config(tmp_path))
    record = new_journal_record(loaded.config)
    record["table"]["a_key_of_later_software"] = True
    journal = tmp_path / "journal.sqlite3"
    with Journal(journal) as writer:
        writer.append(CONFIGURATION_RECORD, record)
    assert main(["meters", "--journal", str(journal)]) == 2
    err = capsys.readouterr().err
    assert err == (f"station meters: {journal}: its configuration record is not one this station reads: "
                   "table.a_key_of_later_software: Extra inputs are not permitted (read it with the software "
                   "that wrote it)\n")
