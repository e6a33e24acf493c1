"""``station diag``: technicians' diagnostics for the table's devices, real or simulated.

    station diag ports [--json]                       serial ports (by-id links) and USB devices
    station diag probe DEVICE                         identity, firmware, status, link statistics
    station diag monitor DEVICE [--count N] [--seconds S] [--raw|--json]
                                                      live frames, decoded and in hex
    station diag selftest                             every configured device tests itself
    station diag deck-check [DEVICE]                  the shuffler's count per rank and suit
    station diag display-test [DEVICE]                test pattern and one of everything
    station diag sign-test [DEVICE]                   the progressive sign: test amounts, a hit
    station diag chip-read [DEVICE]                   the chip reader: the chips on each antenna
    station diag pedals [DEVICE] [--seconds S]        press test

DEVICE is a configured name (shoe, shuffler, display, pedals, buttonbox, sign, chipreader) from
the station's configuration (-c FILE, else $STATION_CONFIG, else the default), or the device is
given directly with --url (a serial path, /dev/serial/by-id/..., socket://host:port,
usb://VID:PID?serial=..., usb-sim:///socket?serial=...) and --kind.

Anything that talks to a device is refused (exit 1) while the running station service holds
that device, and everything is refused while a round is live. Exit status: 0 all good,
1 a failure or refusal, 2 a usage or configuration error.
"""

from __future__ import annotations

import argparse
from typing import Any

from station.cli.anywhere import options_anywhere
from station.cli.commands.diag import (
    chip_read,
    deck_check,
    display_test,
    monitor,
    pedals,
    ports,
    probe,
    selftest,
    sign_test,
)
from station.cli.commands.diag.shared import DEVICE_KINDS

# In the order ``station diag --help`` lists them.
SUBCOMMANDS = (ports, probe, monitor, selftest, deck_check, display_test, sign_test, chip_read, pedals)

__all__ = ["DEVICE_KINDS", "SUBCOMMANDS", "register"]


def register(subparsers: Any) -> None:
    """``station diag`` and its sub-commands, one module each in this package."""
    parser = subparsers.add_parser(
        "diag",
        help="technicians' diagnostics: ports, probe, monitor, selftest, deck-check, display-test, sign-test, "
             "chip-read, pedals",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-c", "--config", help="station configuration file (default: $STATION_CONFIG or the default)")
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="warning",
                        help="driver log lines on stderr from this level (default: warning)")
    sub = parser.add_subparsers(dest="diag_command", metavar="SUBCOMMAND", required=True)
    for command in SUBCOMMANDS:
        command.add_parser(sub)
    options_anywhere(parser)  # `station diag selftest -c FILE` as docs/install.md writes it
