"""``station demo``: the real service code path, simulated devices and dealer, bounded.

The same :class:`~station.service.app.Station` as ``station run``, with a temporary durable
journal (unless ``--journal`` is given), no control socket, the simulation plug-in
(:mod:`station.sim`) with its dealer playing a set number of shoes, and two extensions of its
own: the report of what was dealt and the bounds that stop the run. It then prints what
happened; with ``--json``, one JSON object per line as it happens (documented in docs/demo.md);
at human pace, a line per round as it is settled. Times are the table's (``[table] timezone``),
money in its currency.

A demo never speaks for the real table on the casino floor: whatever the configuration's
``[floor]`` says, it publishes nothing unless ``--floor`` asks, and then under the table's id
with ``-demo`` appended (docs/demo.md). A pit page once showed a demo's rounds as the table's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from station.cli.commands.run import serve
from station.cli.configuration import load_station_config
from station.cli.exits import Status, config_status
from station.cli.main import CliError
from station.cli.progress import Progress
from station.config.errors import ConfigError
from station.core import outputs as out
from station.floor.settings import table_id
from station.journal.store import format_time, utc_now
from station.localtime import clock_time, local, local_time, zone
from station.money import format_money
from station.service.config import LoadedConfig, simulated_bet_problem
from station.service.extension import StationHooks
from station.service.paths import default_config_path
from station.sim.shoe_file import ShoeFileError, parse_shoe_file

BOX_RESULT = re.compile(r"box (\S+):(\S+)")
#: A continuous shuffler has no shoe end: ``--shoes N`` then means N times this many rounds.
ROUNDS_PER_CONTINUOUS_SHOE = 80
#: What a demo's table id and MQTT client id end with on the floor: never the real table's.
DEMO_SUFFIX = "-demo"
#: The longest table id or client id the floor takes (``[floor] table`` and ``client_id``).
FLOOR_ID_MAX = 64


def _bet(text: str) -> tuple[str, int]:
    region, sep, amount = text.partition("=")
    if not sep or not amount.strip().isdigit() or int(amount) <= 0:
        raise argparse.ArgumentTypeError(f"--bet takes REGION=AMOUNT in minor units, e.g. banker=100; got {text!r}")
    return region.strip().lower(), int(amount)


def _round_numbers(round_id: str) -> tuple[int, int]:
    shoe, _, number = round_id.partition("-")
    return int(shoe), int(number)


def _baccarat_round(output: out.RoundSettled) -> tuple[list[str], dict[str, Any]]:
    """A baccarat round's line (docs/demo.md): the hands, totals and side results."""
    hands = {position: [c.code for c in cards] for position, cards in output.hands}
    totals = dict(output.totals)
    return [output.outcome], {
        "player": hands.get("player", []), "banker": hands.get("banker", []),
        "player_total": totals.get("player"), "banker_total": totals.get("banker"),
        "outcome": output.outcome, "natural": output.natural,
        "player_pair": output.player_pair, "banker_pair": output.banker_pair,
    }


def _war_round(output: out.RoundSettled) -> tuple[list[str], dict[str, Any]]:
    """A Casino War round's line: each position's cards and ranks, and each box's result."""
    return [result for _box, result in BOX_RESULT.findall(output.outcome)], {
        "game": "war", "cards": {position: [c.code for c in cards] for position, cards in output.hands},
        "ranks": dict(output.totals), "outcome": output.outcome,
    }


#: How each game's settled round is reported, by the game's configured name.
ROUND_RECORDS = {"baccarat": _baccarat_round, "war": _war_round}

_BACCARAT_WORDS = {"banker": "Banker wins", "player": "Player wins", "tie": "Tie"}


def _baccarat_line(output: out.RoundSettled) -> str:
    """A baccarat round as a person reads it: "Banker wins, Player 5 to Banker 7, natural"."""
    totals = dict(output.totals)
    marks = [mark for mark, shown in (("natural", output.natural), ("Player pair", output.player_pair),
                                      ("Banker pair", output.banker_pair)) if shown]
    words = f"{_BACCARAT_WORDS.get(output.outcome, output.outcome)}, Player {totals.get('player')} to Banker " \
            f"{totals.get('banker')}"
    return ", ".join([words, *marks])


