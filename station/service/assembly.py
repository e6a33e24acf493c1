"""A station's features, in order, from its configuration and how it is run.

The order is the start-up's safety argument (docs/architecture.md, "Start-up order"); each
feature's place in it says when it attaches and starts, and its stage when it stops
(:mod:`station.service.features`):

1. the floor features: anchors and the floor feed follow the journal before any device opens;
2. the integrity monitor and the meters hear the loop from the start and catch up after READY;
3. the chip reader's stable reads (believing what the journal believes before any read comes),
   the devices (opened now, each asked for its self-test) and what asks the shuffler;
4. the web scoreboard, then the publisher that feeds it and the display board;
5. the extensions (the simulated table), once the devices and the boards run;
6. the control socket, then the console that asks through it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from station.core.options import CoreOptions
from station.service.config import LoadedConfig
from station.service.dealer_doors import RefusalRecorder, device_sink
from station.service.extension import StationExtension
from station.service.features import Feature, Features
from station.service.hooks import StopRequest
from station.service.parts import DevicesPart, ExtensionsPart, PublisherPart, ShufflerAgentPart, WebScoreboardPart
from station.service.person_parts import ConsolePart, ControlPart
from station.service.progressive_parts import SIGN_TITLE
from station.service.record_parts import FloorPart, IntegrityPart, MetersPart

if TYPE_CHECKING:
    from station.events import Event
    from station.service.chip_parts import ChipReadsPart


@dataclass
class RunOptions:
    """How this run differs from a plain ``station run`` of its configuration."""

    journal: str | None = None
    control_socket: bool = True
    hold_devices: bool = True
    web_port: int | None = None
    extensions: Sequence[StationExtension] = ()
    """Plug-ins (see :mod:`station.service.extension`): the simulation, a demo's report."""


@dataclass(frozen=True)
class StationSpine:
    """What the features are given of the station itself (not of one another)."""

    options: CoreOptions
    journal_path: Path
    refusals: RefusalRecorder
    status: Callable[[], dict[str, Any]]
    request_stop: StopRequest
    #: The last record before this run's (read once the journal is open).
    run_began_after: Callable[[], int]


def build_features(loaded: LoadedConfig, run: RunOptions, spine: StationSpine) -> Features:
    """The features of ``loaded``'s station run as ``run`` says, in the order of the module."""
    config, options, journal_path = loaded.config, spine.options, spine.journal_path
    extensions = ExtensionsPart(run.extensions, spine.request_stop)
    chips = chip_reads_part(loaded)
    devices = DevicesPart(config.devices, lambda post: _chip_routed(chips, device_sink(config, post, spine.refusals)),
                          extensions.endpoints)
    extensions.device = devices.get
    if chips is not None:
        chips.devices = devices.get
    parts: list[Feature] = [
        FloorPart(config, loaded.path, options, journal_path, devices, spine.run_began_after),
        IntegrityPart(options, config.integrity, journal_path),
        MetersPart(options, config.table, journal_path),
        *([] if chips is None else [chips]),
        devices,
    ]
    if config.devices.shuffler is not None:
        parts.append(ShufflerAgentPart(devices))
    web: WebScoreboardPart | None = None
    if config.web.enabled or run.web_port is not None:
        web = WebScoreboardPart(config.web, run.web_port if run.web_port is not None else config.web.port)
        parts.append(web)
    parts += [PublisherPart(options, config.table, config.station.name, devices, web), extensions]
    if config.floor.enabled and config.table.progressive is not None:
        from station.floor.settings import table_id
        from station.service.progressive_parts import PoolListenerPart

        parts.append(PoolListenerPart(config.floor, table_id(config.floor, config.station.name),
                                      config.table.progressive))
    if config.table.progressive is not None and config.devices.sign is not None:
        from station.money import Money
        from station.service.progressive_parts import ProgressiveSignPart

        money = Money(config.table.minor_digits, config.table.currency)
        parts.append(ProgressiveSignPart(devices.get, money, SIGN_TITLE))
    control: ControlPart | None = None
    if run.control_socket:
        control = ControlPart(config.control, journal_path, loaded.path, spine.status, spine.refusals,
                              tray_antenna=config.chip_reader is not None and config.chip_reader.reads_tray())
        parts.append(control)
    parts.append(ConsolePart(options, config.console, config.control, config.table, config.station.name,
                             (loaded.path, journal_path), control, spine.refusals))
    return Features(parts)


def chip_reads_part(loaded: LoadedConfig) -> ChipReadsPart | None:
    """The chip reader's part when ``[chip_reader]`` is configured, its registry read now: a
    registry file that cannot be read stops the start as any configuration error does."""
    config = loaded.config
    if config.chip_reader is None:
        return None
    from station.money import Money
    from station.service.chip_parts import ChipReadsPart, chip_registry

    money = Money(config.table.minor_digits, config.table.currency)
    registry = chip_registry(config.chip_reader, loaded.path, money)
    return ChipReadsPart(config.chip_reader, registry, config.chip_reader.registry)


def _chip_routed(chips: ChipReadsPart | None, post: Callable[[Event], None]) -> Callable[[Event], None]:
    """The drivers' events through the chip reader's part first, when there is one."""
    return post if chips is None else chips.router(post)
