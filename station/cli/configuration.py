"""The configuration as the commands that start simulators load it (``run``, ``demo``, ``diag``).

:func:`station.service.config.load_config` judges everything the station itself knows. Whether
a simulated device's ``options`` are options its simulator takes is the simulation's to say,
and the service never imports the simulation (docs/architecture.md): so the commands that may
start a simulator add that check here, and a typo in an option (``sed = 1``) is one more line
naming its key, in the same run as every other problem.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from station.service.config import LoadedConfig, load_config


def simulator_option_problems(data: Any) -> list[tuple[str, str]]:
    """Options of ``sim:`` devices that their simulators do not take, from the file as read."""
    from drivers.simulators.options import unknown_options

    devices = data.get("devices") if isinstance(data, dict) else None
    problems: list[tuple[str, str]] = []
    for name, section in (devices.items() if isinstance(devices, dict) else ()):
        if not isinstance(section, dict) or not str(section.get("url", "")).startswith("sim:"):
            continue
        options = section.get("options")
        for key, takes in unknown_options(name, options if isinstance(options, dict) else {}):
            problems.append((f"devices.{name}.options.{key}",
                             f"the simulated {name} takes no option {key!r} (it takes: {', '.join(takes) or 'none'})"))
    return problems


def load_station_config(path: str | Path) -> LoadedConfig:
    """The configuration, every problem of it refused at once (:class:`~station.service.config.ConfigError`)."""
    return load_config(path, more_checks=simulator_option_problems)