def _war_line(output: out.RoundSettled) -> str:
    """A Casino War round as a person reads it: "box 1 win, box 3 war-win"."""
    return ", ".join(f"box {box} {result}" for box, result in BOX_RESULT.findall(output.outcome))


#: How each game's settled round is written on a line, by the game's configured name.
ROUND_LINES = {"baccarat": _baccarat_line, "war": _war_line}


class _Subscriber:
    """An extension that only listens (see :mod:`station.service.extension`)."""

    kinds: tuple[type[out.Output], ...] = ()

    def prepare(self) -> dict[str, Any]:
        return {}

    def attach(self, hooks: StationHooks) -> None:
        self.hooks = hooks
        hooks.subscribe(self, self.kinds)

    def halt(self) -> None:
        """Nothing to stop: it produces no input."""

    def close(self) -> None:
        """Nothing to release."""

    def __call__(self, output: out.Output) -> None:
        raise NotImplementedError


class DemoBounds(_Subscriber):
    """Stops the run once it has dealt the shoes (or rounds) asked for."""

    kinds = (out.RoundSettled, out.ShoeEnded)

    def __init__(self, shoes: int, rounds: int, progress: Callable[[int], None] | None = None) -> None:
        """``progress`` is told the rounds settled (a round limit) or the shoes ended so far."""
        self.shoes, self.rounds = shoes, rounds
        self.shoes_ended = self.rounds_settled = 0
        self.reached = False
        self.progress = progress

    def __call__(self, output: out.Output) -> None:
        if isinstance(output, out.RoundSettled):
            self.rounds_settled += 1
            if self.rounds and self.progress is not None:
                self.progress(self.rounds_settled)
            if self.rounds and self.rounds_settled >= self.rounds:
                self._stop("round limit reached")
        elif isinstance(output, out.ShoeEnded):
            self.shoes_ended += 1
            if not self.rounds and self.progress is not None:
                self.progress(self.shoes_ended)
            if self.shoes and self.shoes_ended >= self.shoes:
                self._stop("shoe limit reached")

    def _stop(self, reason: str) -> None:
        self.reached = True
        self.hooks.request_stop(reason)


