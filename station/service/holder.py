"""Who holds the table's devices: the running service announces it, diagnostics respect it.

A diagnostic that drives hardware (display test, deck check, pedal test, probe) must not
fight a running service for a device, nor disturb a live round. Each running station holds an
exclusive ``flock`` on a holder file in the runtime directory for as long as it runs and keeps
a small JSON description in it: its pid, its journal, the devices it holds (name and URL) and
whether a round is live. The lock, not the file's existence, is the truth: a file left by a
crashed service is not held, so it is ignored.

The file is named after the station's journal (``station-<hash of the journal path>.lock``):
two stations with different journals run side by side without refusing each other (the
journal's own writer lock keeps two stations off one journal). A diagnostic looks at every
holder in the directory: any station that holds the device refuses it, and a live round
refuses everything only on its own table, the one whose journal the diagnostic's
configuration names (one user may run the stations of several tables).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from station.service.paths import runtime_directory

LOCK_PREFIX = "station"


def holder_name(journal: Path | None) -> str:
    """The holder file of the station writing ``journal`` (``station.lock`` when none is named)."""
    if journal is None:
        return f"{LOCK_PREFIX}.lock"
    digest = hashlib.sha256(str(journal.resolve()).encode()).hexdigest()[:12]
    return f"{LOCK_PREFIX}-{digest}.lock"


class DeviceBusy(Exception):
    """A diagnostic was refused because the service holds the device or a round is live."""


@dataclass(frozen=True)
class HolderInfo:
    pid: int
    devices: dict[str, str]
    round_live: bool
    state: str
    journal: str = ""


class ServiceHolder:
    """Held by the running service: the lock plus the published description."""

    def __init__(self, directory: Path | None = None, journal: Path | None = None) -> None:
        self.path = (directory or runtime_directory()) / holder_name(journal)
        self.journal = journal
        self._fd: int | None = None
        self._devices: dict[str, str] = {}
        self._round_live = False
        self._state = "starting"

    def acquire(self, devices: dict[str, str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            info = _read(self.path)
            pid = f" (pid {info.pid})" if info else ""
            raise DeviceBusy(f"another station{pid} is already running with {self.path}") from None
        self._fd = fd
        self._devices = dict(devices)
        self._write()

    def update(self, *, round_live: bool, state: str) -> None:
        """Publish the table state; cheap when nothing a diagnostic cares about changed."""
        if self._fd is None or (round_live == self._round_live and state == self._state):
            return
        self._round_live, self._state = round_live, state
        self._write()

    def _write(self) -> None:
        assert self._fd is not None
        data = json.dumps({
            "pid": os.getpid(), "journal": str(self.journal or ""), "devices": self._devices,
            "round_live": self._round_live, "state": self._state,
        }).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def read_holders(directory: Path | None = None) -> list[HolderInfo]:
    """Every running station's description in ``directory`` (the runtime directory)."""
    folder = directory or runtime_directory()
    try:
        paths = sorted(folder.glob(f"{LOCK_PREFIX}*.lock"))
    except OSError:
        return []
    return [info for info in map(_read, paths) if info is not None]


def read_holder(directory: Path | None = None) -> HolderInfo | None:
    """A running station's description (the first found), or ``None`` when none holds a lock."""
    holders = read_holders(directory)
    return holders[0] if holders else None


def _read(path: Path) -> HolderInfo | None:
    """The description in ``path`` if a running station holds it; None for a leftover."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raw = os.pread(fd, 65536, 0)
            try:
                data: dict[str, Any] = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                data = {}
            return HolderInfo(
                pid=int(data.get("pid", 0)),
                devices=dict(data.get("devices", {})),
                round_live=bool(data.get("round_live", False)),
                state=str(data.get("state", "unknown")),
                journal=str(data.get("journal", "")),
            )
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None  # nobody holds it: a leftover from a stopped or crashed service
    finally:
        os.close(fd)


def _same_journal(holder: str, journal: Path | None) -> bool:
    """Whether a holder guards ``journal`` (a holder that does not say, or a caller that does
    not know, counts as the same table: refusing is the safe side)."""
    if journal is None or not holder:
        return True
    return Path(holder).resolve() == journal.resolve()


def how_to_stop(pid: int, proc: Path = Path("/proc")) -> str:
    """How the station ``pid`` is stopped, as it runs: its systemd unit when a unit started
    it (``systemctl stop <unit>``), else by hand (it was started in a terminal)."""
    try:
        cgroup = (proc / str(pid) / "cgroup").read_text()
    except OSError:
        cgroup = ""
    units = [part for line in cgroup.splitlines() for part in line.rsplit("/", 1)[-1:] if part.endswith(".service")]
    unit = units[0] if units else ""
    if unit and not unit.startswith(("user@", "session-")):
        return f"systemctl stop {unit.removesuffix('.service')}"
    return f"it was started by hand: Ctrl-C in its terminal, or kill {pid}"


def refuse_if_held(device: str, url: str, directory: Path | None = None, journal: Path | None = None) -> None:
    """Raise :class:`DeviceBusy` with a message a technician can act on: a round is live on
    the station of this table (the one writing ``journal``), or any station of this machine
    holds the device. A live round of another table's station (another journal, under the
    same user) refuses only its own devices."""
    for info in read_holders(directory):
        if info.round_live and _same_journal(info.journal, journal):
            raise DeviceBusy(
                f"refused: a round is live on this table (service pid {info.pid}, state '{info.state}'); "
                "wait for the round to end and close the table, or stop the service"
            )
        held_urls = set(info.devices.values())
        if device in info.devices or url in held_urls:
            raise DeviceBusy(
                f"refused: the station (pid {info.pid}) holds the {device} "
                f"({info.devices.get(device, url)}); stop it first: {how_to_stop(info.pid)}"
            )
