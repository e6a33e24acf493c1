"""The station service: drivers -> core loop -> journal -> display, under systemd.

A station is its core loop and the ordered list of features its configuration gives
(:mod:`station.service.assembly`), each taken through the steps of
:mod:`station.service.features`. Start-up order is the safety argument (docs/architecture.md,
"Start-up order"):

1. the configuration is validated (before this module is reached); every feature prepares
   (the floor outbox and the simulated table fork), before the station has any thread;
2. the core loop opens the journal and replays it: the table is back exactly where it was,
   mid-round included, and an irregularity active before the restart is active again;
3. only then do the features attach to the loop and start: the devices open and are asked for
   their self-tests, so no command reaches a device before the journal has been replayed; the
   display and scoreboard are told where the table is, the control socket opens;
4. systemd hears READY=1; the integrity monitor and the meters begin their catch-up;
5. the core loop runs on the main thread and pings the watchdog itself.

SIGTERM stops the loop between two batches; every event the loop took was journaled before
it was applied, so the next start resumes the round where it stood.
"""

from __future__ import annotations

import dataclasses
import signal
import threading
import time
from pathlib import Path
from typing import Any

import structlog

from station.config.options import CONFIGURATION_RECORD, core_options, new_journal_record
from station.core import outputs as out
from station.core import states as st
from station.core.limit_steps import CONFIGURATION_ROLE
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.events import Actor, Event, LimitsChanged
from station.host.disk import DiskWatch
from station.host.logging import bind_table_context
from station.host.systemd_notify import Notifier
from station.journal.location import journal_path
from station.service.assembly import RunOptions, StationSpine, build_features
from station.service.config import LoadedConfig
from station.service.dealer_doors import RefusalRecorder
from station.service.features import Features, StopStage
from station.service.holder import ServiceHolder
from station.service.lifecycle import Lifecycle, start_record
from station.service.station_journal import open_journal, record_software
from station.service.status import station_status

__all__ = ["RunOptions", "Station"]

log = structlog.get_logger("station.service")

#: What :meth:`Station._on_output` acts on.
STATION_OUTPUTS = (out.StateChanged, out.ExpectationChanged, out.RoundSettled, out.IrregularityRaised,
                   out.DeviceFaulted, out.Refused, out.JournalUnwritable, out.JournalWritable)

ROUND_LIVE = st.MID_ROUND | {st.PAYING, st.IRREGULARITY}


class Station:
    """One running table: its core loop and the features beside it, in the order
    :func:`~station.service.assembly.build_features` lists them from the configuration.
    ``start()`` then ``run()``; ``request_stop()`` from any thread."""

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
        self.run_began_after = 0  # what this run journals comes after this record
        #: The parts beside the core loop, in the order they start (features.py, assembly.py).
        self.features: Features = build_features(loaded, self.run_options, StationSpine(
            self.options, self.journal_path, self.refusals, self.status, self.request_stop,
            lambda: self.run_began_after))
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
        self.features.prepare()
        if self.holder is not None:
            urls = {name: section.url for name, section in self.config.devices.configured()}
            self.holder.acquire(urls)
        journal, journal_limits = open_journal(self.journal_path, self.config, self.loaded.path)
        self._record_configuration = journal_limits is None
        # A journal replays under the limits it was started with, and the changes it holds.
        replay = self.options if journal_limits is None else dataclasses.replace(self.options, limits=journal_limits)
        self.loop = CoreLoop(journal, replay, heartbeat=self._heartbeat)
        loop = self.loop
        self.run_began_after = journal.head()[0]
        started_record = start_record(journal, self.loaded.path)  # before this run writes anything
        if self._record_configuration:
            loop.write_own(CONFIGURATION_RECORD, new_journal_record(self.config))
        record_software(journal, self.journal_path, loop.write_own)
        self.lifecycle.started(loop, started_record)
        log.info("journal_replayed", journal=str(self.journal_path), events=loop.replayed,
                 seconds=round(loop.replay_seconds, 3), state=loop.state)
        # The features hear the loop before it runs, so none misses an output; then they start.
        self.features.attach(loop)
        loop.subscribe(self._on_output, STATION_OUTPUTS)
        self._post_configured_limits(loop)
        self.features.start()
        loop.announce()
        self.start_seconds = time.perf_counter() - started
        self.notifier.ready(self._status_text())
        # Their catch-up (a checkpoint, the last records) is not the table's start.
        self.features.start(after_ready=True)
        log.info("station_ready", seconds=round(self.start_seconds, 3), table=self.config.station.name,
                 simulated=[n for n, s in self.config.devices.configured() if s.url.startswith("sim:")])

    def _post_configured_limits(self, loop: CoreLoop) -> None:
        """The configuration file's limits, as a change from the next round, when they are not
        those the configuration last gave this journal (a supervisor's change since stays)."""
        wanted = self.options.limits
        assert wanted is not None
        configured = loop.inspect(lambda machine: machine.configured_limits)
        changed = wanted.differences(configured)
        if changed:
            values = wanted.to_json()
            log.info("limits_from_configuration", changed=changed, config=str(self.loaded.path))
            loop.post(LimitsChanged({key: values[key] for key in changed},
                                    Actor(CONFIGURATION_ROLE, str(self.loaded.path)),
                                    "the configuration file gives these limits"))

    def _post(self, event: Event) -> None:
        assert self.loop is not None
        self.loop.post(event)

    def status(self) -> dict[str, Any]:
        """What ``station ctl status`` prints (:mod:`station.service.status`)."""
        assert self.loop is not None
        return station_status(self.loop, self.config.station.name, self.journal_path, self.disk, self.features)

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
        run's last record between them, then the journal."""
        self._stopping.set()
        self.notifier.stopping()
        self.features.begin_stop()  # the children stop while the rest does; the simulated table stops dealing
        self.features.close(StopStage.INPUTS)
        if self.loop is not None:
            self.loop.stop()
        self.features.close(StopStage.OUTPUTS)
        self.features.close(StopStage.EQUIPMENT)  # the simulators, now that no driver talks to them
        self.lifecycle.stopped(self.stop_reason)  # the run's last record, before the feed drains
        self.features.close(StopStage.FEED)  # the last anchor, then what the broker takes within [floor] drain_s
        if self.loop is not None:
            self.loop.close()
        if self.holder is not None:
            self.holder.release()
        self.notifier.close()
        log.info("station_stopped", reason=self.stop_reason)
