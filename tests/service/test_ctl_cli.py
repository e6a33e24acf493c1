"""``station ctl`` as a person types it: ``--set`` values typed by each command's own schema,
``--json`` after the action, refusals said once, ``new-token`` entries that are valid TOML.

The real command line (``station.cli.main.main``) against the real control socket
(:class:`ControlServer`) with the station's real command table; what the table would be
given is collected from ``post``.
"""

from __future__ import annotations

import argparse
import json
import os
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from station.cli.main import build_parser, main
from station.config.errors import ConfigError
from station.core.loop import Verdict
from station.events import Actor, AlertAcknowledged, BetPlaced, DealerAction, Event, PauseRequested, TrayCounted
from station.service.config import parse_config
from station.service.control import Authenticator, ControlServer, Credential, hash_token
from station.service.control_commands import control_commands

SUPERVISOR = "super-secret"
STATUS = {"state": "betting", "expecting": "place your bets", "table": "T1"}


class Table:
    def __init__(self, server: ControlServer, posted: list[Event], token_file: Path) -> None:
        self.server = server
        self.posted = posted
        self.token_file = token_file
        self.refuse_with = ""

    def ctl(self, *words: str) -> int:
        return main(["ctl", "--socket", str(self.server.path), "--token-file", str(self.token_file), *words])


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    posted: list[Event] = []
    token_file = tmp_path / "token"
    token_file.write_text(SUPERVISOR + "\n")
    holder: list[Table] = []

    def post(event: Event, done: Any) -> None:
        posted.append(event)
        reason = holder[0].refuse_with
        done(Verdict(not reason, reason))

    server = ControlServer(tmp_path / "control.sock", Authenticator([Credential("sam", "supervisor",
                                                                                hash_token(SUPERVISOR))]),
                           control_commands(post, lambda: dict(STATUS)))
    server.start()
    holder.append(Table(server, posted, token_file))
    try:
        yield holder[0]
    finally:
        server.stop()


def test_the_documented_bet_is_applied_as_written(table: Table) -> None:
    """docs/control.md's example, refused before as ``box: input should be a valid string``."""
    assert table.ctl("send", "bet", "--set", "box=1", "--set", "player=P1", "--set", "region=tie",
                     "--set", "amount=500") == 0
    (bet,) = table.posted
    assert isinstance(bet, BetPlaced) and (bet.box, bet.player, bet.region, bet.amount) == ("1", "P1", "tie", 500)


def test_the_documented_decline_tie_is_applied_as_written(table: Table) -> None:
    assert table.ctl("send", "action", "--set", "action=decline_tie", "--set", "box=1", "--set", "player=P1") == 0
    (action,) = table.posted
    assert isinstance(action, DealerAction) and (action.action, action.box, action.player) == ("decline_tie", "1",
                                                                                                 "P1")


def test_numbers_where_a_command_takes_them_and_text_where_it_takes_text(table: Table) -> None:
    assert table.ctl("send", "ack", "--set", "ident=3", "--set", "note=12") == 0
    assert table.ctl("pause", "--set", "reason=2") == 0
    assert table.ctl("send", "bet", "--set", 'box="7"', "--set", "player=007", "--set", "region=banker",
                     "--set", "amount=2500") == 0  # the old quoting still means the text
    ack, pause, bet = table.posted
    assert isinstance(ack, AlertAcknowledged) and ack.ident == 3 and ack.note == "12"
    assert isinstance(pause, PauseRequested) and pause.reason == "2"
    assert isinstance(bet, BetPlaced) and (bet.box, bet.player, bet.amount) == ("7", "007", 2500)


def test_a_value_the_command_cannot_take_is_refused_by_the_station_naming_it(table: Table,
                                                                             capsys: Any) -> None:
    assert table.ctl("send", "bet", "--set", "box=1", "--set", "player=P1", "--set", "region=tie",
                     "--set", "amount=5.00") == 1
    assert capsys.readouterr().err.startswith("refused: amount: input should be a valid integer")
    assert table.ctl("send", "bet", "--set", "box=1", "--set", "player=P1", "--set", "region=tie",
                     "--set", "amount=500", "--set", "colour=red") == 1
    assert "colour: not an argument of this command" in capsys.readouterr().err
    assert table.posted == []


def test_a_refusal_by_the_table_says_refused_once(table: Table, capsys: Any) -> None:
    table.refuse_with = "cannot pause with cards in flight: deal Player's third card"
    assert table.ctl("pause") == 1
    assert capsys.readouterr().err == "refused: cannot pause with cards in flight: deal Player's third card\n"


def test_json_is_taken_after_the_action_as_before_it(table: Table, capsys: Any) -> None:
    assert main(["ctl", "--token-file", str(table.token_file), "status", "--socket", str(table.server.path),
                 "--json"]) == 0
    after = _printed(capsys)
    assert table.ctl("--json", "status") == 0
    before = _printed(capsys)
    assert after == before == json.dumps(STATUS, sort_keys=True) + "\n"


def test_status_without_json_is_a_summary_for_a_person(table: Table, capsys: Any) -> None:
    assert table.ctl("status") == 0
    out = _printed(capsys)
    assert out.startswith("T1: betting (as of ") and "  expects:  place your bets" in out
    assert "{" not in out


def _printed(capsys: Any) -> str:
    """What ``ctl`` printed, without the log lines the in-process server writes to stdout."""
    return "".join(line for line in capsys.readouterr().out.splitlines(keepends=True) if "control_" not in line)


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for action in parser._actions for o in action.option_strings if o not in ("-h", "--help")}


