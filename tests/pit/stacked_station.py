"""A real station dealing a stacked shoe at its configured pace, that stays up when its table
stops: ``station run``'s own Station with the simulation plug-in, the shoe given as a file of
card codes (``station demo --shoe-file``'s format), and one listening extension that halts the
simulated dealer at the first irregularity (a simulated dealer that cannot go on otherwise
stops the whole station). ``station run`` has no stacked shoe; a pit must see a table stopped
for an alarm while its station is still online, until SIGTERM.

Run as ``python stacked_station.py CONFIG JOURNAL SHOE_FILE``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from station.cli.commands.run import serve
from station.config.options import core_options
from station.core import outputs as out
from station.host.logging import configure_logging
from station.service.app import RunOptions, Station
from station.service.config import load_config
from station.service.extension import StationHooks
from station.sim.plugin import DealerOverrides, Simulation
from station.sim.shoe_file import parse_shoe_file


class HaltAtIrregularity:
    """The table waits for a supervisor; the simulated dealer waits with it."""

    def __init__(self, simulation: Simulation) -> None:
        self.simulation = simulation

    def prepare(self) -> dict[str, Any]:
        return {}

    def attach(self, hooks: StationHooks) -> None:
        hooks.subscribe(self, (out.IrregularityRaised,))

    def __call__(self, _output: out.Output) -> None:
        self.simulation.halt()

    def halt(self) -> None:
        """Nothing of its own to stop."""

    def close(self) -> None:
        """Nothing to release."""


def main() -> int:
    config, journal, shoe = sys.argv[1:4]
    loaded = load_config(config)
    configure_logging("json", "info", stream=sys.stderr)
    stacked = parse_shoe_file(Path(shoe).read_text(), shoe)
    simulation = Simulation(loaded.config, core_options(loaded.config, loaded.path),
                            DealerOverrides(simulated=True, stacked_shoe=stacked))
    station = Station(loaded, RunOptions(journal=journal, control_socket=False, hold_devices=False,
                                         extensions=(simulation, HaltAtIrregularity(simulation))))
    serve(station)
    return 0


if __name__ == "__main__":
    sys.exit(main())
