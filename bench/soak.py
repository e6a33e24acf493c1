"""The soak: every shipped configuration under the real ``station run``, hurt from outside.

Run: ``.venv/bin/python bench/soak.py [--seconds 3600] [--every 4] [--seed 1] [--faults ...]``

Every shipped configuration (``config/station.toml`` and each of ``config/examples/``; the
production template filled in for a bench of simulators, tests/shipped.py) runs under ``station
run`` at once, each with its simulated dealer at full speed, its floor feed to one real
mosquitto (Debian's, started here), its console and scoreboard on, its journal on a file
system of its own (a tmpfs the soak mounts: root only), and its wall clock steppable
(tests/wallclock.py: a preloaded shim, the monotonic clock left alone). One paho consumer
keeps what the floor feed publishes, as a pit's consumer would.

Every ``--every`` seconds (on average) a fault, the kinds taken in a shuffled round so that
each comes about as often, on a table taken at random:

- ``kill_station``: SIGKILL of ``station run``; its children must be gone within 15 s (no
  orphan), and it is started again (as systemd's ``Restart=on-failure`` would);
- ``kill_console``, ``kill_scoreboard``, ``kill_outbox``: SIGKILL of that child; the station
  must start a new one within 90 s (they step back from the table) and go on;
- ``kill_table``: SIGKILL of the simulated table's process; the station must stop with status
  70 (a part could not go on), and is started again;
- ``unplug`` (a device for 1-3 s), ``reboot`` (a device's power cycle), ``lost_answer`` (the
  device does not answer the next command): through the simulated table's fault door
  (``station simulate fault``);
- ``broker``: mosquitto stopped for 2-6 s, then started on its port;
- ``disk_full``: the journal's file system filled to its last byte for 2-5 s, then freed;
- ``clock_step``: the station's wall clock stepped by 1 minute to 2 hours, forward or back.

Faults stop rounds for a person (a shoe lost in the middle of a round): as at a real table, a
supervisor decides, here the soak's, over the control socket (``resume`` where allowed, else
``void``), and a pause is resumed. Throughout: a station that exits by itself is a violation,
unless the soak killed its table (then it must exit 70); a table that settles no round for 60
s while its station runs has stalled; every ``--verify-every`` seconds one table's journal
must pass ``station journal verify --deep``. After ``--seconds``, ten quiet seconds, then SIGTERM to
every station (each must exit 0), and from the outside (bench/soak_checks.py): ``verify
--deep`` passes; every round the station announced is in the journal with its result, none
announced twice; the floor's consumer has every round of every journal exactly once;
``station meters`` equals the sum of the rounds; no traceback in any log; no process of any
station is left, no port open. Prints the faults injected and every invariant with its figures; exits 1 on any
violation. ``tests/service/test_soak.py`` runs about two minutes of it in the suite;
docs/benchmarks.md records a run of an hour.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.soak_checks import (  # noqa: E402
    Finding,
    deep_verify,
    expected_rounds,
    floor_against_journal,
    meters_against_rounds,
    no_tracebacks,
    rounds_against_journal,
)
from bench.soak_table import SoakTable, port_open, processes_naming  # noqa: E402
from tests.shipped import SHIPPED  # noqa: E402
from tests.wallclock import WallClock, WallClockUnavailable  # noqa: E402

FAULTS = ("kill_station", "kill_console", "kill_scoreboard", "kill_outbox", "kill_table", "unplug", "reboot",
          "lost_answer", "broker", "disk_full", "clock_step")
EXIT_TABLE_GONE = 70
#: How often the soak's supervisor looks at each table, and how long a table may settle nothing.
SUPERVISE_EVERY_S = 2.0
STALL_S = 60.0
#: How long a child the soak killed may take to be running again: the scoreboard and the
#: console step back from the table (nice 10), and seven tables at full speed on two CPUs leave
#: them little; the scoreboard is started again after a 60 s wait at worst.
CHILD_BACK_S = 90.0


@dataclass
class Report:
    seconds: float = 0.0
    faults: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)  # faults a table could not take then
    decisions: Counter[str] = field(default_factory=Counter)  # the supervisor's, by decision
    unavailable: dict[str, str] = field(default_factory=dict)  # faults this machine cannot make, and why
    figures: dict[str, dict[str, Any]] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def say(self, line: str) -> None:
        self.lines.append(line)
        print(line, flush=True)


@dataclass
class Options:
    seconds: float = 3600.0
    every: float = 4.0
    seed: int = 1
    faults: tuple[str, ...] = FAULTS
    verify_every: float = 300.0
    configs: tuple[Path, ...] = SHIPPED
    folder: Path | None = None
    keep: bool = False
    pace_ms: int = 0  # the simulated dealer's time per action: 0 is full speed


class Soak:
    """The tables, the broker, the consumer and the faults of one soak."""

    def __init__(self, options: Options, report: Report) -> None:
        from tests.floor.helpers import MOSQUITTO, Broker, Subscriber

        if not MOSQUITTO.exists():
            raise SystemExit("the soak needs Debian's mosquitto (/usr/sbin/mosquitto; apt-get install mosquitto)")
        self.options = options
        self.report = report
        self.rng = random.Random(options.seed)
        self.folder = options.folder or Path(tempfile.mkdtemp(prefix="station-soak-"))
        (self.folder / "broker").mkdir(parents=True, exist_ok=True)
        self.broker = Broker(self.folder / "broker", persistence=True).start()
        self.consumer = Subscriber(self.broker.port, "#", client_id="soak-floor-consumer")
        mount = os.geteuid() == 0 and shutil.which("mount") is not None
        self.tables: list[SoakTable] = []
        for source in options.configs:
            try:
                clock: WallClock | None = WallClock(self.folder / source.stem / "clock")
            except WallClockUnavailable as exc:
                clock = None
                report.unavailable["clock_step"] = str(exc)
            table = SoakTable(source, self.folder / source.stem, self.broker.url, clock, options.pace_ms)
            table.prepare(mount)
            self.tables.append(table)
        if not all(t.own_disk for t in self.tables):
            report.unavailable["disk_full"] = ("a journal's disk of its own needs a tmpfs the soak mounts (root and "
                                               "mount(8)); here it could not mount one")
        self.kinds = [kind for kind in options.faults if kind not in report.unavailable]
        self.cycle: list[str] = []
        self.station_pids: set[int] = set()
        self.supervised: dict[str, float] = {}  # table -> when its supervisor last looked
        self.progress: dict[tuple[str, int], tuple[int, float]] = {}  # (table, run) -> (settled, since)
        self.stalled: set[tuple[str, int]] = set()

    # --- the loop --------------------------------------------------------------------------

    def run(self) -> None:
        started = time.monotonic()
        for table in self.tables:
            self._start(table)
        self._wait(lambda: all(t.ready() for t in self.tables), 120, "every station ready")
        deadline = time.monotonic() + self.options.seconds
        next_verify = time.monotonic() + self.options.verify_every
        verified = 0
        checking: tuple[SoakTable, threading.Thread, list[Finding]] | None = None
        while time.monotonic() < deadline:
            self._tend(self.rng.uniform(self.options.every / 2, self.options.every * 1.5))
            kind = self._next_kind()
            able = [t for t in self.tables if self._can(kind, t)]
            if not able:
                self.report.unavailable[kind] = "no table has what it needs"
                self.kinds.remove(kind)
                continue
            table = self.rng.choice(able)
            words = self._inject(kind, table)
            self.report.say(f"{time.monotonic() - started:7.1f} s  {kind:<15} {table.name:<20} {words}")
            if checking is not None and not checking[1].is_alive():  # a verification beside the faults ended
                target, _, found = checking
                checking = None
                self._violations(target, found[0].violations)
                self.report.say(f"{time.monotonic() - started:7.1f} s  verify --deep   {target.name:<20} "
                                f"{found[0].figures['verify'][:90]}")
                next_verify = time.monotonic() + self.options.verify_every
            if checking is None and time.monotonic() >= next_verify:
                target = self.tables[verified % len(self.tables)]
                verified += 1
                checking = (target, *self._verify_beside(target))
        if checking is not None:
            checking[1].join()
        self._tend(10.0)  # a quiet end: everything catches up
        self.report.seconds = time.monotonic() - started

    @staticmethod
    def _verify_beside(table: SoakTable) -> tuple[threading.Thread, list[Finding]]:
        """``journal verify --deep`` of ``table``'s journal on a thread of its own: the faults go
        on meanwhile (a deep replay of a large journal takes minutes on a loaded machine)."""
        found: list[Finding] = []
        journal = table.copy.journal  # type: ignore[union-attr]
        thread = threading.Thread(target=lambda: found.append(deep_verify(journal)), name="soak-verify",
                                  daemon=True)
        thread.start()
        return thread, found

    def _can(self, kind: str, table: SoakTable) -> bool:
        """Whether ``table`` has what ``kind`` hurts (the production template has no console)."""
        assert table.copy is not None
        if kind == "kill_console":
            return bool(table.copy.console_url)
        if kind == "disk_full":
            return table.own_disk
        if kind == "clock_step":
            return table.clock is not None
        return True

    def _next_kind(self) -> str:
        if not self.cycle:
            self.cycle = list(self.kinds)
            self.rng.shuffle(self.cycle)
        return self.cycle.pop()

    def _start(self, table: SoakTable) -> None:
        run = table.start()
        self.station_pids.add(run.process.pid)

    def _tend(self, seconds: float) -> None:
        """Wait, starting again every station that has ended (as systemd would, after a second),
        deciding as a supervisor for every table that waits for one, and watching that every
        table goes on dealing."""
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            now = time.monotonic()
            for table in self.tables:
                if table.note_exit() is not None or not table.alive():
                    self._violations(table, [])
                    time.sleep(1.0)
                    self._start(table)
                    continue
                if now - self.supervised.get(table.name, 0.0) >= SUPERVISE_EVERY_S:
                    self.supervised[table.name] = now
                    decided = table.supervise()
                    if decided:
                        self.report.decisions[decided.split(":", 1)[0]] += 1
                        self.report.say(f"{'':9}  supervisor      {table.name:<20} {decided}")
                self._progress(table, now)
            time.sleep(0.25)

    def _progress(self, table: SoakTable, now: float) -> None:
        """A table that settles no round for ``STALL_S`` while its station runs has stalled."""
        run = table.current
        settled = table.settled()
        key = (table.name, run.number if run is not None else 0)
        last = self.progress.get(key)
        if last is None or settled != last[0]:
            self.progress[key] = (settled, now)
        elif now - last[1] >= STALL_S and key not in self.stalled:
            self.stalled.add(key)
            tail = run.log.read_text(errors="replace")[-800:] if run is not None else ""
            self.report.violations.append(f"{table.name}: no round settled for {STALL_S:g} s: {tail}")

    def _wait(self, condition: Callable[[], bool], timeout: float, what: str) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return True
            time.sleep(0.1)
        self.report.violations.append(f"waited {timeout:g} s for {what}")
        return False

    def _violations(self, table: SoakTable, found: list[str]) -> None:
        for words in [*table.problems, *found]:
            self.report.violations.append(words if words.startswith(table.name) else f"{table.name}: {words}")
        table.problems.clear()

    # --- faults ----------------------------------------------------------------------------

    def _inject(self, kind: str, table: SoakTable) -> str:
        if not table.alive() or not table.ready():
            self.report.skipped[kind] += 1
            self.cycle.insert(0, kind)
            return "skipped: the station is starting"
        words = str(getattr(self, f"_{kind}")(table))
        if words.startswith("skipped"):
            self.report.skipped[kind] += 1
            self.cycle.insert(0, kind)  # again later in this round of kinds: each kind is injected
        else:
            self.report.faults[kind] += 1
        return words

    def _kill_station(self, table: SoakTable) -> str:
        pid = table.kill("kill_station")
        if not self._wait(lambda: not processes_naming({pid}), 15, f"{table.name}'s processes to end with it"):
            self.report.violations.append(f"{table.name}: left behind by a killed station: {processes_naming({pid})}")
        self._start(table)
        return f"station {pid} killed; started again"

    def _kill_child(self, table: SoakTable, kind: str) -> str:
        before = table.children().get(kind)
        if before is None:
            return f"skipped: no {kind} process now"
        os.kill(before, signal.SIGKILL)
        back = self._wait(lambda: table.children().get(kind, before) != before, CHILD_BACK_S,
                          f"{table.name}'s new {kind}")
        return f"{kind} {before} killed; {'a new one runs' if back else 'NOT started again'}"

    def _kill_console(self, table: SoakTable) -> str:
        return self._kill_child(table, "console")

    def _kill_scoreboard(self, table: SoakTable) -> str:
        return self._kill_child(table, "scoreboard")

    def _kill_outbox(self, table: SoakTable) -> str:
        return self._kill_child(table, "outbox")

    def _kill_table(self, table: SoakTable) -> str:
        child = table.children().get("table")
        run = table.current
        if child is None or run is None:
            return "skipped: no simulated table process now"
        run.killed_by_soak = "kill_table"
        os.kill(child, signal.SIGKILL)
        try:
            status = run.process.wait(30)
        except Exception:
            self.report.violations.append(f"{table.name}: went on without its simulated table for 30 s")
            table.kill("kill_table")
            status = -9
        run.exit_status = status
        if status != EXIT_TABLE_GONE:
            self.report.violations.append(f"{table.name}: exited {status} when its simulated table was killed "
                                          f"(70 expected): {run.log.read_text(errors='replace')[-400:]}")
        self._start(table)
        return f"simulated table {child} killed; the station exited {status}; started again"

    def _devices(self, table: SoakTable) -> list[str]:
        return ["shoe", "display", *(["shuffler"] if table.copy and "shuffler" in table.copy.config.read_text()
                                     else [])]

    def _unplug(self, table: SoakTable) -> str:
        device = self.rng.choice(self._devices(table))
        return f"{device}: " + table.fault(device, "unplug", seconds=round(self.rng.uniform(1, 3), 1))

    def _reboot(self, table: SoakTable) -> str:
        device = self.rng.choice(self._devices(table))
        return f"{device}: " + table.fault(device, "reboot")

    def _lost_answer(self, table: SoakTable) -> str:
        device = self.rng.choice(self._devices(table))
        return f"{device}: " + table.fault(device, "drop_replies", count=1)

    def _broker(self, table: SoakTable) -> str:
        held = self.rng.uniform(2, 6)
        self.broker.stop()
        self._tend(held)
        self.broker.start()
        return f"broker stopped for {held:.1f} s, started again"

    def _disk_full(self, table: SoakTable) -> str:
        filler = table.fill_disk()
        if filler is None:
            return "skipped: no disk of its own"
        held = self.rng.uniform(2, 5)
        self._tend(held)
        table.free_disk(filler)
        return f"journal's disk full for {held:.1f} s, then freed"

    def _clock_step(self, table: SoakTable) -> str:
        assert table.clock is not None
        step = self.rng.choice((-1, 1)) * self.rng.uniform(60, 7200)
        table.clock.step(step)
        return f"wall clock stepped {step:+.0f} s (now {table.clock.offset_s:+.0f} s from the machine's)"

    # --- the end ---------------------------------------------------------------------------

    def finish(self) -> None:
        """Stop every station as systemd would, then check everything from outside."""
        for table in self.tables:
            status = table.stop()
            if status != 0:
                self.report.violations.append(f"{table.name}: exited {status} on SIGTERM (0 expected)")
            self._violations(table, [])
        left = processes_naming(self.station_pids)
        if left and not self._wait(lambda: not processes_naming(self.station_pids), 15, "no station process left"):
            self.report.violations.append(f"processes left after every station stopped: {left}")
        for table in self.tables:
            assert table.copy is not None
            for url in (table.copy.console_url, table.copy.web_url):
                if port_open(url):
                    self.report.violations.append(f"{table.name}: {url} still answers after the stop")
        for table in self.tables:
            self._check(table)

    def _check(self, table: SoakTable) -> None:
        assert table.copy is not None
        journal, config = table.copy.journal, table.copy.config
        figures: dict[str, Any] = {"runs": len(table.runs)}
        verified = deep_verify(journal)
        logs = [run.log for run in table.runs]
        rounds, kept = rounds_against_journal(logs, journal, config)
        meters = meters_against_rounds(journal, config, kept)
        floor_name = f"SOAK-{table.name}"
        expected = expected_rounds(journal, floor_name)  # once: the journal no longer changes
        self._wait(lambda: not floor_against_journal(self.consumer_messages(), expected, floor_name).violations, 30,
                   f"{table.name}'s floor feed to arrive")
        floor = floor_against_journal(self.consumer_messages(), expected, floor_name)
        for finding in (verified, rounds, meters, floor, no_tracebacks(logs)):
            figures.update(finding.figures)
            self._violations(table, finding.violations)
        self.report.figures[table.name] = figures

    def consumer_messages(self) -> list[dict[str, Any]]:
        with self.consumer.lock:
            return [m.payload for m in self.consumer.messages]

    def close(self) -> None:
        for table in self.tables:
            if table.alive():
                table.kill("the soak's close")
        self.consumer.close()
        self.broker.stop()
        keep = self.options.keep or bool(self.report.violations)
        for table in self.tables:
            if keep:
                table.keep_disk()  # its journal is on its tmpfs, gone once unmounted
            table.release()
        if keep:
            self.report.say(f"kept in {self.folder}")
        else:
            shutil.rmtree(self.folder, ignore_errors=True)


def soak(options: Options) -> Report:
    """Run one soak; the report says what was injected and what held."""
    report = Report()
    run = Soak(options, report)
    pace = f"dealers at {options.pace_ms} ms an action" if options.pace_ms else "dealers at full speed"
    report.say(f"soak in {run.folder}: {len(run.tables)} tables ({', '.join(t.name for t in run.tables)}), "
               f"{options.seconds:g} s, {pace}, a fault every {options.every:g} s on average, seed {options.seed}")
    for kind, why in report.unavailable.items():
        report.say(f"  not injected here: {kind}: {why}")
    try:
        run.run()
        run.finish()
    except BaseException:
        run.options.keep = True  # the soak's own failure: its folder is the evidence
        raise
    finally:
        run.close()
    _summary(report)
    return report


def _summary(report: Report) -> None:
    report.say(f"\nsoak of {report.seconds:.0f} s on {platform.node()} ({os.cpu_count()} CPUs, "
               f"{platform.platform()}): {sum(report.faults.values())} faults injected")
    for kind in FAULTS:
        if kind in report.faults or kind in report.skipped:
            report.say(f"  {kind:<15} {report.faults[kind]:5d} injected, {report.skipped[kind]} skipped")
    if report.decisions:
        report.say("the supervisor decided: " + ", ".join(f"{k} {v}" for k, v in sorted(report.decisions.items())))
    report.say("invariants, per table:")
    for name, figures in report.figures.items():
        report.say(f"  {name:<20} " + ", ".join(f"{k} {v}" for k, v in figures.items() if k != "verify"))
        report.say(f"  {'':<20} verify --deep: {figures.get('verify', '')[:110]}")
    report.say(f"violations: {len(report.violations)}")
    for words in report.violations:
        report.say(f"  {words}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3600.0)
    parser.add_argument("--every", type=float, default=4.0, help="seconds between faults, on average")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--faults", nargs="+", choices=FAULTS, default=list(FAULTS))
    parser.add_argument("--verify-every", type=float, default=300.0)
    parser.add_argument("--folder", type=Path, help="keep everything here (default: a new temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the folder even when nothing was violated")
    parser.add_argument("--pace-ms", type=int, default=0, help="the simulated dealers' time per action (0: full speed)")
    args = parser.parse_args(argv)
    options = Options(args.seconds, args.every, args.seed, tuple(args.faults), args.verify_every,
                      folder=args.folder, keep=args.keep, pace_ms=args.pace_ms)
    try:
        report = soak(options)
    except KeyboardInterrupt:  # Ctrl-C: its tables were stopped on the way out
        print("soak: interrupted; no figures", file=sys.stderr)
        return 130
    except Exception as exc:  # the soak's own failure: one line (its tables were stopped on the way out)
        print(f"soak: stopped on an error of its own: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
