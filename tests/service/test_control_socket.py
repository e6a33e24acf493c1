"""The control socket: real Unix sockets, tokens, roles, permissions."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from station.events import Actor
from station.service.control import (
    Authenticator,
    Command,
    ControlError,
    ControlServer,
    Credential,
    hash_token,
    request,
)
from station.service.control_commands import DecideArguments


@pytest.fixture
def server(tmp_path: Path):
    calls: list[tuple[Actor, dict[str, Any]]] = []
    auth = Authenticator(
        [
            Credential("dora", "dealer", hash_token("dealer-secret")),
            Credential("sam", "supervisor", hash_token("super-secret")),
        ]
    )

    def decide(actor: Actor, args: dict[str, Any]) -> str:
        calls.append((actor, args))
        return "posted"

    commands = {
        "status": Command(frozenset({"dealer", "supervisor", "technician"}), lambda a, _: {"state": "betting"}),
        "decide": Command(frozenset({"supervisor"}), decide, arguments=DecideArguments),
    }
    srv = ControlServer(tmp_path / "run" / "control.sock", auth, commands, mode=0o660)
    srv.start()
    yield srv, calls
    srv.stop()


def test_status_for_any_role(server) -> None:
    srv, _ = server
    assert request(srv.path, "dealer-secret", "status") == {"ok": True, "result": {"state": "betting"}}


def test_privileged_command_carries_role_and_name(server) -> None:
    srv, calls = server
    reply = request(srv.path, "super-secret", "decide", {"decision": "void_round"})
    assert reply == {"ok": True, "result": "posted"}
    assert calls == [(Actor(role="supervisor", who="sam"), {"decision": "void_round", "detail": ""})]


def test_dealer_cannot_decide(server) -> None:
    srv, calls = server
    reply = request(srv.path, "dealer-secret", "decide", {"decision": "void_round"})
    assert not reply["ok"] and "supervisor" in reply["error"] and "dora is dealer" in reply["error"]
    assert calls == []


def test_bad_token_and_unknown_command(server) -> None:
    srv, _ = server
    assert request(srv.path, "guess", "status")["error"] == "unknown token"
    assert "unknown command" in request(srv.path, "super-secret", "format_disk")["error"]


def test_socket_is_not_world_accessible(server) -> None:
    srv, _ = server
    mode = stat.S_IMODE(os.stat(srv.path).st_mode)
    assert mode == 0o660


def test_stale_socket_is_replaced_and_live_one_refused(tmp_path: Path) -> None:
    auth = Authenticator([])
    first = ControlServer(tmp_path / "c.sock", auth, {})
    first.start()
    second = ControlServer(tmp_path / "c.sock", auth, {})
    with pytest.raises(ControlError, match="already listening"):
        second.start()
    assert first._server is not None
    first._server.server_close()  # simulate a crash: the file stays, nobody listens
    first._server.shutdown()
    first._server = None
    second.start()
    second.stop()


def test_no_station_listening(tmp_path: Path) -> None:
    with pytest.raises(ControlError, match="no station is listening"):
        request(tmp_path / "absent.sock", "x", "status")


def test_ctl_cli_against_a_live_socket(server, tmp_path: Path, capsys) -> None:
    from station.cli.main import main

    srv, calls = server
    token_file = tmp_path / "token"
    token_file.write_text("super-secret\n")
    assert main(["ctl", "--socket", str(srv.path), "--token-file", str(token_file), "decide", "burn_card"]) == 0
    assert calls[-1] == (Actor(role="supervisor", who="sam"), {"decision": "burn_card", "detail": ""})
    token_file.write_text("dealer-secret\n")
    assert main(["ctl", "--socket", str(srv.path), "--token-file", str(token_file), "decide", "void_round"]) == 1
    assert "refused" in capsys.readouterr().err


def test_new_token_prints_a_matching_config_entry(capsys) -> None:
    from station.cli.main import main

    assert main(["ctl", "new-token", "ann", "supervisor"]) == 0
    out = capsys.readouterr().out
    token = out.split(": ", 1)[1].split("\n", 1)[0]
    assert f'token_sha256 = "{hash_token(token)}"' in out
