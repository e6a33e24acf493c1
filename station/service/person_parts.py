"""The features people come through: the control socket (``station ctl``, the technicians'
tools) and the dealer's console, which asks through the socket's own checks.

Each is a :class:`~station.service.features.Feature` built by
:func:`station.service.assembly.build_features`.
"""

from __future__ import annotations

import pwd
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from station.config.errors import ConfigError
from station.console.launch import ConsoleWiring, start_console
from station.core.options import CoreOptions
from station.events import AccessDenied
from station.service.control import Authenticator, ControlServer, Credential
from station.service.control_commands import control_commands
from station.service.dealer_doors import DEALING_ROLES, RefusalRecorder
from station.service.features import FeatureBase, StopStage
from station.service.paths import control_socket_path, socket_path_problem

log = structlog.get_logger("station.service")

if TYPE_CHECKING:
    from station.config.table import TableSection
    from station.config.users import ControlSection
    from station.console.feed import ConsoleProcess
    from station.console.settings import ConsoleSection


def local_accounts(names: list[str]) -> dict[int, str]:
    """The uids of the local accounts ``names`` (one not on this PC is left out, and logged)."""
    found: dict[int, str] = {}
    for name in names:
        try:
            found[pwd.getpwnam(name).pw_uid] = name
        except KeyError:
            log.warning("control_local_account_unknown", account=name)
    return found


class ControlPart(FeatureBase):
    """The control socket: each request checked against the configured users, turned into an
    input for the table (journaled with who asked) or answered from the status."""

    name = "control socket"
    stage = StopStage.INPUTS

    def __init__(self, section: ControlSection, journal_path: Path, config_path: Path,
                 status: Callable[[], dict[str, Any]], refusals: RefusalRecorder, tray_antenna: bool = False) -> None:
        """``tray_antenna``: the chip reader has an antenna under the tray (docs/tray.md)."""
        self.section, self.journal_path, self.config_path = section, journal_path, config_path
        self._status, self._refusals, self.tray_antenna = status, refusals, tray_antenna
        self.server: ControlServer | None = None

    def start(self) -> None:
        tap = self.tap
        users = self.section.users
        credentials = [Credential(u.name, u.role, u.token_sha256) for u in users if u.token_sha256]
        dealers = {u.name: u.role for u in users if u.role in DEALING_ROLES}
        commands = control_commands(tap.post, self._status, dealers=dealers,
                                    card_read=lambda: tap.published.card_read, tray_antenna=self.tray_antenna)
        path = control_socket_path(self.section.socket or None, self.journal_path)
        problem = socket_path_problem(path)
        if problem:
            raise ConfigError(self.config_path, [("control.socket", problem)])
        local = local_accounts(self.section.local_technicians)
        self.server = ControlServer(path, Authenticator(credentials, local), commands, mode=self.section.socket_mode,
                                    on_denied=lambda actor, command: tap.post(AccessDenied(actor, command)),
                                    on_unknown=lambda reason: self._refusals.refused("control", reason))
        self.server.start()

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()

    def status(self) -> dict[str, Any]:
        return {"control": self.server.stats.as_dict() if self.server is not None else None}


class ConsolePart(FeatureBase):
    """The dealer's console (station/console/), when it is configured and the control socket
    runs: a person there asks as the socket's users do. Whether payouts wait for a dealer's
    confirmation follows from it, so this part journals that rule even when there is no
    console."""

    name = "console"

    def __init__(self, options: CoreOptions, section: ConsoleSection, control: ControlSection, table: TableSection,
                 table_name: str, paths: tuple[Path, Path], door: ControlPart | None,
                 refusals: RefusalRecorder) -> None:
        """``paths``: the configuration file's and the journal's."""
        self.options, self.section, self.control, self.table = options, section, control, table
        self.table_name, self.paths, self.door, self.refusals = table_name, paths, door, refusals
        self.process: ConsoleProcess | None = None

    def start(self) -> None:
        server = self.door.server if self.door is not None else None
        self.process = start_console(ConsoleWiring(
            self.tap, self.options, self.section, self.control.users, self.table, self.table_name, *self.paths,
            server.serve_line if server is not None else None, self.refusals.refused,
            tray_antenna=self.door is not None and self.door.tray_antenna))

    def begin_stop(self) -> None:
        if self.process is not None:
            self.process.begin_stop()

    def close(self) -> None:
        if self.process is not None:
            self.process.stop()
