"""``station run``: the table service (what systemd starts)."""

from __future__ import annotations

import argparse
import faulthandler
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from station.cli.configuration import load_station_config
from station.cli.exits import Status, config_status, startup_failure
from station.cli.main import CliError
from station.config.errors import ConfigError
from station.config.rules import refused
from station.host.logging import configure_logging
from station.journal.location import journal_path
from station.service.config import LoadedConfig, StationConfig
from station.service.extension import StationExtension
from station.service.paths import default_config_path
from station.service.preflight import journal_folder_problems

if TYPE_CHECKING:
    from station.service.app import Station


def _run(args: argparse.Namespace) -> int:
    path = args.config or default_config_path()
    if args.check:
        return _check(path, args)
    try:
        loaded = load_station_config(path)
        problems = journal_folder_problems(loaded, args.journal)
        if problems:
            raise ConfigError(loaded.path, problems)
        from station.service.app import RunOptions, Station

        station = Station(loaded, RunOptions(journal=args.journal, extensions=_extensions(loaded)))
    except ConfigError as exc:
        raise CliError(str(exc), config_status(exc, bool(args.config))) from None
    configure_logging(loaded.config.station.log_format, loaded.config.station.log_level,
                      timezone=loaded.config.table.timezone)
    # `kill -USR1 <pid>` prints every thread's stack to stderr (the journal under systemd):
    # how a technician sees where a stuck station is stuck without stopping it.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    serve(station)
    if station.failure:
        raise CliError(f"stopped on an error: {station.failure}", Status.FAILED)
    return 0


def _check(path: Path, args: argparse.Namespace) -> int:
    """Say everything ``run`` would refuse (status 78), every problem in one run, and warn of
    what it would start with. A configuration with problems is still checked against the
    machine (its refused keys at their defaults; findings about those keys left out)."""
    from station.config.options import core_options
    from station.service.preflight import Finding, preflight

    try:
        loaded, problems = load_station_config(path), []
    except ConfigError as exc:
        if not isinstance(exc.partial, StationConfig):  # not even the keys' defaults could be built
            raise CliError(str(exc), config_status(exc, bool(args.config))) from None
        loaded, problems = LoadedConfig(exc.path, exc.partial), list(exc.problems)
    journal = journal_path(args.journal, loaded.config.station.journal or None)
    if not problems:
        try:
            core_options(loaded.config, loaded.path)
        except ConfigError as exc:
            problems = list(exc.problems)
    problems += journal_folder_problems(loaded, args.journal)
    if not any(refused("chip_reader", [key]) for key, _ in problems):
        from station.service.chip_parts import chip_registry_problems

        problems += chip_registry_problems(loaded.config, loaded.path)
    findings = [Finding(key, text, True) for key, text in problems]
    findings += [f for f in preflight(loaded, journal) if not any(refused(f.where, [key]) for key, _ in problems)]
    for finding in sorted(findings, key=lambda f: not f.error):
        print(f"{loaded.path}: {'error' if finding.error else 'WARNING'}: {finding.where}: {finding.text}",
              file=sys.stderr)
    if any(f.error for f in findings):
        return Status.CONFIG
    options = core_options(loaded.config, loaded.path)
    layout = options.rules.variant_of(options.table) or options.rules.title
    print(f"{loaded.path}: configuration is valid ({options.game}, {layout}, {options.decks} decks, journal {journal})")
    return 0


def start(station: Station) -> None:
    """Start the station, or close it and say in one line why it cannot start (with the
    status that tells systemd whether a restart can help: docs/install.md)."""
    try:
        station.start()
    except BaseException as exc:
        station.close()
        failure = startup_failure(exc)
        if failure is None:
            raise
        raise CliError(*failure) from None


def serve(station: Station) -> None:
    """What every command that runs a station does: take SIGTERM and SIGINT as a stop, start
    (one line and a status when it cannot), run until stopped, and close whatever happens."""
    station.install_signal_handlers()
    start(station)
    try:
        station.run()
    finally:
        station.close()


def _extensions(loaded: LoadedConfig) -> tuple[StationExtension, ...]:
    """The simulation plug-in, when the configuration names a simulated (``sim:``) device."""
    from station.sim.plugin import Simulation, is_simulated

    if not is_simulated(loaded.config):
        return ()
    from station.config.options import core_options

    return (Simulation(loaded.config, core_options(loaded.config, loaded.path), config_path=loaded.path),)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("run", help="run the table service (drivers, core loop, journal, display)")
    parser.add_argument("-c", "--config", help="configuration file (default: $STATION_CONFIG, "
                        "$CONFIGURATION_DIRECTORY/station.toml, or config/station.toml)")
    parser.add_argument("--journal", help="journal file (overrides config and $STATION_JOURNAL)")
    parser.add_argument("--check", action="store_true", help="validate the configuration and exit")
    parser.set_defaults(handler=_run)