class DemoReport(_Subscriber):
    """Collects (and with ``--json`` streams) what the demo dealt, each record with its time in
    the table's zone; with ``lines``, a line per round as it is settled (a demo at human pace
    would otherwise print nothing for an hour), at its local time and with the money in the
    table's currency.

    An output nobody reads any more (``station demo --json | head -3``) ends the demo: the
    first write that fails asks the station to stop, and nothing more is written."""

    #: The outputs it reports (the core loop calls it for these only).
    kinds = (out.ShoeStarted, out.RoundSettled, out.RoundVoided, out.ShoeEnded, out.Refused, out.ChipPaymentChecked,
             out.ChipsMoved, out.ChipPaymentHeld)

    def __init__(self, stream: TextIO | None, lines: TextIO | None = None, *, timezone: str = "UTC",
                 digits: int = 0, currency: str = "", clock: Callable[[], datetime] = utc_now) -> None:
        self.stream = stream
        self.lines = lines
        self.closed = False
        self.zone = zone(timezone)
        self.digits, self.currency = digits, currency
        self._clock = clock
        self.rounds = 0
        self.shoes = 0
        self.outcomes: Counter[str] = Counter()
        self.house_net = 0
        self.voided = 0
        self.refusals: list[str] = []
        #: At a chip table: each box's payment as last checked, by (round, box); chips moved; wrong payments.
        self.payments: dict[tuple[str, str], str] = {}
        self.chips_moved = self.wrong_payments = 0
        self.first_time = self.last_time = ""  # journal times (UTC) of the first and last record

    def money(self, amount: int, signed: bool = False) -> str:
        """An amount as the table writes it: "+19.00 EUR"."""
        return ("+" if signed and amount > 0 else "") + format_money(amount, self.digits, self.currency)

    def _emit(self, record: dict[str, Any], line: str = "") -> None:
        """One thing dealt, now: a JSON record with its local time, and a person's line."""
        now = format_time(self._clock())
        self.first_time = self.first_time or now
        self.last_time = now
        if self.stream is not None:
            self._write(self.stream, json.dumps({**record, "time": local(now, self.zone).isoformat(timespec="seconds")})
                        + "\n")
        if self.lines is not None and line:
            self._write(self.lines, f"{clock_time(now, self.zone)}  {line}\n")

    def _write(self, stream: TextIO, text: str) -> None:
        if self.closed:
            return
        try:
            stream.write(text)
            stream.flush()
        except BrokenPipeError:
            self.closed = True
            quiet_closed_output()
            self.hooks.request_stop("output closed")

    def span(self) -> str:
        """When the demo dealt, as people read it: "2026-12-01 21:40:02 CET to 21:52:10 CET"."""
        if not self.first_time:
            return ""
        last = local(self.last_time, self.zone)
        same_day = local(self.first_time, self.zone).date() == last.date()
        end = last.strftime("%H:%M:%S %Z") if same_day else local_time(self.last_time, self.zone)
        return f"{local_time(self.first_time, self.zone)} to {end}"

    def __call__(self, output: out.Output) -> None:
        if isinstance(output, out.ShoeStarted):
            self.shoes += 1
            self._emit({"type": "shoe", "shoe": output.shoe,
                        "exposed": output.exposed.code if output.exposed else None,
                        "burned": [c.code for c in output.burned]})
        elif isinstance(output, out.RoundSettled):
            self.rounds += 1
            self.house_net += output.house_net
            shoe, number = _round_numbers(output.round_id)
            bets = [{"box": b.box, "player": b.player, "region": b.region, "stake": b.stake, "valid": b.valid,
                     "void": b.void, "outcome": b.outcome, "net": b.net} for b in output.bets]
            outcomes, record = ROUND_RECORDS[output.game](output)
            self.outcomes.update(outcomes)
            record = {"type": "round", "shoe": shoe, "round": number, **record, "bets": bets}
            record["house_net"] = output.house_net
            self._emit(record, f"round {output.round_id}: {ROUND_LINES[output.game](output)}; "
                               f"house {self.money(output.house_net, signed=True)}")
        elif isinstance(output, out.RoundVoided):
            self.voided += 1
            self._emit({"type": "void", "round": output.round_id, "reason": output.reason},
                       f"round {output.round_id}: void: {output.reason}")
        elif isinstance(output, out.ShoeEnded):
            self._emit({"type": "shoe_end", "shoe": output.shoe, "rounds": output.rounds})
        elif isinstance(output, out.ChipPaymentChecked):
            self.payments[(output.round_id, output.box)] = output.verdict
        elif isinstance(output, out.ChipsMoved):
            self.chips_moved += 1
        elif isinstance(output, out.ChipPaymentHeld):
            self.wrong_payments += 1
        elif isinstance(output, out.Refused):
            self.refusals.append(f"{output.what}: {output.reason}")
            self._emit({"type": "refused", "what": output.what, "reason": output.reason})

    def summary(self) -> dict[str, Any]:
        times = {name: local(text, self.zone).isoformat(timespec="seconds")
                 for name, text in (("first", self.first_time), ("last", self.last_time)) if text}
        return {"type": "summary", "shoes": self.shoes, "rounds": self.rounds, "outcomes": dict(self.outcomes),
                "voided": self.voided, "house_net": self.house_net, "refused": len(self.refusals), **times,
                **({"chips": {"payments_checked": len(self.payments),
                              "payments_right": sum(v == "right" for v in self.payments.values()),
                              "chips_moved": self.chips_moved, "wrong_payments": self.wrong_payments}}
                   if self.payments or self.chips_moved or self.wrong_payments else {})}


