"""Starting the dealer's console with a station (called once by ``Station.start``).

Two things happen here, in this order, before the core loop runs:

1. the payout-confirmation rule is journaled when it is not what the journal last said: the
   next round waits for the payouts' confirmation when the console runs with ``[console]
   confirm_payouts`` (the default), and not otherwise, so the journal records which rule
   each round was paid under and replays it exactly, whatever the configuration says later;
2. when ``[console] enabled`` and the control socket runs (the console's door: a demo has
   neither), the console's process starts (:class:`~station.console.feed.ConsoleProcess`) with
   a picture resumed from the replayed machine, and the core loop's outputs feed it (at a table
   with a chip reader, with the core's chips taken again once a step has touched its layout).

The console reaches the table only through the control socket's own checks: each request
is answered by :meth:`~station.service.control.ControlServer.serve_line` for the user signed
in, with the role the configuration gives that user. The station hands the console what it
needs and no more (:class:`ConsoleWiring`): the loop, its sections of the configuration, the
control socket's door and the journal of refusals.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from station.config.table import TableSection
from station.config.users import ControlUser
from station.console.settings import ConsoleSection
from station.core import outputs as out
from station.core.options import CoreOptions
from station.core.tap import LoopTap
from station.events import Actor, DealerSignedIn, DealerSignedOut, PayoutConfirmationRequired

if TYPE_CHECKING:
    from station.console.feed import ConsoleProcess
    from station.console.view import TableLayout
    from station.core.machine import TableMachine

#: The control socket's door: a request line for a person, answered as the socket answers it.
Door = Callable[[Actor, bytes], dict[str, Any]]
#: Journals a refusal at a door: (door, reason, who).
Refused = Callable[[str, str, str], None]


@dataclass(frozen=True)
class ConsoleWiring:
    """What the console is given by the station that starts it."""

    loop: LoopTap
    options: CoreOptions
    section: ConsoleSection
    users: Sequence[ControlUser]
    table: TableSection
    table_name: str
    config_path: Path
    journal_path: Path
    #: The control socket's door; None when the socket does not run (a demo): no console then.
    door: Door | None
    refused: Refused
    #: The chip reader has an antenna under the tray: the tray form offers its count (docs/tray.md).
    tray_antenna: bool = False


def start_console(station: ConsoleWiring) -> ConsoleProcess | None:
    """Journal the confirmation rule if it changed; start the console if it is wanted."""
    loop, section = station.loop, station.section
    wanted = section.enabled and station.door is not None
    if (wanted and section.confirm_payouts) != loop.published.confirm_payouts:
        loop.post(PayoutConfirmationRequired(wanted and section.confirm_payouts))
    if not wanted:
        return None
    from station.config.errors import ConfigError
    from station.console.feed import ConsoleProcess
    from station.console.view import KINDS, ConsoleView

    for key in ("tls_cert", "tls_key"):
        path = getattr(section, key)
        if path and not os.access(path, os.R_OK):
            raise ConfigError(station.config_path, [(f"console.{key}", f"cannot read {path}")])
    view = ConsoleView(table_layout(station))
    loop.inspect(view.resume)  # start-up, before the loop runs: the machine as the replay left it
    console = ConsoleProcess(console_settings(station), view, lambda who, line: door(station, who, line),
                             lambda news: people(station, news)).start()

    def in_play(machine: TableMachine) -> str:
        return machine.round.round_id if machine.round is not None else ""

    taken_at: list[tuple[int, int]] = [(0, -1)]  # the layout (and its version) whose chips were taken last

    def chips_now(machine: TableMachine) -> Mapping[str, Any] | None:
        """The core's chips when a step touched the layout since they were taken last (None: not),
        as the snapshot takes them: a busy table's outputs do not each rebuild the view."""
        layout = machine.chip_layout
        if layout is None or (id(layout), layout.version) == taken_at[0]:
            return None
        taken_at[0] = (id(layout), layout.version)
        return machine.chip_view()

    def shown(output: out.Output) -> None:  # on the loop's thread: the round as the output is handed over
        console.on_output(output, loop.inspect(in_play), loop.inspect(chips_now))

    loop.subscribe(shown, KINDS)
    loop.hear_batches(console.on_batch_end)
    end_sessions_of_the_last_run(station)
    return console


