"""Why a configuration cannot be used: every problem, each naming the file and the dotted key."""

from __future__ import annotations

from pathlib import Path

from station.config.strict import StrictSection


class ConfigError(Exception):
    """The configuration file cannot be used. ``problems`` are ``(key, message)`` pairs, every
    one found (not only the first); ``partial`` is the configuration with the refused keys at
    their defaults, when it could be built (``--check`` checks the machine against it)."""

    def __init__(self, path: Path, problems: list[tuple[str, str]], partial: StrictSection | None = None) -> None:
        self.path = path
        self.problems = problems
        self.partial = partial
        lines = [f"{path}: {key}: {message}" if key else f"{path}: {message}" for key, message in problems]
        super().__init__("\n".join(lines))


class ConfigFileError(ConfigError):
    """The configuration file is not there or cannot be read at all: a file named on the
    command line that cannot be used (exit status 2), unlike a file with wrong keys (78)."""

