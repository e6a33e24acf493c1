"""``station manpage``: the manual page of every command, generated from the argument parser
by argparse-manpage (see :mod:`station.cli.commands.completion`)."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    manpage = subparsers.add_parser(
        "manpage", help="print the manual page (roff), for man",
        description="Print the manual page of every command, generated from the command line itself.")
    manpage.set_defaults(handler=run)


def run(_args: argparse.Namespace) -> int:
    from build_manpages.manpage import Manpage

    from station.cli.commands.completion import whole_parser
    from station.version import installed_version

    page = str(Manpage(whole_parser(), _data={
        "version": installed_version(), "project_name": "dealing-station", "manual_title": "Dealing station manual",
        "description": "Baccarat and Casino War table controller"}))
    print(page, end="" if page.endswith("\n") else "\n")
    return 0
