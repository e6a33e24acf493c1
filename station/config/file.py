"""Reading a configuration file: its TOML, or why it cannot be read (naming the file)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from station.config.errors import ConfigError, ConfigFileError
from station.resources import default_configuration

#: The default (simulated) configuration, shipped with the station (:mod:`station.resources`).
DEFAULT_CONFIG = default_configuration()


def read_config_data(path: Path) -> dict[str, Any]:
    """The TOML of a configuration file, or :class:`ConfigError` (:class:`ConfigFileError`
    when there is no file to read)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigFileError(path, [("", "no such configuration file")]) from None
    except OSError as exc:
        raise ConfigFileError(path, [("", f"cannot read: {exc.strerror}")]) from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(path, [("", "not UTF-8 text")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, [("", f"not valid TOML: {exc}")]) from None