def _actions(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


@pytest.mark.parametrize("command", ["ctl", "diag"])
def test_every_option_of_a_command_is_taken_after_any_of_its_actions(command: str) -> None:
    """``--json`` (and ``--socket``, ``--journal``, ``--token-file``; diag's ``-c``) wherever a
    flag may stand: ``station ctl --journal J status --json``, ``station diag selftest -c F``."""
    parser = _actions(build_parser(command))[command]
    wanted = _options(parser) - {"-h", "--help"}
    assert wanted >= ({"--json", "--socket", "--journal", "--token-file"} if command == "ctl" else {"-c"})
    for name, action in _actions(parser).items():
        assert wanted <= _options(action), f"station {command} {name} does not take {sorted(wanted - _options(action))}"


def test_an_option_after_the_action_wins_and_one_before_it_stands(tmp_path: Path) -> None:
    parser = build_parser("diag")
    assert parser.parse_args(["diag", "selftest", "-c", "after.toml"]).config == "after.toml"
    assert parser.parse_args(["diag", "-c", "before.toml", "selftest"]).config == "before.toml"
    assert parser.parse_args(["diag", "-c", "before.toml", "selftest", "-c", "after.toml"]).config == "after.toml"
    assert parser.parse_args(["diag", "selftest"]).config is None


@pytest.mark.parametrize("name", ['al"ice', "", "a b", "ann\n[[control.users]]", "x" * 33, "zoë"])
def test_new_token_refuses_a_name_that_is_not_letters_digits_dot_dash_underscore(name: str, capsys: Any) -> None:
    assert main(["ctl", "new-token", name, "supervisor"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("station ctl: ") and err.count("\n") == 1


@pytest.mark.parametrize("name", ["ann", "shift-supervisor", "j.doe_2"])
def test_new_token_prints_an_entry_the_configuration_takes(name: str, capsys: Any, tmp_path: Path) -> None:
    assert main(["ctl", "new-token", name, "dealer"]) == 0
    out = capsys.readouterr().out
    token = out.split(": ", 1)[1].split("\n", 1)[0]
    entry = out.split("add to the configuration:\n", 1)[1]
    assert tomllib.loads(entry) == {"control": {"users": [{"name": name, "role": "dealer",
                                                           "token_sha256": hash_token(token)}]}}
    config = parse_config(tomllib.loads(entry), tmp_path / "station.toml")
    assert config.control.users[0].name == name


def test_the_configuration_refuses_a_user_name_new_token_would_refuse(tmp_path: Path) -> None:
    data = {"control": {"users": [{"name": "al ice", "role": "dealer", "token_sha256": "1" * 64}]}}
    with pytest.raises(ConfigError, match=r"control\.users\[0\]\.name: .*letters, digits"):
        parse_config(data, tmp_path / "station.toml")


@pytest.mark.parametrize("listed", [True, False])
def test_a_local_technician_account_reads_the_status_without_a_token_and_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, listed: bool) -> None:
    """The account is the socket's peer as the kernel names it (this test's own uid): listed in
    ``[control] local_technicians`` it reads the status; it still cannot pause the table."""
    monkeypatch.delenv("STATION_TOKEN", raising=False)
    posted: list[Event] = []
    local = {os.getuid(): "admin"} if listed else {}
    server = ControlServer(tmp_path / "control.sock", Authenticator([], local),
                           control_commands(lambda event, done: posted.append(event), lambda: dict(STATUS)))
    server.start()
    try:
        status = main(["ctl", "--socket", str(server.path), "status", "--json"])
        said = capsys.readouterr()
        if listed:
            assert status == 0 and json.loads(said.out.splitlines()[-1])["state"] == "betting", said  # after the log
        else:
            assert status == 1 and "refused: a token is required (use --token-file or $STATION_TOKEN)" in said.err
        assert main(["ctl", "--socket", str(server.path), "pause", "--set", "reason=x"]) == 1
        said = capsys.readouterr()
        assert ("'pause' needs the role supervisor" if listed else "a token is required") in said.err, said.err
        assert posted == []
    finally:
        server.stop()


@pytest.mark.parametrize("antenna", [True, False])
def test_the_documented_count_by_the_tray_antenna_is_posted_only_where_an_antenna_is_under_the_tray(
        tmp_path: Path, capsys: Any, antenna: bool) -> None:
    """docs/control.md's closer by the tray antenna, typed as written: no chips given, the event
    says who counts; a station whose chip reader has no antenna under the tray refuses it in one
    line, and nothing is journaled (the core could not say so on a replay: the antennas are the
    configuration's)."""
    posted: list[Event] = []
    token_file = tmp_path / "token"
    token_file.write_text(SUPERVISOR + "\n")

    def post(event: Event, done: Any) -> None:
        posted.append(event)
        done(Verdict(True, ""))

    server = ControlServer(tmp_path / "control.sock", Authenticator([Credential("sam", "supervisor",
                                                                                hash_token(SUPERVISOR))]),
                           control_commands(post, lambda: dict(STATUS), tray_antenna=antenna))
    server.start()
    try:
        status = main(["ctl", "--socket", str(server.path), "--token-file", str(token_file), "send", "tray",
                       "--set", "what=closer", "--set", "counted_by=reader", "--set", "witness=dana"])
    finally:
        server.stop()
    if antenna:
        assert status == 0 and posted == [TrayCounted("closer", (), "dana", Actor("supervisor", "sam"),
                                                      counted_by="reader")]
    else:
        assert status == 1 and posted == []
        assert capsys.readouterr().err == (
            "refused: no chip reader's antenna is under this table's tray ([chip_reader.antennas] names no "
            "\"tray\"): count the tray by hand\n")
