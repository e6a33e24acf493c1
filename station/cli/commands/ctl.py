"""``station ctl``: talk to a running station over its control socket.

Supervisors and technicians authenticate with a personal token (``--token-file`` or
``$STATION_TOKEN``); the station checks it against the SHA-256 list in its configuration and
journals every privileged command with the user's role and name.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from pathlib import Path

from station.cli.main import CliError
from station.journal.location import journal_path
from station.service.control import ControlError, hash_token, request
from station.service.paths import control_socket_path


def _token(args: argparse.Namespace) -> str:
    if args.token_file:
        try:
            return Path(args.token_file).read_text().strip()
        except OSError as exc:
            raise CliError(f"cannot read token file {args.token_file}: {exc.strerror}") from None
    token = os.environ.get("STATION_TOKEN", "")
    if not token:
        raise CliError("no token: use --token-file FILE or set STATION_TOKEN")
    return token


def _parse_value(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


#: Where the packaged service (systemd's RuntimeDirectory=dealing-station) listens.
SERVICE_SOCKET = Path("/run/dealing-station/control.sock")


def _find_socket(journal: str | None) -> Path:
    """The station to talk to: the socket a station of this environment would open (see
    :func:`~station.service.paths.control_socket_path`), else the packaged service's."""
    own = control_socket_path(None, journal_path(journal))
    if own.exists() or journal or not SERVICE_SOCKET.exists():
        return own
    return SERVICE_SOCKET


def _run(args: argparse.Namespace) -> int:
    if args.ctl_command == "new-token":
        token = secrets.token_urlsafe(24)
        print(f"token for {args.name} (give it to them, keep it secret): {token}")
        print("add to the configuration:")
        print(f'[[control.users]]\nname = "{args.name}"\nrole = "{args.role}"\ntoken_sha256 = "{hash_token(token)}"')
        return 0
    socket_path = Path(args.socket) if args.socket else _find_socket(args.journal)
    command_args: dict[str, object] = {}
    if args.ctl_command == "decide":
        command_args["decision"] = args.decision
    for item in getattr(args, "set", None) or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise CliError(f"--set takes KEY=VALUE, got {item!r}")
        command_args[key] = _parse_value(value)
    try:
        reply = request(socket_path, _token(args), args.ctl_command, command_args)
    except ControlError as exc:
        raise CliError(str(exc), status=1) from None
    if not reply.get("ok"):
        print(f"refused: {reply.get('error')}", file=sys.stderr)
        return 1
    result = reply.get("result")
    if args.json or not isinstance(result, (str, int)):
        print(json.dumps(result, indent=None if args.json else 2, sort_keys=True))
    else:
        print(result)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("ctl", help="control a running station (status, pause, resume, decide, ...)")
    parser.add_argument("--socket", help="control socket path (default: the station writing --journal, "
                        "else the one of this environment, else the packaged service's)")
    parser.add_argument("--journal", help="talk to the station writing this journal (its socket is beside it)")
    parser.add_argument("--token-file", help="file holding your personal token (else $STATION_TOKEN)")
    parser.add_argument("--json", action="store_true", help="print the reply as one JSON line")
    ctl = parser.add_subparsers(dest="ctl_command", metavar="ACTION", required=True)
    ctl.add_parser("status", help="table state, what the station expects next, devices")
    pause = ctl.add_parser("pause", help="pause the table after the current round (supervisor)")
    pause.add_argument("--set", action="append", metavar="KEY=VALUE", help="reason=… for the journal")
    ctl.add_parser("resume", help="resume a paused table (supervisor)")
    decide = ctl.add_parser("decide", help="decide a pending irregularity (supervisor)")
    decide.add_argument(
        "decision",
        help="void | burn | dummy | resume (`station ctl status` shows the choices the irregularity allows)",
    )
    decide.add_argument("--set", action="append", metavar="KEY=VALUE", help="extra detail for the decision")
    command = ctl.add_parser(
        "send", help="any other command by name (bet, action, late-bets, payout-option), with --set KEY=VALUE"
    )
    command.add_argument("name")
    command.add_argument("--set", action="append", metavar="KEY=VALUE")
    token = ctl.add_parser("new-token", help="make a token for a person and print its config entry")
    token.add_argument("name")
    token.add_argument("role", choices=["dealer", "supervisor", "technician"])
    parser.set_defaults(handler=_dispatch)


def _dispatch(args: argparse.Namespace) -> int:
    if args.ctl_command == "send":
        args.ctl_command = args.name
    return _run(args)
