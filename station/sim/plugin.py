"""The simulation as a plug-in of the station: simulated devices and a simulated dealer.

``station run`` and ``station demo`` load it when the configuration names a ``sim:`` device;
the service only sees a :class:`~station.service.extension.StationExtension` that gives it
device endpoints, posts the dealer's screen actions, hears the outputs the dealer acts on,
and observes the shoe's deliveries. The production path never imports this package.

Where each simulator runs:

- the serial devices (shoe, shuffler, display, button box) run in the simulated table's own
  process (:mod:`station.sim.table`), reached over pseudo-terminals as real devices are reached
  over serial lines, with the simulated dealer beside them when one is wanted;
- the USB pedals run in the station's process behind a simulated pyusb backend, so the real
  pyusb code path runs; the dealer's presses come over the table's pipe.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from drivers.simulators import RunningSimulator, simulator_options, start_simulator
from drivers.usb.protocol import DEFAULT_BUTTONS as PEDAL_BUTTONS
from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.core.rounds import RoundId
from station.service.config import StationConfig
from station.service.extension import StationHooks
from station.sim.chip_script import ChipScript, chip_script
from station.sim.messages import Resume, View
from station.sim.script import DealerScript
from station.sim.spec import TableSpec
from station.sim.table import TABLE_OUTPUTS, SimulatedTable

log = structlog.get_logger(__name__)

SIM = "sim:"


@dataclass(frozen=True)
class DealerOverrides:
    """How a run's simulated dealer differs from the configuration's ``[dealer]`` section
    (``station demo``'s options); None keeps the configured value."""

    simulated: bool | None = None
    pace_s: float | None = None
    seed: int = 1
    stacked_shoe: Sequence[Any] | None = None
    bets: Mapping[str, int] | None = None
    rounds: int = 0
    """The dealer never starts a round beyond this many (0: no limit)."""
    gives_up: bool = False
    """The dealer stops when a person is needed or the station stands still (``station
    demo``, which has nobody to decide); otherwise it waits for them (``station run``)."""


def is_simulated(config: StationConfig) -> bool:
    """True when any configured device is simulated: the run needs this plug-in."""
    return any(section.url.startswith(SIM) for _, section in config.devices.configured())


class Simulation:
    """Simulated devices and, when wanted, the simulated dealer, for one station run."""

    def __init__(self, config: StationConfig, options: CoreOptions, overrides: DealerOverrides | None = None,
                 config_path: Path | None = None) -> None:
        self.config = config
        self.config_path = config_path
        self.options = options
        self.overrides = overrides or DealerOverrides()
        self.table: SimulatedTable | None = None
        self._pedals: RunningSimulator | None = None
        self._card_reader: RunningSimulator | None = None
        self._hooks: StationHooks | None = None
        self._halted = False

    @property
    def error(self) -> str | None:
        """Why the simulated dealer stopped, when it could not go on."""
        return self.table.error if self.table is not None else None

    # --- the extension's steps -----------------------------------------------------------

    def prepare(self) -> dict[str, Any]:
        """Start the table's process (before the station has any thread) and the pedals."""
        endpoints: dict[str, Any] = {}
        serial = self._serial_devices()
        if serial:
            self.table = SimulatedTable(self._table_spec(serial), post=self._post, press=self._press_pedal)
            endpoints.update(self.table.start())
        pedals = self.config.devices.pedals
        if pedals is not None and pedals.url.startswith(SIM):
            # In this process, behind a simulated pyusb backend: the real pyusb path runs.
            keys = {"keys": dict(pedals.keys)} if pedals.keys else {}  # a foot switch sends the configured keys
            self._pedals = start_simulator("pedals", simulator_options("pedals", {**pedals.options, **keys},
                                                                       pedals.url, {}))
            endpoints["pedals"] = self._pedals.endpoint
        reader = self.config.devices.cardreader
        if reader is not None and reader.url.startswith(SIM):
            # In this process, at python-evdev's boundary: the real evdev driver reads it.
            self._card_reader = start_simulator("cardreader")
            endpoints["cardreader"] = self._card_reader.endpoint
        return endpoints

    def attach(self, hooks: StationHooks) -> None:
        """Order the dealer's actions after the shoe's cards, show it the table, let it deal."""
        self._hooks = hooks
        table = self.table
        if table is None or not self._dealer_wanted():
            return
        hooks.observe_deliveries("shoe", table.shoe_delivered)
        hooks.subscribe(lambda output: table.on_output(output, View(*hooks.view())), TABLE_OUTPUTS)
        state, expectation = hooks.view()
        table.begin(hooks.inspect(lambda machine: resume_point(machine, state, expectation, self.options)))
        threading.Thread(target=self._watch_dealer, name="dealer-watch", daemon=True).start()

    def halt(self) -> None:
        self._halted = True
        if self.table is not None:
            self.table.halt_dealer()

    def close(self) -> None:
        self._halted = True
        if self.table is not None:
            self.table.stop()  # its simulators, now that no driver talks to them
        if self._pedals is not None:
            self._pedals.stop()
        if self._card_reader is not None:
            self._card_reader.stop()

    # --- helpers -----------------------------------------------------------------------------

    def _dealer_wanted(self) -> bool:
        wanted = self.config.dealer.simulated if self.overrides.simulated is None else self.overrides.simulated
        shoe = self.config.devices.shoe
        if wanted and (shoe is None or not shoe.url.startswith(SIM)):
            log.warning("simulated_dealer_needs_simulated_shoe")
            return False
        return wanted

    def _serial_devices(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """Every ``sim:`` serial device with its simulator's options: the table's facts, then
        the device's ``options`` in the configuration, then the options in its URL."""
        table_facts = {"shuffler": {
            "mode": "continuous" if self.options.equipment == "continuous" else "batch",
            "decks": self.options.decks, "set_colour": self.options.set_colours[0], "load": False,
            "seed": self.overrides.seed,
        }}
        if self.config.chip_reader is not None:  # as many antennas as the layout has places
            table_facts["chipreader"] = {"antennas": max(self.config.chip_reader.places())}
        devices = {}
        for name, section in self.config.devices.configured():
            if name not in ("pedals", "cardreader") and section.url.startswith(SIM):
                devices[name] = (name, simulator_options(name, section.options, section.url, table_facts))
        return devices

    def _table_spec(self, devices: dict[str, tuple[str, dict[str, Any]]]) -> TableSpec:
        o = self.overrides
        configured = self.config.dealer
        script = DealerScript(
            decks=self.options.decks, seed=o.seed,
            pace_s=o.pace_s if o.pace_s is not None else configured.pace_ms / 1000,
            stacked_shoe=o.stacked_shoe,
            bets=o.bets if o.bets is not None else dict(configured.bets),
            rounds=o.rounds, patience_s=configured.patience_ms / 1000, gives_up=o.gives_up,
            chips=self._chip_script() if "chipreader" in devices and configured.bets_by == "chips" else None,
        )
        pedals = self.config.devices.pedals
        simulated_pedals = pedals is not None and pedals.url.startswith(SIM)
        return TableSpec(devices, self.options, script, frozenset(PEDAL_BUTTONS) if simulated_pedals else frozenset())

    def _chip_script(self) -> ChipScript | None:
        """The simulated dealer's chips: the configured antennas and the registry's active chips."""
        reader, rule = self.config.chip_reader, self.config.table.chip_bets
        if reader is None or rule is None or self.config_path is None:
            return None
        from station.chips.registry import ChipStatus
        from station.money import Money
        from station.service.chip_parts import chip_registry

        table = self.config.table
        registry = chip_registry(reader, self.config_path, Money(table.minor_digits, table.currency))
        rack: dict[int, list[str]] = {}
        for record in registry.records:
            if record.status is ChipStatus.ACTIVE:
                rack.setdefault(record.value, []).append(record.uid)
        return chip_script(reader.places(), rack, rule.confirm)

    def _post(self, event: Any) -> None:
        if self._hooks is not None:
            self._hooks.post(event)

    def _press_pedal(self, button: str) -> None:
        """The simulated dealer's foot on the simulated pedals (in this process, on pyusb)."""
        pedals = self._pedals
        if pedals is not None and button in pedals.simulator.buttons:
            pedals.simulator.press(button)
            pedals.simulator.release(button)

    def _watch_dealer(self) -> None:
        assert self.table is not None
        self.table.stopped.wait()
        if self.table.error and not self._halted and self._hooks is not None:
            self._hooks.request_stop(f"simulated dealer stopped: {self.table.error}",
                                     failed=not self.table.asked_to_stop)


def resume_point(machine: TableMachine, state: str, expectation: str, options: CoreOptions) -> Resume:
    """Where the station stands after replaying its journal, as the dealer needs to know it."""
    shoe = machine.shoe
    continuous = options.equipment == "continuous"
    r = machine.round
    round_cards = tuple(card for _, card in r.dealt) if r is not None else ()
    # Out of a continuous shuffler: the cards cleared and not yet counted back, and those on the
    # layout (dealt, burned, dummy), less those the dealer dropped in ahead of "next round"
    # (the shuffler counted them back already; the station notes them as returned ahead).
    out_cards = list(shoe.awaiting_return)
    if r is not None:
        out_cards += [*round_cards, *r.burned, *r.dummy]
    for card in shoe.returned_ahead:
        if card in out_cards:
            out_cards.remove(card)
    results = machine.shoe_results
    last_outcome = str(results[-1].get("outcome", "")) if results else ""
    return Resume(
        state, expectation,
        remaining=None if continuous else shoe.composition,
        cut_card_out=bool(shoe.progress is not None and shoe.progress.cut_card_out),
        shoe_in_progress=bool(shoe.number), out_cards=tuple(out_cards) if continuous else (),
        round_cards=round_cards, shoes_dealt=shoe.number,
        last_outcome=last_outcome if last_outcome != "tie" or _bets_left_on(machine) else "",
        confirm_payouts=machine.confirm_payouts,
        payouts_due=machine.round.round_id if machine.round is not None and machine.payouts_hold() else "",
        **_chips_left(machine),
    )


def _chips_left(machine: TableMachine) -> dict[str, Any]:
    """The chips the journal last read, and what a settled round still on the table owes."""
    layout = machine.chip_layout
    if layout is None:
        return {}
    on = tuple((place, tuple(c.uid for c in chips)) for place, chips in sorted(layout.seen.items()) if chips)
    owed = None if layout.owed is None else tuple(sorted(layout.owed.items()))
    return {"chips_on": on, "chips_owed": owed}


def _bets_left_on(machine: TableMachine) -> bool:
    """Whether the Banker/Player bets of a Tie are on the layout, so the dealer must not place
    them again (5.16): once the Tie is settled, until the next round opens, the core holds them
    (``carried``); from then they are that round's, while it is open. A shoe's end returns them
    to their owners (``carried`` is dropped), though the shoe's results still end on the Tie
    until the next cut: "tie" there would make the dealer deal the new shoe's first round
    without its Banker and Player bets."""
    if machine.carried is not None:
        return True
    r, results = machine.round, machine.shoe_results
    if r is None or r.settled or not results:
        return False
    tied, open_round = RoundId.parse(str(results[-1]["round_id"])), RoundId.parse(str(r.round_id))
    return results[-1].get("outcome") == "tie" and (tied.shoe, tied.number + 1) == (open_round.shoe, open_round.number)
