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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import structlog

from station.config.errors import ConfigError
from station.config.options import CONFIGURATION_RECORD, core_options, new_journal_record
from station.console.launch import ConsoleWiring, start_console
from station.core import outputs as out
from station.core import states as st
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.events import (
    AccessDenied,
    DeviceFault,
    DeviceRecovered,
    Event,
)
from station.floor.process import PreparedOutbox, fork_outbox
from station.floor.service import FloorFeatures
from station.host.disk import DiskWatch
from station.host.errors import ResourceBusy
from station.host.logging import bind_table_context
from station.host.systemd_notify import Notifier
from station.integrity.monitor import IntegritySettings
from station.integrity.service import IntegrityService
from station.integrity.shuffler import ShufflerAgent
from station.journal.location import journal_path
from station.meters.service import MetersService, attach_meters
from station.service.board import limits_sign, web_limits
from station.service.config import LoadedConfig
from station.service.control import Authenticator, ControlServer, Credential
from station.service.control_commands import control_commands
from station.service.dealer_doors import DEALING_ROLES, RefusalRecorder, device_sink
from station.service.devices import DeviceSet, build_devices
from station.service.extension import StationExtension
from station.service.features import Features, StopStage
from station.service.holder import ServiceHolder
from station.service.hooks import Hooks
from station.service.lifecycle import Lifecycle, start_record
from station.service.paths import control_socket_path, socket_path_problem
from station.service.publisher import SHOWN_OUTPUTS, Publisher, TableView, table_view
from station.service.station_journal import open_journal, record_software
from station.service.status import station_status

if TYPE_CHECKING:
    from drivers.devices import DisplayDriver
    from station.console.feed import ConsoleProcess
    from station.web.feed import ScoreboardProcess
    from station.web.snapshot import TableInfo

log = structlog.get_logger("station.service")

#: What :meth:`Station._on_output` acts on.
STATION_OUTPUTS = (out.StateChanged, out.ExpectationChanged, out.RoundSettled, out.IrregularityRaised,
                   out.DeviceFaulted, out.Refused, out.JournalUnwritable, out.JournalWritable)

ROUND_LIVE = st.MID_ROUND | {st.PAYING, st.IRREGULARITY}


