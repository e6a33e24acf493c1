"""``station ctl``: talk to a running station over its control socket.

Supervisors and technicians authenticate with a personal token (``--token-file`` or
``$STATION_TOKEN``); the station checks it against the SHA-256 list in its configuration and
journals every privileged command with the user's role and name. Without a token, a local
account of ``[control] local_technicians`` (root by default) may read the status.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import secrets
import sys
from pathlib import Path

from station.cli.anywhere import options_anywhere
from station.cli.main import CliError
from station.config.users import control_user_entry, user_name_problem
from station.journal.location import journal_path
from station.service.control import ControlError, hash_token, request
from station.service.control_commands import typed_arguments
from station.service.paths import control_socket_path


def _token(args: argparse.Namespace) -> str:
    if args.token_file:
        try:
            return Path(args.token_file).read_text().strip()
        except OSError as exc:
            raise CliError(f"cannot read token file {args.token_file}: {exc.strerror}") from None
    # None given: the station decides (a local technician account reads the status without one,
    # docs/control.md); anyone else is told a token is required.
    return os.environ.get("STATION_TOKEN", "")


#: Where the packaged service (systemd's RuntimeDirectory=dealing-station) listens.
SERVICE_SOCKET = Path("/run/dealing-station/control.sock")


def _find_socket(journal: str | None) -> Path:
    """The station to talk to: the socket a station of this environment would open (see
    :func:`~station.service.paths.control_socket_path`), else the packaged service's."""
    own = control_socket_path(None, journal_path(journal))
    if own.exists() or journal or not SERVICE_SOCKET.exists():
        return own
    return SERVICE_SOCKET


def _read_pin(prompt: str) -> str:
    """A PIN typed at the terminal without echo; from standard input when it is not a terminal
    (an installer's script)."""
    if sys.stdin.isatty():
        return getpass.getpass(prompt)
    line = sys.stdin.readline()
    if not line:
        raise CliError("no PIN given on standard input")
    return line.rstrip("\n")


#: PINs a person at a terminal may type before ``new-user`` gives up.
PIN_TRIES = 3


def _new_user(name: str, role: str) -> int:
    """A console user: the PIN asked twice, and the entry with its salted hash (docs/console.md)."""
    from station.config.pins import hash_pin, pin_problem

    problem = user_name_problem(name)  # before anyone types a PIN
    if problem is not None:
        raise CliError(problem)
    # At a terminal a person who mistypes is asked again (three times at most); a script's
    # standard input is refused at the first wrong PIN, as there is nobody to ask.
    tries = PIN_TRIES if sys.stdin.isatty() else 1
    for attempt in range(1, tries + 1):
        pin = _read_pin(f"PIN for {name}: ")
        problem = pin_problem(pin)
        if not problem and _read_pin("the same PIN again: ") != pin:
            problem = "the two PINs differ"
        if not problem:
            break
        if attempt == tries:
            raise CliError(f"refused: {problem}")
        print(f"{problem}: try again", file=sys.stderr)
    print("add to the configuration (the PIN itself is stored nowhere):")
    print(control_user_entry({"name": name, "role": role, "pin_scrypt": hash_pin(pin)}), end="")
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.ctl_command == "new-user":
        return _new_user(args.name, args.role)
    if args.ctl_command == "new-token":
        return _new_token(args.name, args.role)
    socket_path = Path(args.socket) if args.socket else _find_socket(args.journal)
    texts: dict[str, str] = {}
    if args.ctl_command == "decide":
        texts["decision"] = args.decision
    if args.ctl_command == "dealer" and getattr(args, "dealer_name", None):
        texts["name"] = args.dealer_name
    for item in getattr(args, "set", None) or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise CliError(f"--set takes KEY=VALUE, got {item!r}")
        texts[key] = value
    try:
        reply = request(socket_path, _token(args), args.ctl_command, typed_arguments(args.ctl_command, texts))
    except ControlError as exc:
        raise CliError(str(exc), status=1) from None
    if not reply.get("ok"):
        error = str(reply.get("error"))
        # The station's refusals by the table's rules already say "refused: <why>".
        print(error if error.startswith("refused: ") else f"refused: {error}", file=sys.stderr)
        return 1
    result = reply.get("result")
    if args.ctl_command == "status" and not args.json and isinstance(result, dict):
        from station.cli.status_summary import summary

        print(summary(result))
    elif args.json or not isinstance(result, (str, int)):
        print(json.dumps(result, indent=None if args.json else 2, sort_keys=True))
    else:
        print(result)
    return 0


def _new_token(name: str, role: str) -> int:
    """A token for a person, and the configuration entry that lets it in (written by a TOML
    library: see :mod:`station.config.users`)."""
    problem = user_name_problem(name)
    if problem is not None:
        raise CliError(problem)
    token = secrets.token_urlsafe(24)
    print(f"token for {name} (give it to them, keep it secret): {token}")
    print("add to the configuration:")
    print(control_user_entry({"name": name, "role": role, "token_sha256": hash_token(token)}), end="")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("ctl", help="control a running station (status, pause, resume, decide, ...)")
    parser.add_argument("--socket", help="control socket path (default: the station writing --journal, "
                        "else the one of this environment, else the packaged service's)")
    parser.add_argument("--journal", help="talk to the station writing this journal (its socket is beside it)")
    parser.add_argument("--token-file", help="file holding your personal token (else $STATION_TOKEN)")
    parser.add_argument("--json", action="store_true",
                        help="print the reply as one JSON line (status: the whole status object)")
    ctl = parser.add_subparsers(dest="ctl_command", metavar="ACTION", required=True)
    ctl.add_parser("status", help="table state, what the station expects next, shoe and round, devices, alarms "
                   "(a summary; --json: the whole status object)")
    pause = ctl.add_parser("pause", help="pause the table; asked mid-round, when the round ends (supervisor)")
    pause.add_argument("--set", action="append", metavar="KEY=VALUE", help="reason=… for the journal")
    ctl.add_parser("resume", help="resume a paused table, or withdraw a pause not yet begun (supervisor)")
    decide = ctl.add_parser("decide", help="decide a pending irregularity (supervisor)")
    decide.add_argument(
        "decision",
        help="void | burn | dummy | resume (`station ctl status` shows the choices the irregularity allows)",
    )
    decide.add_argument("--set", action="append", metavar="KEY=VALUE", help="extra detail for the decision")
    dealer = ctl.add_parser("dealer", help="a dealer takes the table, relieving the one before (a supervisor "
                            "signs in anyone, a dealer themselves)")
    dealer.add_argument("dealer_name", metavar="NAME", help="the dealer, as [[control.users]] names them")
    command = ctl.add_parser(
        "send", help="any other command by name (bet, action, late-bets, payout-option), with --set KEY=VALUE"
    )
    command.add_argument("name")
    command.add_argument("--set", action="append", metavar="KEY=VALUE")
    token = ctl.add_parser("new-token", help="make a token for a person and print its config entry")
    token.add_argument("name", help="letters, digits, '.', '-' or '_' (journaled with what they do)")
    token.add_argument("role", choices=["dealer", "supervisor", "technician"])
    user = ctl.add_parser("new-user", help="a console user: prompts for a PIN and prints its config entry")
    user.add_argument("name", help="letters, digits, '.', '-' or '_' (journaled with what they do)")
    user.add_argument("role", choices=["dealer", "supervisor"])
    options_anywhere(parser)  # `station ctl --journal J status --json`
    parser.set_defaults(handler=_dispatch)


def _dispatch(args: argparse.Namespace) -> int:
    if args.ctl_command == "send":
        args.ctl_command = args.name
    return _run(args)
