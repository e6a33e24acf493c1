"""``station run``: the table service (what systemd starts)."""

from __future__ import annotations

import argparse
import faulthandler
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from station.cli.exits import Status, startup_failure
from station.cli.main import CliError
from station.service.config import ConfigError, LoadedConfig, load_config
from station.service.extension import StationExtension
from station.service.logging import configure_logging
from station.service.paths import default_config_path

if TYPE_CHECKING:
    from station.service.app import Station


def _run(args: argparse.Namespace) -> int:
    try:
        loaded = load_config(args.config or default_config_path())
        from station.service.app import RunOptions, Station

        station = Station(loaded, RunOptions(journal=args.journal, extensions=_extensions(loaded)))
    except ConfigError as exc:
        raise CliError(str(exc), Status.CONFIG) from None
    if args.check:
        return _check(loaded, station.journal_path)
    configure_logging(loaded.config.station.log_format, loaded.config.station.log_level)
    # `kill -USR1 <pid>` prints every thread's stack to stderr (the journal under systemd):
    # how a technician sees where a stuck station is stuck without stopping it.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    serve(station)
    return 0


def _check(loaded: LoadedConfig, journal: Path) -> int:
    """Say everything ``run`` would refuse (status 78) and warn of what it would start with."""
    from station.service.preflight import preflight

    findings = preflight(loaded, journal)
    for finding in findings:
        print(f"{loaded.path}: {'error' if finding.error else 'WARNING'}: {finding.where}: {finding.text}",
              file=sys.stderr)
    if any(f.error for f in findings):
        return Status.CONFIG
    from station.service.setup import core_options

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
    from station.service.setup import core_options

    return (Simulation(loaded.config, core_options(loaded.config, loaded.path)),)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("run", help="run the table service (drivers, core loop, journal, display)")
    parser.add_argument("-c", "--config", help="configuration file (default: $STATION_CONFIG, "
                        "$CONFIGURATION_DIRECTORY/station.toml, or config/station.toml)")
    parser.add_argument("--journal", help="journal file (overrides config and $STATION_JOURNAL)")
    parser.add_argument("--check", action="store_true", help="validate the configuration and exit")
    parser.set_defaults(handler=_run)
