"""``station diag deck-check``: the shuffler counts the cards it holds, per rank and suit."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, cast

from station.cli.commands.diag.shared import device_options, need_kind, out, refuse_if_busy, resolve, talks_to_devices
from station.cli.main import CliError

if TYPE_CHECKING:
    from drivers.devices.shuffler import ShufflerDriver


def add_parser(sub: Any) -> None:
    deck = sub.add_parser("deck-check", help="the shuffler's card count per rank and suit")
    device_options(deck, default="shuffler")
    deck.add_argument("--json", action="store_true")
    deck.set_defaults(handler=run)


@talks_to_devices
def run(args: argparse.Namespace) -> int:
    from drivers.devices import DeviceError
    from station.diag.deck import deck_report, format_deck
    from station.diag.target import DiagError, open_session

    target, config = resolve(args)
    need_kind(target, "shuffler")
    refuse_if_busy(target, config)
    try:
        with open_session(target, wait=args.wait) as session:
            try:
                shuffler = cast("ShufflerDriver", session.driver)  # need_kind made sure it is the shuffler
                check = shuffler.deck_check()
            except DeviceError as exc:
                raise CliError(f"deck check failed: {exc}", 1) from None
            where = session.where()
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None
    report = deck_report(check)
    out(json.dumps(report, indent=2) if args.json else format_deck(report, where))
    return 0 if report["complete"] else 1
