"""Journal location precedence: --journal > $STATION_JOURNAL > config > $STATE_DIRECTORY > XDG."""

from __future__ import annotations

from pathlib import Path

import pytest

from station.journal.location import journal_location, journal_path

HOME = {"HOME": "/home/dealer"}


def test_explicit_wins_over_everything() -> None:
    env = {**HOME, "STATION_JOURNAL": "/env/j", "STATE_DIRECTORY": "/var/lib/ds", "XDG_STATE_HOME": "/xdg"}
    assert journal_location("/cli/j", "/conf/j", environ=env) == (Path("/cli/j"), "--journal")


def test_environment_variable_wins_over_configuration() -> None:
    env = {**HOME, "STATION_JOURNAL": "/env/j", "STATE_DIRECTORY": "/var/lib/ds"}
    assert journal_path(None, "/conf/j", environ=env) == Path("/env/j")


def test_configuration_wins_over_systemd_state_directory() -> None:
    env = {**HOME, "STATE_DIRECTORY": "/var/lib/ds"}
    assert journal_location(None, "/conf/j", environ=env) == (Path("/conf/j"), "configuration file")


def test_systemd_state_directory_uses_the_first_of_several() -> None:
    env = {**HOME, "STATE_DIRECTORY": "/var/lib/ds:/var/lib/other", "XDG_STATE_HOME": "/xdg"}
    assert journal_path(environ=env) == Path("/var/lib/ds/journal.sqlite3")


def test_xdg_state_home() -> None:
    assert journal_path(environ={**HOME, "XDG_STATE_HOME": "/xdg"}) == Path("/xdg/dealing-station/journal.sqlite3")


@pytest.mark.parametrize("xdg", [None, "", "relative/dir"])
def test_default_under_home_when_xdg_is_unset_or_relative(xdg: str | None) -> None:
    env = dict(HOME) if xdg is None else {**HOME, "XDG_STATE_HOME": xdg}
    path, source = journal_location(environ=env)
    assert path == Path("/home/dealer/.local/state/dealing-station/journal.sqlite3")
    assert "default" in source


def test_empty_values_count_as_unset() -> None:
    env = {**HOME, "STATION_JOURNAL": "", "STATE_DIRECTORY": ""}
    assert journal_path("", "", environ=env) == Path("/home/dealer/.local/state/dealing-station/journal.sqlite3")


def test_tilde_is_expanded() -> None:
    assert journal_path("~/j.sqlite3", environ=HOME) == Path.home() / "j.sqlite3"


def test_reads_the_real_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATION_JOURNAL", "/from/env.sqlite3")
    assert journal_path() == Path("/from/env.sqlite3")