def quiet_closed_output() -> None:
    """Standard output's reader has gone: point the descriptor at /dev/null, so that nothing
    written later (the interpreter's last flush included) fails again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _playable(loaded: LoadedConfig, bets: list[tuple[str, int]]) -> None:
    """Refuse, before anything starts, a demo that could never play: the simulated dealer
    deals from simulated devices only, and bets every round on regions the game has."""
    devices = loaded.config.devices
    for name in ("shoe", "shuffler"):
        section = getattr(devices, name)
        if section is not None and not section.url.startswith("sim:"):
            raise CliError(f"{loaded.path}: devices.{name}.url is {section.url!r}: the demo's simulated dealer "
                           f"deals only on simulated devices (url = \"sim:\"); use the default configuration or "
                           "one of `station config examples`")
    for region, amount in bets:
        problem = simulated_bet_problem(loaded.config.table, region, amount)
        if problem is not None:
            raise CliError(f"--bet {region}={amount}: {problem}")


def _marked(ident: str) -> str:
    """An id on the floor made a demo's: ``BAC-01`` -> ``BAC-01-demo`` (shortened to fit)."""
    return ident[:FLOOR_ID_MAX - len(DEMO_SUFFIX)] + DEMO_SUFFIX


@dataclass(frozen=True)
class DemoFloor:
    """What the demo is to the floor: the real table's id, the demo's, and whether it publishes."""

    table: str
    """The real table's id (``[floor] table``, or made from the station's name)."""
    demo_table: str
    publishes: bool
    broker: str
    configured: bool
    """The configuration's ``[floor]`` is on: the real table publishes there."""

    def line(self) -> str:
        """The summary's word on the floor, for a person ("" when there is nothing to say)."""
        if self.publishes:
            return f"floor: published as {self.demo_table} to {self.broker}, never as {self.table}"
        if self.configured:
            return (f"floor: nothing published (a demo never speaks for {self.table}; --floor publishes it as "
                    f"{self.demo_table})")
        return ""


def demo_floor(loaded: LoadedConfig, publish: bool) -> tuple[LoadedConfig, DemoFloor]:
    """The configuration the demo runs under, and what it is to the floor.

    Its ``[floor]`` is the configuration's with the feed off, unless ``publish`` (``--floor``)
    turns it on; either way under the table's id marked ``-demo`` (the anchors it logs name
    that id too), with a client id of its own (a broker drops the older of two connections with
    one client id: the demo would cut the real station off), and in no place in the pit (no
    ``pit``, no ``number``: the pit page does not seat it at the real table's place)."""
    floor = loaded.config.floor
    real = table_id(floor, loaded.config.station.name)
    if publish and not floor.broker:
        raise CliError(f"--floor: {loaded.path}: floor.broker is not set: the demo publishes to the broker of the "
                       "configuration's [floor]")
    changes: dict[str, Any] = {"enabled": publish, "table": _marked(real), "pit": "", "number": 0}
    if floor.client_id:
        changes["client_id"] = _marked(floor.client_id)
    config = loaded.config.model_copy(update={"floor": floor.model_copy(update=changes)})
    return LoadedConfig(loaded.path, config), DemoFloor(real, _marked(real), publish, floor.broker, floor.enabled)


