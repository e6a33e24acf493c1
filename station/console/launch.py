"""Starting the dealer's console with a station (called once by ``Station.start``).

Two things happen here, in this order, before the core loop runs:

1. the payout-confirmation rule is journaled when it is not what the journal last said: the
   next round waits for the payouts' confirmation when the console runs with ``[console]
   confirm_payouts`` (the default), and not otherwise, so the journal records which rule
   each round was paid under and replays it exactly, whatever the configuration says later;
2. when ``[console] enabled`` and the control socket runs (the console's door: a demo has
   neither), the console's process starts (:class:`~station.console.feed.ConsoleProcess`) with
   a picture resumed from the replayed machine, and the core loop's outputs feed it.

The console reaches the table only through the control socket's own checks: each request
is answered by :meth:`~station.service.control.ControlServer.serve_line` for the user signed
in, with the role the configuration gives that user.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from station.core import outputs as out
from station.events import Actor, DealerSignedIn, PayoutConfirmationRequired

if TYPE_CHECKING:
    from station.console.feed import ConsoleProcess
    from station.console.view import TableLayout
    from station.core.machine import TableMachine
    from station.service.app import Station


def start_console(station: Station) -> ConsoleProcess | None:
    """Journal the confirmation rule if it changed; start the console if it is wanted."""
    loop = station.loop
    assert loop is not None
    section = station.config.console
    wanted = section.enabled and station.run_options.control_socket
    if (wanted and section.confirm_payouts) != loop.published.confirm_payouts:
        loop.post(PayoutConfirmationRequired(wanted and section.confirm_payouts))
    if not wanted:
        return None
    from station.console.feed import ConsoleProcess
    from station.console.view import KINDS, ConsoleView
    from station.service.config import ConfigError

    for key in ("tls_cert", "tls_key"):
        path = getattr(section, key)
        if path and not os.access(path, os.R_OK):
            raise ConfigError(station.loaded.path, [(f"console.{key}", f"cannot read {path}")])
    view = ConsoleView(table_layout(station))
    loop.inspect(view.resume)  # start-up, before the loop runs: the machine as the replay left it
    console = ConsoleProcess(console_settings(station), view, lambda who, line: door(station, who, line),
                             lambda news: people(station, news)).start()

    def in_play(machine: TableMachine) -> str:
        return machine.round.round_id if machine.round is not None else ""

    def shown(output: out.Output) -> None:  # on the loop's thread: the round as the output is handed over
        console.on_output(output, loop.inspect(in_play))

    loop.subscribe(shown, KINDS)
    return console


def door(station: Station, who: str, line: bytes) -> dict[str, Any]:
    """A request from the console for ``who``, signed in there: the role is the
    configuration's, the checks are the control socket's."""
    user = next((u for u in station.config.control.users if u.name == who and u.pin_scrypt), None)
    if user is None or station.control is None:
        return {"ok": False, "error": f"{who} may not use the console"}
    return station.control.serve_line(Actor(user.role, user.name), line)


def people(station: Station, news: dict[str, Any]) -> None:
    """Who signed in at the console, or was refused there: a dealer signing in with their PIN
    takes the table (unless they have it already); a refusal is journaled (docs/dealers.md)."""
    loop = station.loop
    if loop is None:
        return
    if "refused" in news:
        station.refusals.refused("console", str(news.get("reason", "refused"))[:200], str(news["refused"]))
        return
    user = next((u for u in station.config.control.users if u.name == news.get("signed_in") and u.pin_scrypt), None)
    if user is not None and user.role == "dealer" and loop.published.dealer != user.name:
        loop.post(DealerSignedIn(user.name, Actor(user.role, user.name), "console"))


def table_layout(station: Station) -> TableLayout:
    from station.console.view import TableLayout
    from station.money import Money

    t, rules, table = station.config.table, station.options.rules, station.options.table
    boxes = [str(n) for n in range(1, t.boxes + 1)]
    boxes += [f"S{n}" for n in range(1, int(getattr(table, "standing_regions", 0)) + 1)]
    return TableLayout(
        station.config.station.name, rules.name, rules.title, rules.variant_of(table), tuple(boxes), rules.regions,
        rules.carry_regions, t.players_per_box, tuple(sorted(t.chips)), t.min_bet, t.max_bet,
        Money(t.minor_digits, t.currency), t.timezone, rules.choices, rules.betting_choices, rules.payout_options,
        rules.late_bets,
    )


def console_settings(station: Station) -> dict[str, Any]:
    """What the console's process is told at start (over its socket, never its command line)."""
    section, t = station.config.console, station.config.table
    return {
        "host": section.bind, "port": section.port, "idle_s": section.idle_seconds,
        "max_connections": section.max_connections, "tls_cert": section.tls_cert, "tls_key": section.tls_key,
        "users": [{"name": u.name, "role": u.role, "pin_scrypt": u.pin_scrypt}
                  for u in station.config.control.users if u.pin_scrypt],
        "recall": {"journal": str(station.journal_path), "config": str(station.loaded.path),
                   "timezone": t.timezone, "digits": t.minor_digits, "currency": t.currency},
    }
