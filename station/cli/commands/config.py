"""``station config``: the configuration files that ship with the station.

``show-default`` prints the default (simulated) configuration, or an example with
``--example NAME``; ``init PATH`` writes one as a starting file for a table (it never
overwrites a file without ``--force``); ``examples`` lists the examples. An installed station
carries these files inside its package (:mod:`station.resources`), so they work from any
folder.
"""

from __future__ import annotations

import argparse
import os
import tomllib
from pathlib import Path

from station.cli.main import CliError
from station.resources import default_configuration, example, example_names


def _source(name: str | None) -> Path:
    if name is None:
        return default_configuration()
    try:
        return example(name)
    except LookupError as exc:
        raise CliError(str(exc)) from None


def _show(args: argparse.Namespace) -> int:
    print(_source(args.example).read_text(), end="")
    return 0


def _init(args: argparse.Namespace) -> int:
    target = Path(args.path)
    text = _source(args.example).read_text()
    if target.exists() and not args.force:
        raise CliError(f"{target} exists; nothing written (use --force to replace it)")
    try:
        # Created readable by the owner and group only: it holds the control users' token hashes.
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
        with os.fdopen(fd, "w") as out:
            out.write(text)
    except OSError as exc:
        raise CliError(f"cannot write {target}: {exc.strerror or exc}", status=73) from None
    print(f"{target}: written from the {args.example or 'default'} configuration; "
          f"check it with: station run -c {target} --check")
    _companions(_source(args.example), target)
    return 0


def _companions(source: Path, target: Path) -> None:
    """The files an example names beside itself (a chip reader's registry) are written beside
    the new file too, unless one is there already: the start would refuse without them."""
    reader = tomllib.loads(source.read_text()).get("chip_reader") or {}
    name = reader.get("registry")
    if not isinstance(name, str) or Path(name).is_absolute():
        return
    companion, beside = source.parent / name, target.parent / name
    if beside.exists():
        print(f"{beside}: kept as it is (the chip registry the configuration names)")
        return
    try:
        beside.write_bytes(companion.read_bytes())
    except OSError as exc:
        raise CliError(f"cannot write {beside}: {exc.strerror or exc}", status=73) from None
    print(f"{beside}: written, the chip registry the configuration names (replace it with the chip maker's file)")


def _list(_args: argparse.Namespace) -> int:
    for name in example_names():
        print(name)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("config", help="the configuration files that ship with the station")
    commands = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    show = commands.add_parser("show-default", help="print the default (simulated) configuration, or an example")
    show.add_argument("--example", metavar="NAME", help="an example instead (see `station config examples`)")
    show.set_defaults(handler=_show)
    init = commands.add_parser("init", help="write a starting configuration file")
    init.add_argument("path", help="the file to write")
    init.add_argument("--example", metavar="NAME", help="start from an example (e.g. production)")
    init.add_argument("--force", action="store_true", help="replace the file if it exists")
    init.set_defaults(handler=_init)
    listing = commands.add_parser("examples", help="list the example configurations")
    listing.set_defaults(handler=_list)