def _run(args: argparse.Namespace) -> int:
    try:
        loaded = load_station_config(args.config or default_config_path())
    except ConfigError as exc:
        raise CliError(str(exc), config_status(exc, bool(args.config))) from None
    _playable(loaded, list(args.bet or []))
    stacked = None
    if args.shoe_file:
        try:
            stacked = parse_shoe_file(Path(args.shoe_file).read_text(), args.shoe_file)
        except OSError as exc:
            raise CliError(f"cannot read {args.shoe_file}: {exc.strerror}") from None
        except ShoeFileError as exc:
            raise CliError(str(exc)) from None
    if args.shoes < 1:
        raise CliError("--shoes must be at least 1")
    from station.config.options import core_options
    from station.floor.service import setting_problems
    from station.host.logging import configure_logging
    from station.service.app import RunOptions, Station
    from station.sim.plugin import DealerOverrides, Simulation

    table = loaded.config.table
    configure_logging("console" if not args.json else "json", "warning" if not args.verbose else "info",
                      stream=sys.stderr, timezone=table.timezone)  # a person's lines in the table's time
    report = DemoReport(sys.stdout if args.json else None, None if args.json or args.fast else sys.stdout,
                        timezone=table.timezone, digits=table.minor_digits, currency=table.currency)
    continuous = loaded.config.table.equipment == "continuous"
    with tempfile.TemporaryDirectory(prefix="station-demo-") as scratch:
        rounds = args.rounds or (args.shoes * ROUNDS_PER_CONTINUOUS_SHOE if continuous else 0)
        # How far a long demo has come, when its rounds are not printed as they go (--fast, --json).
        progress = (Progress("demo", rounds or args.shoes, unit="round" if rounds else "shoe", look_every=1)
                    if args.fast or args.json else None)
        bounds = DemoBounds(shoes=0 if continuous else args.shoes, rounds=rounds, progress=progress)
        journal = args.journal or str(Path(scratch) / "journal.sqlite3")
        try:
            # The configuration's [floor] is refused as `station run` would refuse it (its files
            # included), though the demo publishes under it only with --floor, and as a demo.
            problems = setting_problems(loaded.config, Path(journal))
            if problems:
                raise ConfigError(loaded.path, problems)
            demo, floor = demo_floor(loaded, args.floor)
            simulation = Simulation(demo.config, core_options(demo.config, demo.path), DealerOverrides(
                simulated=True, pace_s=0.0 if args.fast else None, seed=args.seed, stacked_shoe=stacked,
                bets=dict(args.bet) if args.bet else None, rounds=rounds, gives_up=True,
            ), config_path=demo.path)
            run = RunOptions(journal=journal, control_socket=False, hold_devices=False,
                             extensions=(simulation, report, bounds))
            station = Station(demo, run)
        except ConfigError as exc:
            raise CliError(str(exc), Status.CONFIG) from None
        with progress if progress is not None else contextlib.nullcontext():
            serve(station)
        dealer_error = simulation.error if simulation.table is not None else "no simulated dealer"
    if report.closed:
        return 0  # the reader has what it wanted (`| head`): nothing more to say, to anyone
    summary = report.summary()
    if floor.publishes:
        summary["floor"] = {"table": floor.demo_table, "broker": floor.broker}
    if args.json:
        print(json.dumps(summary))
    else:
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(summary["outcomes"].items()))
        print(f"{loaded.config.station.name}: {summary['shoes']} shoe(s), {summary['rounds']} rounds ({outcomes})")
        if report.span():
            print(f"dealt {report.span()}")
        print(f"house result: {report.money(summary['house_net'], signed=True)}; voided rounds: {summary['voided']}; "
              f"refused inputs: {summary['refused']}")
        chips = summary.get("chips")
        if chips:
            print(f"chips: {chips['payments_checked']} payments checked in the payout zones, {chips['payments_right']} "
                  f"right; {chips['wrong_payments']} wrong payments; {chips['chips_moved']} chips moved after no more "
                  "bets or left on a losing spot")
        for reason in sorted(set(report.refusals)):
            print(f"  refused: {reason}")
        if floor.line():
            print(floor.line())
    if dealer_error and not bounds.reached:
        print(f"station demo: stopped early: {dealer_error or station.stop_reason}", file=sys.stderr)
        return 1
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("demo", help="play shoes on simulated devices with a simulated dealer, then summarise")
    parser.add_argument("-c", "--config", help="configuration file (default: config/station.toml)")
    parser.add_argument("--shoes", type=int, default=1, help="shoes to play (default 1)")
    parser.add_argument("--rounds", type=int, default=0, help="stop after this many rounds instead")
    parser.add_argument("--seed", type=int, default=1, help="seed of the simulated shuffles (default 1)")
    parser.add_argument("--fast", action="store_true", help="no pauses: the dealer acts as fast as the station allows")
    parser.add_argument(
        "--shoe-file", help="stacked shoe: card codes in draw order, first exposed for the burn, CUT for the cut card"
    )
    parser.add_argument("--bet", action="append", type=_bet, metavar="REGION=AMOUNT",
                        help="bet for one player in box 1 every round, in minor units (repeatable)")
    parser.add_argument("--journal", help="keep the journal here instead of a temporary file")
    parser.add_argument("--floor", action="store_true",
                        help="publish to the configuration's [floor] broker, as <table>-demo (never as the table)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line as the shoes are dealt")
    parser.add_argument("-v", "--verbose", action="store_true", help="log the station's events to stderr")
    parser.set_defaults(handler=_run)