def end_sessions_of_the_last_run(station: ConsoleWiring) -> None:
    """Sessions at the console end with the station: a dealer who took the table there before
    it stopped is not at the screen any more, so they leave the table (journaled as the idle
    sweep journals it) and take it again when they sign in. Without this the table would stay
    theirs with nobody at the screen, and on the simulated table its simulated dealer would play
    on while they sign in again (a sign-in as the dealer already at the table changes nothing)."""
    loop = station.loop
    dealer = loop.published.dealer
    if not dealer:
        return
    came = loop.journal.last_of_kind("DealerSignedIn")
    if came is None or came.payload.get("dealer") != dealer or came.payload.get("door") != "console":
        return  # they took it at the button box or by ctl: they are at the table, not at this screen
    user = next((u for u in station.users if u.name == dealer), None)
    loop.post(DealerSignedOut(dealer, Actor(user.role if user is not None else "dealer", dealer), "console"))


def door(station: ConsoleWiring, who: str, line: bytes) -> dict[str, Any]:
    """A request from the console for ``who``, signed in there: the role is the
    configuration's, the checks are the control socket's."""
    user = next((u for u in station.users if u.name == who and u.pin_scrypt), None)
    if user is None or station.door is None:
        return {"ok": False, "error": f"{who} may not use the console"}
    return station.door(Actor(user.role, user.name), line)


def people(station: ConsoleWiring, news: dict[str, Any]) -> None:
    """Who signed in at the console, signed out, or was refused there: a dealer signing in with
    their PIN takes the table (unless they have it already), and leaves it when their last
    session there ends; a refusal is journaled (docs/dealers.md)."""
    loop = station.loop
    if "refused" in news:
        station.refused("console", str(news.get("reason", "refused"))[:200], str(news["refused"]))
        return
    if "signed_out" in news:  # a dealer's last session at the console ended: they left the table
        user = next((u for u in station.users if u.name == news["signed_out"] and u.pin_scrypt), None)
        if user is not None and loop.published.dealer == user.name:
            loop.post(DealerSignedOut(user.name, Actor(user.role, user.name), "console"))
        return
    user = next((u for u in station.users if u.name == news.get("signed_in") and u.pin_scrypt), None)
    if user is not None and user.role == "dealer" and loop.published.dealer != user.name:
        loop.post(DealerSignedIn(user.name, Actor(user.role, user.name), "console"))


def table_layout(station: ConsoleWiring) -> TableLayout:
    from station.config.chip_colours import chip_colour
    from station.console.view import TableLayout
    from station.money import Money

    t, rules, table = station.table, station.options.rules, station.options.table
    boxes = [str(n) for n in range(1, t.boxes + 1)]
    boxes += [f"S{n}" for n in range(1, int(getattr(table, "standing_regions", 0)) + 1)]
    chips = tuple(sorted(t.chips))
    return TableLayout(
        station.table_name, rules.name, rules.title, rules.variant_of(table), tuple(boxes), rules.regions_of(table),
        rules.carry_regions, t.players_per_box, chips, t.min_bet, t.max_bet,
        Money(t.minor_digits, t.currency), t.timezone, rules.choices, rules.betting_choices, rules.payout_options,
        rules.late_bets, tuple(chip_colour(chip, t.minor_digits, t.chip_colours) for chip in chips),
        dict(t.chip_colours),
        progressive_seed=None if station.options.progressive is None else station.options.progressive.seed,
        tray_antenna=station.tray_antenna,
    )


def console_settings(station: ConsoleWiring) -> dict[str, Any]:
    """What the console's process is told at start (over its socket, never its command line)."""
    section, t = station.section, station.table
    return {
        "host": section.bind, "port": section.port, "idle_s": section.idle_seconds,
        "max_connections": section.max_connections, "tls_cert": section.tls_cert, "tls_key": section.tls_key,
        "users": [{"name": u.name, "role": u.role, "pin_scrypt": u.pin_scrypt}
                  for u in station.users if u.pin_scrypt],
        "recall": {"journal": str(station.journal_path), "config": str(station.config_path),
                   "timezone": t.timezone, "digits": t.minor_digits, "currency": t.currency},
    }
