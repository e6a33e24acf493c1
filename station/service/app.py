"""The station service: drivers -> core loop -> journal -> display, under systemd.

Start-up order is the safety argument (docs/architecture.md, "Start-up order"):

1. the configuration is validated (before this module is reached); extensions (the
   simulation, when a device is ``sim:``) prepare, before the station has any thread;
2. the core loop opens the journal and replays it: the table is back exactly where it was,
   mid-round included, and an irregularity active before the restart is active again;
3. only then are the devices opened and asked for their self-tests, so no command reaches a
   device before the journal has been replayed;
4. the display and scoreboard are told where the table is, the control socket opens, and
   systemd hears READY=1;
5. the core loop runs on the main thread and pings the watchdog itself.

SIGTERM stops the loop between two batches; every event the loop took was journaled before
it was applied, so the next start resumes the round where it stood.
"""

from __future__ import annotations

import errno
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import structlog

from station.core import outputs as out
from station.core import states as st
from station.core.loop import CoreLoop
from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.events import (
    AccessDenied,
    DeviceFault,
    Event,
)
from station.floor.process import PreparedOutbox, fork_outbox
from station.floor.service import FloorFeatures
from station.integrity.monitor import IntegritySettings
from station.integrity.service import IntegrityService
from station.integrity.shuffler import ShufflerAgent
from station.journal import Journal
from station.journal.location import journal_path
from station.service.board import limits_sign, round_number, web_limits
from station.service.config import ConfigError, LoadedConfig
from station.service.control import Authenticator, ControlServer, Credential
from station.service.control_commands import control_commands
from station.service.devices import DeviceSet, build_devices
from station.service.disk import DiskWatch
from station.service.extension import StationExtension, Subscriber
from station.service.holder import ServiceHolder
from station.service.logging import bind_table_context
from station.service.paths import control_socket_path, socket_path_problem
from station.service.publisher import SHOWN_OUTPUTS, Publisher, TableView
from station.service.setup import (
    CONFIGURATION_RECORD,
    SOFTWARE_KEY,
    SOFTWARE_RECORD,
    changed_keys,
    configuration_record,
    core_options,
    new_journal_record,
    recorded_rules,
    software_record,
)
from station.service.systemd_notify import Notifier

if TYPE_CHECKING:
    from drivers.devices import DisplayDriver

log = structlog.get_logger("station.service")

#: What :meth:`Station._on_output` acts on.
STATION_OUTPUTS = (out.StateChanged, out.ExpectationChanged, out.RoundSettled, out.IrregularityRaised,
                   out.DeviceFaulted, out.Refused, out.JournalUnwritable, out.JournalWritable)

ROUND_LIVE = st.MID_ROUND | {st.PAYING, st.IRREGULARITY}


class ResourceBusy(Exception):
    """Something the station needs is held by another program (the web scoreboard's port):
    starting again once it is free can succeed."""


@dataclass
class RunOptions:
    """How this run differs from a plain ``station run`` of its configuration."""

    journal: str | None = None
    control_socket: bool = True
    hold_devices: bool = True
    web_port: int | None = None
    extensions: Sequence[StationExtension] = ()
    """Plug-ins (see :mod:`station.service.extension`): the simulation, a demo's report."""


class _Hooks:
    """What the station offers its extensions (:class:`~station.service.extension.StationHooks`)."""

    def __init__(self, station: Station) -> None:
        self._station = station

    def _loop(self) -> CoreLoop:
        assert self._station.loop is not None, "extensions attach after the journal is replayed"
        return self._station.loop

    def post(self, event: Event) -> None:
        self._loop().post(event)

    def subscribe(self, callback: Subscriber, kinds: tuple[type[out.Output], ...] | None = None) -> None:
        self._loop().subscribe(callback, kinds)

    def view(self) -> tuple[str, str]:
        loop = self._loop()
        return loop.state, loop.expectation

    @property
    def machine(self) -> TableMachine:
        return self._loop().machine

    def observe_deliveries(self, device: str, callback: Callable[[int], None]) -> bool:
        driver = self._station.devices.get(device) if self._station.devices is not None else None
        if driver is None:
            return False
        driver.observe_deliveries(callback)
        return True

    def request_stop(self, reason: str) -> None:
        self._station.request_stop(reason)


