"""The features that make the table itself: its devices, what asks the shuffler, the boards
that show it, the extensions that stand in for hardware and people.

Each is a :class:`~station.service.features.Feature` built from the configuration by
:func:`station.service.assembly.build_features`; it is handed the loop's tap when it attaches
and, where it needs another feature (the publisher needs the display and the web scoreboard),
that feature is given to it when the list is built, never the whole station.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import structlog

from station.config.devices import DevicesSection
from station.core.options import CoreOptions
from station.core.tap import LoopTap
from station.events import DeviceFault, DeviceRecovered, Event
from station.games.limits import TableLimits
from station.host.errors import ResourceBusy
from station.integrity.shuffler import ShufflerAgent
from station.money import Money
from station.service.board import limits_sign, web_limits
from station.service.devices import DeviceSet, build_devices, device_state
from station.service.extension import StationExtension
from station.service.features import FeatureBase, StopStage
from station.service.hooks import Hooks, StopRequest
from station.service.publisher import SHOWN_OUTPUTS, Publisher, table_view

if TYPE_CHECKING:
    from drivers.codec import display as wire
    from drivers.devices import DisplayDriver
    from drivers.devices.contract import Device
    from station.config.table import TableSection
    from station.web.feed import ScoreboardProcess
    from station.web.settings import WebSection
    from station.web.snapshot import TableInfo

log = structlog.get_logger("station.service")

#: Where the drivers' events go, given the loop's way to post (station/service/dealer_doors.py).
SinkFor = Callable[[Callable[[Event], None]], Callable[[Event], None]]


class ExtensionsPart(FeatureBase):
    """The station's plug-ins (the simulated table, a demo's report): they fork their
    simulators first of all, are told the station's hooks once the devices and the boards run,
    stop producing inputs when the stop begins and release their simulators once no driver
    talks to them."""

    name = "extensions"
    stage = StopStage.EQUIPMENT

    def __init__(self, extensions: Sequence[StationExtension], stop: StopRequest) -> None:
        self.extensions = tuple(extensions)
        self._stop = stop
        self.endpoints: dict[str, Any] = {}  # where each simulated device is opened
        self.device: Callable[[str], Device | None] = lambda _name: None  # set by the builder

    def prepare(self) -> None:
        for extension in self.extensions:
            self.endpoints.update(extension.prepare())

    def start(self) -> None:
        hooks = Hooks(self.tap, self.device, self._stop)
        for extension in self.extensions:
            extension.attach(hooks)

    def begin_stop(self) -> None:
        for extension in self.extensions:
            extension.halt()

    def close(self) -> None:
        for extension in self.extensions:
            extension.close()


class DevicesPart(FeatureBase):
    """Every configured device's driver: opened only once the journal is replayed, each asked
    for its self-test, a device the journal left faulted that passes it now declared back."""

    name = "devices"

    def __init__(self, section: DevicesSection, sink_for: SinkFor, endpoints: Mapping[str, Any]) -> None:
        self.section, self._sink_for, self._endpoints = section, sink_for, endpoints
        self.set: DeviceSet | None = None

    def get(self, name: str) -> Device | None:
        return self.set.get(name) if self.set is not None else None

    def __iter__(self) -> Any:
        return iter(self.set or DeviceSet())

    def attach(self, tap: LoopTap) -> None:
        super().attach(tap)
        self.set = build_devices(self.section, self._sink_for(tap.post), endpoints=self._endpoints)

    def start(self) -> None:
        tap = self.tap
        assert self.set is not None
        self.set.start()
        # A device the journal left faulted (lost before the restart) that answers and passes its
        # self-test now is back: the station says so, as it does when a link comes back while it
        # runs. An irregularity its loss raised stays open for a person; only the fault ends.
        faulted_before = {device for device, _ in tap.published.faulted}
        for outcome in self.set.self_tests():
            if outcome.passed:
                log.info("self_test_passed", device=outcome.device, detail=outcome.detail)
                if outcome.device in faulted_before:
                    log.info("device_back_after_restart", device=outcome.device)
                    tap.post(DeviceRecovered(outcome.device))
            else:
                log.error("self_test_failed", device=outcome.device, detail=outcome.detail)
                tap.post(DeviceFault(outcome.device, f"self-test failed: {outcome.detail}", "selftest"))

    def close(self) -> None:
        if self.set is not None:
            self.set.stop()

    def status(self) -> dict[str, Any]:
        return {"devices": {name: device_state(d) for name, d in self}}


class ShufflerAgentPart(FeatureBase):
    """What asks the shuffler for what the core needs (deck checks, its state):
    docs/integrity.md."""

    name = "shuffler agent"
    stage = StopStage.INPUTS

    def __init__(self, devices: DevicesPart) -> None:
        self.devices = devices
        self.agent: ShufflerAgent | None = None

    def attach(self, tap: LoopTap) -> None:
        self.agent = ShufflerAgent(tap.post, self.devices.get)
        tap.subscribe(self.agent.on_output, ShufflerAgent.KINDS)

    def start(self) -> None:
        assert self.agent is not None
        self.agent.start()
        self.agent.ask_state("shuffler")

    def close(self) -> None:
        if self.agent is not None:
            self.agent.stop()


class WebScoreboardPart(FeatureBase):
    """The players' web scoreboard in its own process (station/web/feed.py): this process
    never imports its web framework."""

    name = "web scoreboard"

    def __init__(self, section: WebSection, port: int) -> None:
        self.section, self.port = section, port
        self.process: ScoreboardProcess | None = None

    def start(self) -> None:
        from station.web.feed import ScoreboardProcess

        web = self.section
        try:
            self.process = ScoreboardProcess(web.bind, self.port, max_connections=web.max_connections).start()
        except OSError as exc:
            reason = "another program holds it" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
            raise ResourceBusy(f"web scoreboard: cannot listen on {web.bind}:{self.port}: {reason}") from None
        log.info("web_scoreboard", url=self.process.url, pid=self.process.pid)

    def begin_stop(self) -> None:
        if self.process is not None:
            self.process.begin_stop()

    def close(self) -> None:
        if self.process is not None:
            self.process.stop()


class PublisherPart(FeatureBase):
    """Feeds the display board and the web scoreboard from the loop's outputs
    (:mod:`station.service.publisher`)."""

    name = "publisher"

    def __init__(self, options: CoreOptions, table: TableSection, table_name: str, devices: DevicesPart,
                 web: WebScoreboardPart | None) -> None:
        self.options, self.table, self.table_name = options, table, table_name
        self.devices, self.web = devices, web
        self.publisher: Publisher | None = None

    def start(self) -> None:
        tap = self.tap
        # The device set builds the "display" slot from the display kind's driver.
        display = cast("DisplayDriver | None", self.devices.get("display"))
        published = tap.published
        sign, info = self.signs(published.limits, published.payout_option)
        self.publisher = Publisher(
            self.options.game, display, web=self.web.process if self.web is not None else None,
            table_info=info, initial_results=tap.inspect(lambda machine: list(machine.shoe_results)),
            limits=sign, view=lambda: tap.inspect(table_view), signs=self.signs,
            limits_in_force=(published.limits, published.payout_option))
        tap.subscribe(self.publisher.on_output, SHOWN_OUTPUTS)
        self.publisher.start()

    def signs(self, limits: Mapping[str, Any], payout_option: str) -> tuple[wire.ShowLimits, TableInfo]:
        """The board's limits sign and the page's table, under ``limits`` (those in force:
        docs/limits.md) and the payout option."""
        from station.web.snapshot import TableInfo

        rules = self.options.rules
        table = rules.table_with_limits(self.options.table, TableLimits.from_json(limits))
        money = Money(self.table.minor_digits, self.table.currency)
        # Besides the table's limits, what the game adds (baccarat: the smallest Banker bet
        # rule 5.12 accepts when chips cannot pay one at the table minimum).
        lines = web_limits(limits, rules.limit_lines(table, payout_option))
        info = TableInfo(self.table_name, rules.title, rules.variant_of(table), lines, money.currency, money.digits)
        return limits_sign(limits, money), info

    def close(self) -> None:
        if self.publisher is not None:
            self.publisher.wait_idle(2.0)  # what the board should show of the last round
            self.publisher.stop()


__all__ = ["DevicesPart", "ExtensionsPart", "PublisherPart", "ShufflerAgentPart", "WebScoreboardPart"]
