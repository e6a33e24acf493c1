"""The configuration files that ship with the station: the default (simulated) one and the
examples.

They are kept in the checkout's ``config/`` folder, where a developer edits them, and built
into the package as ``station.defaults`` (``pyproject.toml`` maps that package to
``config/``), so an installed station finds them wherever it runs from. An editable install
of a checkout has no such package; it reads the checkout's ``config/`` itself.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

#: The checkout's folder, for an editable install (this file is station/resources.py).
_CHECKOUT_CONFIG = Path(__file__).resolve().parent.parent / "config"


def configuration_folder() -> Path:
    """The folder holding ``station.toml`` and ``examples/``."""
    try:
        folder = importlib.resources.files("station.defaults")
    except ModuleNotFoundError:
        return _CHECKOUT_CONFIG
    # An installed wheel keeps package data as real files; joining a name gives their path.
    return Path(str(folder / "station.toml")).parent


def default_configuration() -> Path:
    """The default, simulated configuration (what ``station run`` uses without one)."""
    return configuration_folder() / "station.toml"


def example_names() -> list[str]:
    """The examples' names (``production``, ``casino-war``, …), sorted."""
    return sorted(path.stem for path in (configuration_folder() / "examples").glob("*.toml"))


def example(name: str) -> Path:
    """The example called ``name``; :class:`LookupError` naming the choices otherwise."""
    path = configuration_folder() / "examples" / f"{name}.toml"
    if not path.is_file():
        raise LookupError(f"no example named {name!r}; choose from {', '.join(example_names())}")
    return path
