"""``station pit``: the pit's live page of every table, served from the floor broker alone.

``station pit -c /etc/dealing-station/pit.toml`` serves the page until SIGTERM (what systemd
starts: ``systemd/station-pit.service``); ``--check`` finds what it would refuse without
starting; ``--print-template`` prints the commented file to start from. ``--broker``,
``--bind`` and ``--port`` stand in for the file's keys. Without ``-c`` it uses the shipped
template (``config/pit.toml``: a broker on this PC, the page on 127.0.0.1:8090). See
docs/pit.md.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from station.cli.exits import Status, config_status
from station.cli.main import CliError


def _overrides(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    overrides: dict[str, dict[str, Any]] = {}
    if args.broker:
        overrides.setdefault("broker", {})["url"] = args.broker
    if args.bind:
        overrides.setdefault("pit", {})["bind"] = args.bind
    if args.port is not None:
        overrides.setdefault("pit", {})["port"] = args.port
    return overrides


def _run(args: argparse.Namespace) -> int:
    from station.config.errors import ConfigError
    from station.floor.mqtt import BrokerSettingsError, check_options
    from station.pit.settings import load_pit_config, template_path

    if args.print_template:
        sys.stdout.write(template_path().read_text(encoding="utf-8"))
        return 0
    try:
        loaded = load_pit_config(args.config or template_path(), _overrides(args))
        check_options(loaded.config.broker.options(), prefix="broker.")
    except ConfigError as exc:
        raise CliError(str(exc), config_status(exc, bool(args.config))) from None
    except BrokerSettingsError as exc:
        raise CliError(f"{args.config or template_path()}: {exc.key}: {exc}", Status.CONFIG) from None
    page, broker = loaded.config.pit, loaded.config.broker
    if args.check:
        print(f"{loaded.path}: configuration is valid (page on {page.bind}:{page.port}, broker {broker.url}, "
              f"topics {broker.topic_prefix}/+/…, {', '.join(page.pits) or 'every pit'}, {page.timezone})")
        return 0
    from station.host.logging import configure_logging
    from station.pit.service import PitService, PitUnavailable

    configure_logging(page.log_format, page.log_level, stream=sys.stderr)
    try:
        return asyncio.run(PitService(loaded).run())
    except PitUnavailable as exc:
        raise CliError(str(exc), Status.UNAVAILABLE) from None


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "pit", help="the pit's live page of every table, from the floor's broker (docs/pit.md)",
        description="Serve one live page with a tile per table (state, shoe and round, last result, rounds this "
                    "hour, alarms, offline), read from the floor's MQTT broker only.")
    parser.add_argument("-c", "--config", metavar="FILE",
                        help="the pit page's configuration (default: the shipped template, config/pit.toml)")
    parser.add_argument("--check", action="store_true", help="validate the configuration and its files, then exit")
    parser.add_argument("--print-template", action="store_true",
                        help="print the commented template (station pit --print-template > pit.toml)")
    parser.add_argument("--broker", metavar="URL", help="instead of [broker] url: mqtt://HOST[:PORT] or mqtts://…")
    parser.add_argument("--bind", metavar="ADDRESS", help="instead of [pit] bind")
    parser.add_argument("--port", type=int, help="instead of [pit] port")
    parser.set_defaults(handler=_run)