@dataclass
class RunOptions:
    """How this run differs from a plain ``station run`` of its configuration."""

    journal: str | None = None
    control_socket: bool = True
    hold_devices: bool = True
    web_port: int | None = None
    extensions: Sequence[StationExtension] = ()
    """Plug-ins (see :mod:`station.service.extension`): the simulation, a demo's report."""


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
        self.lifecycle = Lifecycle(self.disk)  # the station's own records (docs/events.md)
        self.refusals = RefusalRecorder(self._post)  # refusals at the doors, journaled
        self.loop: CoreLoop | None = None
        self.devices: DeviceSet | None = None
        self.publisher: Publisher | None = None
        self.control: ControlServer | None = None
        self.web: ScoreboardProcess | None = None  # the players' web scoreboard's process (station/web/)
        self.console: ConsoleProcess | None = None  # the dealer's console's process (station/console/)
        self.integrity: IntegrityService | None = None
        self.shuffler_agent: ShufflerAgent | None = None
        self.meters: MetersService | None = None  # docs/meters.md
        self.floor: FloorFeatures | None = None  # anchors, floor feed, metrics (docs/floor.md)
        self.outbox: PreparedOutbox | None = None  # the floor feed's process, until the feed starts
        #: What started beside the core loop, in order, each with where it stops (features.py).
        self.features = Features()
        self.start_seconds = 0.0
        self.stop_reason = ""
        #: Why the station stopped on an error, not because it was asked to ("" when it was).
        self.failure = ""
        self._last_ping = 0.0
        self._record_configuration = False
        self._signalled = ""  # name of a stop signal received, acted on by the loop
        self._stopping = threading.Event()

    # --- start-up --------------------------------------------------------------------------

    @property
    def config_path(self) -> Path:
        """The configuration file this station runs (its problems are named in it)."""
        return self.loaded.path

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
        journal, self._record_configuration = open_journal(self.journal_path, self.config, self.loaded.path)
        self.loop = CoreLoop(journal, self.options, heartbeat=self._heartbeat)
        loop = self.loop
        self.run_began_after = journal.head()[0]  # what this run journals comes after this record
        started_record = start_record(journal, self.loaded.path)  # before this run writes anything
        if self._record_configuration:
            loop.write_own(CONFIGURATION_RECORD, new_journal_record(self.config))
        record_software(journal, self.journal_path, loop.write_own)
        self.lifecycle.started(loop, started_record)
        log.info("journal_replayed", journal=str(self.journal_path), events=loop.replayed,
                 seconds=round(loop.replay_seconds, 3), state=loop.state)
        self.floor = FloorFeatures.start(self)  # anchors, floor feed, metrics: before any device opens
        self.features.started("floor", StopStage.FEED, self.floor.close)
        self._start_integrity(journal.head()[0])  # the monitor will catch up to what the core replayed
        self.meters = attach_meters(loop, self.options, self.config.table, self.journal_path)
        self.features.started("meters", StopStage.OUTPUTS, self.meters.stop)
        self.devices = build_devices(self.config.devices, device_sink(self.config, loop.post, self.refusals),
                                     endpoints=endpoints)
        self.devices.start()
        self.features.started("devices", StopStage.OUTPUTS, self.devices.stop)
        self._start_shuffler_agent()
        # A device the journal left faulted (lost before the restart) that answers and passes its
        # self-test now is back: the station says so, as it does when a link comes back while it
        # runs. An irregularity its loss raised stays open for a person; only the fault ends.
        faulted_before = {device for device, _ in loop.published.faulted}
        for outcome in self.devices.self_tests():
            if outcome.passed:
                log.info("self_test_passed", device=outcome.device, detail=outcome.detail)
                if outcome.device in faulted_before:
                    log.info("device_back_after_restart", device=outcome.device)
                    loop.post(DeviceRecovered(outcome.device))
            else:
                log.error("self_test_failed", device=outcome.device, detail=outcome.detail)
                loop.post(DeviceFault(outcome.device, f"self-test failed: {outcome.detail}", "selftest"))
        self._start_web()
        # The device set builds the "display" slot from the display kind's driver.
        display = cast("DisplayDriver | None", self.devices.get("display"))
        self.publisher = Publisher(
            self.options.game, display,
            web=self.web, table_info=self._table_info(),
            initial_results=loop.inspect(lambda machine: list(machine.shoe_results)),
            limits=limits_sign(self.config.table), view=self._table_view,
        )
        loop.subscribe(self.publisher.on_output, SHOWN_OUTPUTS)
        loop.subscribe(self._on_output, STATION_OUTPUTS)
        self.publisher.start()
        self.features.started("publisher", StopStage.OUTPUTS, self._stop_publisher)
        devices = self.devices
        hooks = Hooks(loop, devices.get, self.request_stop)
        for extension in self.run_options.extensions:
            extension.attach(hooks)
        loop.announce()
        if self.run_options.control_socket:
            self._start_control()
        self.console = start_console(self._console_wiring())  # the dealer's console, when configured
        if self.console is not None:
            self.features.started("console", StopStage.OUTPUTS, self.console.stop, self.console.begin_stop)
        self.start_seconds = time.perf_counter() - started
        self.notifier.ready(self._status_text())
        if self.integrity is not None:  # its catch-up (checkpoint, tables, the last records) is not the table's start
            self.integrity.start()
        self.meters.start()  # likewise
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
        self.integrity = IntegrityService(loop.post, self.options, settings, self.journal_path, head_seq,
                                          note=loop.note)
        loop.subscribe(self.integrity.on_output, IntegrityService.KINDS)  # queued until it starts (after READY)
        self.features.started("integrity", StopStage.OUTPUTS, self.integrity.stop)

    def _start_shuffler_agent(self) -> None:
        loop, devices = self.loop, self.devices
        assert loop is not None and devices is not None
        if self.config.devices.shuffler is not None:
            self.shuffler_agent = ShufflerAgent(loop.post, devices.get)
            loop.subscribe(self.shuffler_agent.on_output, ShufflerAgent.KINDS)
            self.shuffler_agent.start()
            self.features.started("shuffler agent", StopStage.INPUTS, self.shuffler_agent.stop)
            self.shuffler_agent.ask_state("shuffler")

    def _table_info(self) -> TableInfo:
        from station.web.snapshot import TableInfo

        t = self.config.table
        rules = self.options.rules
        table = self.options.table
        option = self.loop.published.payout_option if self.loop is not None else rules.payout_option(table)
        # Besides the table's limits, what the game adds (baccarat: the smallest Banker bet
        # rule 5.12 accepts when chips cannot pay one at the table minimum).
        limits = web_limits(t, rules.limit_lines(table, option))
        return TableInfo(self.config.station.name, rules.title, rules.variant_of(table), limits, t.currency,
                         t.minor_digits)

    def _table_view(self) -> TableView:
        """Where the table is, for the players' screens (on the core loop's thread)."""
        assert self.loop is not None
        return self.loop.inspect(table_view)

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
        self.features.started("web scoreboard", StopStage.OUTPUTS, self.web.stop, self.web.begin_stop)
        log.info("web_scoreboard", url=self.web.url, pid=self.web.pid)

    # --- control socket ----------------------------------------------------------------------

    def _start_control(self) -> None:
        assert self.loop is not None
        credentials = [Credential(u.name, u.role, u.token_sha256) for u in self.config.control.users if u.token_sha256]
        dealers = {u.name: u.role for u in self.config.control.users if u.role in DEALING_ROLES}
        commands = control_commands(self.loop.post, self.status, dealers=dealers)
        path = control_socket_path(self.config.control.socket or None, self.journal_path)
        problem = socket_path_problem(path)
        if problem:
            raise ConfigError(self.loaded.path, [("control.socket", problem)])
        self.control = ControlServer(path, Authenticator(credentials), commands, mode=self.config.control.socket_mode,
                                     on_denied=lambda actor, command: self._post(AccessDenied(actor, command)),
                                     on_unknown=lambda reason: self.refusals.refused("control", reason))
        self.control.start()
        self.features.started("control socket", StopStage.INPUTS, self.control.stop)

    def _stop_publisher(self) -> None:
        assert self.publisher is not None
        self.publisher.wait_idle(2.0)  # what the board should show of the last round
        self.publisher.stop()

    def _console_wiring(self) -> ConsoleWiring:
        assert self.loop is not None
        return ConsoleWiring(
            self.loop, self.options, self.config.console, self.config.control.users, self.config.table,
            self.config.station.name, self.loaded.path, self.journal_path,
            self.control.serve_line if self.control is not None else None, self.refusals.refused)

    def _post(self, event: Event) -> None:
        assert self.loop is not None
        self.loop.post(event)

    def status(self) -> dict[str, Any]:
        """What ``station ctl status`` prints (:mod:`station.service.status`)."""
        return station_status(self)

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
        if isinstance(output, out.StateChanged):
            # Every log line of the core loop from here on carries the shoe and round ids.
            assert self.loop is not None
            ids = self.loop.inspect(lambda m: (m.shoe.number or None, m.round.round_id if m.round else None))
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
            self.disk.check_now()  # is it the disk? the next timed look may be 30 s away
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

    def request_stop(self, reason: str = "requested", *, failed: bool = False) -> None:
        """Stop after the batch in hand. ``failed``: a part of the station cannot go on, so the
        run ends in :attr:`failure` (``station run`` exits non-zero with it, docs/install.md)."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self.stop_reason = reason
        if failed:
            self.failure = reason
        (log.error if failed else log.info)("station_stopping", reason=reason, failed=failed)
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
        # A closed terminal stops the station in order too (its floor outbox drains), unless
        # it was started to outlive its terminal (``nohup`` sets SIGHUP to be ignored).
        if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
            signal.signal(signal.SIGHUP, handler)

    def close(self) -> None:
        """Orderly shutdown: the features in their stages (station/service/features.py), the
        simulation around the devices, the run's last record, then the journal."""
        self._stopping.set()
        self.notifier.stopping()
        self.features.begin_stop()  # the children stop while the rest does
        for extension in self.run_options.extensions:
            extension.halt()
        self.features.close(StopStage.INPUTS)
        if self.loop is not None:
            self.loop.stop()
        self.features.close(StopStage.OUTPUTS)
        for extension in self.run_options.extensions:
            extension.close()  # the simulators, now that no driver talks to them
        self.lifecycle.stopped(self.stop_reason)  # the run's last record, before the feed drains
        self.features.close(StopStage.FEED)  # the last anchor, then what the broker takes within [floor] drain_s
        if self.outbox is not None:  # forked, but the station stopped before the feed started
            self.outbox.discard()
            self.outbox = None
        if self.loop is not None:
            self.loop.close()
        if self.holder is not None:
            self.holder.release()
        self.notifier.close()
        log.info("station_stopped", reason=self.stop_reason)
