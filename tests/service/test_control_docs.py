"""docs/control.md describes exactly the commands the station enforces, and its examples run."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from station.cli.main import build_parser
from station.service.control_commands import control_commands

DOC = (Path(__file__).resolve().parents[2] / "docs" / "control.md").read_text()


def test_every_command_its_roles_and_arguments_are_documented() -> None:
    rows = {m[1]: m[0] for m in re.finditer(r"^\| `([a-z-]+)` \|.*$", DOC, re.M)}
    commands = control_commands(lambda event, done: None, dict)
    assert set(rows) == set(commands)
    for name, command in commands.items():
        row = rows[name]
        for role in command.roles:
            assert role in row, f"{name}: role {role} missing"
        for argument in (command.arguments.model_fields if command.arguments else {}):
            assert f"`{argument}`" in row, f"{name}: argument {argument} missing"


def test_the_examples_are_command_lines_station_ctl_accepts() -> None:
    examples = [line for line in DOC.splitlines() if line.startswith("station ctl ")]
    assert len(examples) >= 5
    for line in examples:
        words = shlex.split(line.split("#")[0])[1:]
        args = build_parser("ctl").parse_args(words)
        assert args.ctl_command


def test_every_folded_warning_is_documented_with_its_interval(tmp_path: Path) -> None:
    """Role denials are folded like failed sign-ins (one line per interval, with the count held
    back): docs/control.md says so for both, with the interval the socket uses."""
    from station.service.control import Authenticator, ControlServer

    server = ControlServer(tmp_path / "c.sock", Authenticator([]), {})
    for event, throttle in (("control_refused", server._denial_warnings),
                            ("control_authentication_failed", server._auth_warnings)):
        bullet = next((b for b in DOC.split("\n- ") if f"`{event}`" in b), "")
        assert f"one line per {throttle.interval_s:g} s" in " ".join(bullet.split()), event
        assert "similar_since_last" in bullet, event
