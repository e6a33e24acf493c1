"""A real station whose simulated dealer stops when the first shoe ends: it then stays up,
idle, for a test to scrape its metrics and read its journal, until SIGTERM.

Run as ``python station_child.py CONFIG JOURNAL``. It is ``station run``'s own Station with
the simulation plug-in, plus one listening extension that halts the dealer at ``ShoeEnded``
(``station run`` has no round limit, and ``station demo`` stops the whole station).
"""

from __future__ import annotations

import sys
from typing import Any

from station.cli.commands.run import serve
from station.config.options import core_options
from station.core import outputs as out
from station.host.logging import configure_logging
from station.service.app import RunOptions, Station
from station.service.config import load_config
from station.service.extension import StationHooks
from station.sim.plugin import DealerOverrides, Simulation


class HaltAtShoeEnd:
    def __init__(self, simulation: Simulation) -> None:
        self.simulation = simulation

    def prepare(self) -> dict[str, Any]:
        return {}

    def attach(self, hooks: StationHooks) -> None:
        hooks.subscribe(self, (out.ShoeEnded,))

    def __call__(self, _output: out.Output) -> None:
        self.simulation.halt()

    def halt(self) -> None:
        """Nothing of its own to stop."""

    def close(self) -> None:
        """Nothing to release."""


def main() -> int:
    loaded = load_config(sys.argv[1])
    configure_logging("json", "info", stream=sys.stderr)
    simulation = Simulation(loaded.config, core_options(loaded.config, loaded.path),
                            DealerOverrides(simulated=True, pace_s=0.0))
    station = Station(loaded, RunOptions(journal=sys.argv[2], control_socket=False, hold_devices=False,
                                         extensions=(simulation, HaltAtShoeEnd(simulation))))
    serve(station)
    return 0


if __name__ == "__main__":
    sys.exit(main())