class Station:
    """One running table. ``start()`` then ``run()``; ``request_stop()`` from any thread."""

    def __init__(self, loaded: LoadedConfig, run: RunOptions | None = None) -> None:
        self.loaded = loaded
        self.config = loaded.config
        self.run_options = run or RunOptions()
        self.options: CoreOptions = core_options(self.config, loaded.path)
        self.journal_path = journal_path(self.run_options.journal, self.config.station.journal or None)
        self.notifier = Notifier()
        self.holder = ServiceHolder(journal=self.journal_path) if self.run_options.hold_devices else None
        self.disk = DiskWatch(self.journal_path.parent, self.config.station.disk_warning_mb)
        self.loop: CoreLoop | None = None
        self.devices: DeviceSet | None = None
        self.publisher: Publisher | None = None
        self.control: ControlServer | None = None
        self.web: Any = None
        self.integrity: IntegrityService | None = None
        self.shuffler_agent: ShufflerAgent | None = None
        self.floor: FloorFeatures | None = None  # anchors, floor feed, metrics (docs/floor.md)
        self.outbox: PreparedOutbox | None = None  # the floor feed's process, until the feed starts
        self.start_seconds = 0.0
        self.stop_reason = ""
        self._last_ping = 0.0
        self._published: tuple[str, str] = ("starting", "")
        self._record_configuration = False
        self._signalled = ""  # name of a stop signal received, acted on by the loop
        self._stopping = threading.Event()

    # --- start-up --------------------------------------------------------------------------

    def start(self) -> None:
        started = time.perf_counter()
        self._log = log.bind()  # logging is configured by now
        self._bound_ids: tuple[int | None, str | None] = (None, None)
        # First, before any thread or file of the station's: the floor feed's process and the
        # extensions (the simulated table) fork theirs, and the extensions say where their
        # devices are opened.
        if self.config.floor.enabled:
            self.outbox = fork_outbox()
        endpoints: dict[str, Any] = {}
        for extension in self.run_options.extensions:
            endpoints.update(extension.prepare())
        if self.holder is not None:
            urls = {name: section.url for name, section in self.config.devices.configured()}
            self.holder.acquire(urls)
        journal = self._open_journal()
        self.loop = CoreLoop(journal, self.options, heartbeat=self._heartbeat)
        loop = self.loop
        if self._record_configuration:
            journal.append(CONFIGURATION_RECORD, new_journal_record(self.config))
        self._record_software(journal)
        log.info("journal_replayed", journal=str(self.journal_path), events=loop.replayed,
                 seconds=round(loop.replay_seconds, 3), state=loop.state)
        self.floor = FloorFeatures.start(self)  # anchors, floor feed, metrics: before any device opens
        self._start_integrity(journal.head()[0])  # the monitor catches up to what the core replayed
        self.devices = build_devices(self.config.devices, loop.post, endpoints=endpoints)
        self.devices.start()
        self._start_shuffler_agent()
        for outcome in self.devices.self_tests():
            if outcome.passed:
                log.info("self_test_passed", device=outcome.device, detail=outcome.detail)
            else:
                log.error("self_test_failed", device=outcome.device, detail=outcome.detail)
                loop.post(DeviceFault(outcome.device, f"self-test failed: {outcome.detail}", "selftest"))
        self._start_web()
        # The device set builds the "display" slot from the display kind's driver.
        display = cast("DisplayDriver | None", self.devices.get("display"))
        self.publisher = Publisher(
            self.options.game, display,
            web=self.web, table_info=self._table_info(),
            initial_results=list(loop.machine.shoe_results),
            limits=limits_sign(self.config.table), view=self._table_view,
        )
        loop.subscribe(self.publisher.on_output, SHOWN_OUTPUTS)
        loop.subscribe(self._on_output, STATION_OUTPUTS)
        self._published = (loop.state, loop.expectation)
        self.publisher.start()
        hooks = _Hooks(self)
        for extension in self.run_options.extensions:
            extension.attach(hooks)
        loop.announce()
        if self.run_options.control_socket:
            self._start_control()
        self.start_seconds = time.perf_counter() - started
        self.notifier.ready(self._status_text())
        log.info("station_ready", seconds=round(self.start_seconds, 3), table=self.config.station.name,
                 simulated=[n for n, s in self.config.devices.configured() if s.url.startswith("sim:")])

    def _start_integrity(self, head_seq: int) -> None:
        """The integrity monitor (off the loop's thread) and the agent that asks the shuffler for
        what the core needs (deck checks, its state): docs/integrity.md."""
        loop = self.loop
        assert loop is not None
        section = self.config.integrity
        settings = IntegritySettings(repeat_depth=section.repeat_depth, advantage_percent=section.advantage_percent,
                                     significance=section.significance, window_rounds=section.window_rounds)
        self.integrity = IntegrityService(loop.post, self.options, settings, self.journal_path, head_seq)
        loop.subscribe(self.integrity.on_output, IntegrityService.KINDS)
        self.integrity.start()

    def _start_shuffler_agent(self) -> None:
        loop, devices = self.loop, self.devices
        assert loop is not None and devices is not None
        if self.config.devices.shuffler is not None:
            self.shuffler_agent = ShufflerAgent(loop.post, devices.get)
            loop.subscribe(self.shuffler_agent.on_output, ShufflerAgent.KINDS)
            self.shuffler_agent.start()
            self.shuffler_agent.ask_state("shuffler")

    def _open_journal(self) -> Journal:
        """Open the journal, refusing one written under a different table configuration: its
        rounds would replay under rules they were not dealt under."""
        journal = Journal(self.journal_path)
        recorded = journal.last_of_kind(CONFIGURATION_RECORD)
        current = configuration_record(self.config)
        self._record_configuration = recorded is None
        if recorded is not None and changed_keys(recorded_rules(recorded.payload, current), current):
            changed = changed_keys(recorded_rules(recorded.payload, current), current)
            journal.close()
            raise ConfigError(self.loaded.path, [(key, (
                f"differs from the configuration {self.journal_path} was written with; "
                "a journal is replayed under its own configuration, so finish with the old one, or "
                "move the journal aside (it stays verifiable and recallable) and start a new one"
            )) for key in changed])
        return journal

    def _record_software(self, journal: Journal) -> None:
        """Journal which software writes from here on, when it is not the one that last did
        (an upgrade): an auditor can then tell which software dealt each round."""
        last_software = journal.last_of_kind(SOFTWARE_RECORD)
        last_configuration = journal.last_of_kind(CONFIGURATION_RECORD)
        last = max((r for r in (last_software, last_configuration) if r is not None), key=lambda r: r.seq,
                   default=None)
        recorded = None if last is None else (last.payload if last.kind == SOFTWARE_RECORD
                                              else last.payload.get(SOFTWARE_KEY))
        current = software_record()
        if recorded != current:
            journal.append(SOFTWARE_RECORD, current)
            log.info("software_recorded", journal=str(self.journal_path), **current)

    def _table_info(self) -> Any:
        from station.web.snapshot import TableInfo

        t = self.config.table
        rules = self.options.rules
        table = self.options.table
        option = self.loop.machine.payout_option if self.loop is not None else rules.payout_option(table)
        # Besides the table's limits, what the game adds (baccarat: the smallest Banker bet
        # rule 5.12 accepts when chips cannot pay one at the table minimum).
        limits = web_limits(t, rules.limit_lines(table, option))
        return TableInfo(self.config.station.name, rules.title, rules.variant_of(table), limits, t.currency,
                         t.minor_digits)

    def _table_view(self) -> TableView:
        """Where the table is, for the players' screens (on the core loop's thread)."""
        assert self.loop is not None
        machine = self.loop.machine
        shoe = machine.shoe
        current = machine.round
        composition = shoe.composition
        return TableView(shoe.number, round_number(current.round_id) if current is not None else shoe.rounds,
                         len(composition) if composition is not None else None)

    def _start_web(self) -> None:
        """The web scoreboard in its own process (station/web/feed.py): this process never
        imports its web framework."""
        if not self.config.web.enabled and self.run_options.web_port is None:
            return
        from station.web.feed import ScoreboardProcess

        web = self.config.web
        port = self.run_options.web_port if self.run_options.web_port is not None else web.port
        try:
            self.web = ScoreboardProcess(web.bind, port, max_connections=web.max_connections).start()
        except OSError as exc:
            reason = "another program holds it" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
            raise ResourceBusy(f"web scoreboard: cannot listen on {web.bind}:{port}: {reason}") from None
        log.info("web_scoreboard", url=self.web.url, pid=self.web.pid)

    # --- control socket ----------------------------------------------------------------------

    def _start_control(self) -> None:
        assert self.loop is not None
        credentials = [Credential(u.name, u.role, u.token_sha256) for u in self.config.control.users]
        commands = control_commands(self.loop.post, self.status)
        path = control_socket_path(self.config.control.socket or None, self.journal_path)
        problem = socket_path_problem(path)
        if problem:
            raise ConfigError(self.loaded.path, [("control.socket", problem)])
        self.control = ControlServer(path, Authenticator(credentials), commands, mode=self.config.control.socket_mode,
                                     on_denied=lambda actor, command: self._post(AccessDenied(actor, command)))
        self.control.start()

    def _post(self, event: Event) -> None:
        assert self.loop is not None
        self.loop.post(event)

    def status(self) -> dict[str, Any]:
        """What ``station ctl status`` prints; reads only values the loop publishes."""
        loop = self.loop
        assert loop is not None
        machine = loop.machine
        # Read each attribute once: the loop thread may replace it between two reads.
        irregularity = machine.irregularity
        current_round = machine.round
        return {
            "table": self.config.station.name,
            "state": self._published[0],
            "expecting": self._published[1],
            "round": current_round.round_id if current_round is not None else None,
            "shoe": machine.shoe.number,
            "irregularity": None if irregularity is None else {
                "reason": irregularity.reason, "detail": irregularity.detail,
                "decisions": list(irregularity.decisions),
            },
            "devices": {name: ("connected" if d.connected else "not connected")
                        for name, d in (self.devices or DeviceSet())},
            "faulted": dict(machine.faulted),
            "journal": str(self.journal_path),
            "control": self.control.stats.as_dict() if self.control is not None else None,
            "inputs": {"failed_to_apply": loop.failures, "not_journalable": loop.unjournalable},
            "journal_writable": loop.journal_error is None,
            "journal_error": loop.journal_error,
            "disk": self.disk.reading.as_dict() if self.disk.reading is not None else None,
            "integrity": self._integrity_status(machine),
            **(self.floor.status() if self.floor is not None else {}),
        }

    def _integrity_status(self, machine: TableMachine) -> dict[str, Any]:
        """Alerts not yet acknowledged (the newest 20), how many of each were raised, and the
        monitor's view of the shoe in play (the edges after the last round: supervisors only
        ever see them here and in the logs, never on the players' board)."""
        open_alerts = machine.open_alerts()
        return {
            "alerts_open": len(open_alerts),
            "alerts": [{"ident": a.ident, "code": a.code, "severity": a.severity, "detail": a.detail,
                        "shoe": a.shoe, "round": a.round_id} for a in open_alerts[-20:]],
            "raised": dict(machine.alert_counts),
            "monitor": self.integrity.summary if self.integrity is not None else None,
        }

    # --- running -----------------------------------------------------------------------------

    def _status_text(self) -> str:
        assert self.loop is not None
        return f"{self.loop.state}: {self.loop.expectation}"

    def _heartbeat(self) -> None:
        """Called by the core loop on its own thread after every pass (at least every 0.2 s)."""
        if self._signalled and not self._stopping.is_set():
            self.request_stop(self._signalled)
        if self._stopping.is_set():
            # A stop asked for before the loop started running would otherwise be lost.
            assert self.loop is not None
            self.loop.stop(timeout=0)
            return
        self.disk.poll()
        now = time.monotonic()
        interval = self.notifier.watchdog_interval_s
        if interval and now - self._last_ping >= interval:
            self._last_ping = now
            self.notifier.watchdog()

    def _on_output(self, output: out.Output) -> None:
        """The service's own bookkeeping (subscribed to ``STATION_OUTPUTS`` only)."""
        log = self._log  # bound once: a module logger is rebuilt on every call
        if isinstance(output, (out.StateChanged, out.ExpectationChanged)):
            assert self.loop is not None
            # One tuple replaced at once: the control threads read it without a lock.
            self._published = (self.loop.state, self.loop.expectation)
        if isinstance(output, out.StateChanged):
            # Every log line of the core loop from here on carries the shoe and round ids.
            assert self.loop is not None
            machine = self.loop.machine
            current = machine.round
            ids = (machine.shoe.number or None, current.round_id if current else None)
            if ids != self._bound_ids:
                self._bound_ids = ids
                bind_table_context(shoe=ids[0], round=ids[1])
            if self.holder is not None:
                self.holder.update(round_live=output.state in ROUND_LIVE, state=output.state)
        elif isinstance(output, out.ExpectationChanged):
            self.notifier.status(self._status_text())
            log.info("expecting", text=output.text)
        elif isinstance(output, out.RoundSettled):
            log.info("round_settled", round_id=output.round_id, outcome=output.outcome,
                     cards={position: " ".join(card.code for card in cards) for position, cards in output.hands},
                     totals=dict(output.totals), bets=len(output.bets), house_net=output.house_net)
        elif isinstance(output, out.IrregularityRaised):
            log.warning("irregularity", reason=output.reason, detail=output.detail, decisions=list(output.decisions))
        elif isinstance(output, out.DeviceFaulted):
            log.warning("device_fault", device=output.device, reason=output.reason)
        elif isinstance(output, out.Refused):
            log.info("input_refused", input=output.what, reason=output.reason)
        elif isinstance(output, out.JournalUnwritable):
            self.notifier.status(f"journal cannot be written: {output.reason}; waiting for space")
        elif isinstance(output, out.JournalWritable):
            self.notifier.status(self._status_text())

    def run(self) -> None:
        """Run the core loop on this thread until :meth:`request_stop`."""
        assert self.loop is not None
        if self._signalled:  # SIGTERM during start-up: do not start serving
            self.request_stop(self._signalled)
        if self._stopping.is_set():
            return
        self.loop.run(poll_seconds=0.2)

    def request_stop(self, reason: str = "requested") -> None:
        if self._stopping.is_set():
            return
        self._stopping.set()
        self.stop_reason = reason
        log.info("station_stopping", reason=reason)
        if self.loop is not None:
            self.loop.stop(timeout=0)

    def install_signal_handlers(self) -> None:
        def handler(signum: int, _frame: object) -> None:
            # Only note it: a handler runs between two bytecodes of the main thread, which may
            # be half-way through writing a log line under the logger's lock, so logging (or
            # taking any lock) here could deadlock. The loop's heartbeat acts on it.
            self._signalled = signal.Signals(signum).name

        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGINT, handler)

    def close(self) -> None:
        """Orderly shutdown: dealer, control, display, devices, then the journal."""
        self._stopping.set()
        self.notifier.stopping()
        if self.web is not None:
            self.web.begin_stop()  # it stops while the rest does
        for extension in self.run_options.extensions:
            extension.halt()
        if self.control is not None:
            self.control.stop()
        if self.shuffler_agent is not None:
            self.shuffler_agent.stop()
        if self.loop is not None:
            self.loop.stop()
        if self.publisher is not None:
            self.publisher.wait_idle(2.0)
            self.publisher.stop()
        if self.devices is not None:
            self.devices.stop()
        for extension in self.run_options.extensions:
            extension.close()  # the simulators, now that no driver talks to them
        if self.web is not None:
            self.web.stop()
        if self.integrity is not None:
            self.integrity.stop()
        if self.floor is not None:
            self.floor.close()  # the last anchor, then what the broker takes within [floor] drain_s
        if self.outbox is not None:  # forked, but the station stopped before the feed started
            self.outbox.discard()
            self.outbox = None
        if self.loop is not None:
            self.loop.close()
        if self.holder is not None:
            self.holder.release()
        self.notifier.close()
        log.info("station_stopped", reason=self.stop_reason)
