"""Text for a person fitted to a terminal (station/cli/width.py): wrapped between words, each
continuation under where its line's text began, so the columns to its left still read."""

from __future__ import annotations

from station.cli.width import fitted, hanging


def test_a_long_line_wraps_under_its_text_and_a_short_one_is_left_alone() -> None:
    lines = fitted(["short", "  ALERT        #1 advantage_situation (1-81): " + "word " * 30], 60)
    assert lines[0] == "short"
    assert all(len(line) <= 60 for line in lines)
    assert lines[1].startswith("  ALERT        #1") and all(line.startswith(" " * 15 + line.strip()[:1])
                                                              for line in lines[2:])


def test_a_columned_record_goes_on_under_its_number_when_its_text_column_is_narrow() -> None:
    prefix = "2026-12-06 15:20:02 CET  #1       configuration_opened       station    "
    lines = hanging(prefix, "a journal begun under the table's configuration: game baccarat, variant mini", 100,
                    indent=25)
    assert lines[0].startswith(prefix) and all(len(line) <= 100 for line in lines)
    assert len(lines) == 2 and lines[1].startswith(" " * 25) and not lines[1].startswith(" " * 26)
