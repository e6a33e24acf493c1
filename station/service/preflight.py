"""``station run --check``: everything ``station run`` would refuse, found without starting it.

Loading the configuration already refuses bad keys and URLs the station could never open.
This adds what depends on the machine: the journal (is it one, was it written under this
configuration, can it be written, is another station writing it), the web scoreboard's port,
and the devices (do the configured paths exist now; which devices are simulated). A finding
that ``run`` would refuse is an error; one it would start with, but that a technician should
know of (a shoe not plugged in yet, simulated hardware), is a warning.
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from station.config.options import (
    CONFIGURATION_RECORD,
    LIMIT_CONFIG_KEYS,
    changed_keys,
    configuration_record,
    journal_changes,
    recorded_rules,
)
from station.journal.location import journal_location
from station.journal.lock import lock_path
from station.journal.store import JournalError, JournalMissingError, JournalReader
from station.service.config import LoadedConfig


@dataclass(frozen=True)
class Finding:
    """One thing ``--check`` found, under the configuration key or file it concerns."""

    where: str
    text: str
    error: bool
    """True when ``station run`` would refuse to start because of it."""


def preflight(loaded: LoadedConfig, journal: Path, web_port: int | None = None) -> list[Finding]:
    """Every finding, errors first."""
    findings = [*_journal(loaded, journal), *_control(loaded, journal), *_web(loaded, web_port), *_devices(loaded),
                *_floor(loaded, journal)]
    return sorted(findings, key=lambda f: not f.error)


def journal_folder_problems(loaded: LoadedConfig, explicit: str | None) -> list[tuple[str, str]]:
    """A journal whose folder the configuration names must find it there: a typo in
    ``station.journal`` would otherwise start a new, empty journal in a new folder, and the
    rounds would seem gone. (The default places, ``$STATE_DIRECTORY`` and the user's state
    folder, are made by systemd or by the station; ``--journal`` is the person's own.)"""
    path, chosen_by = journal_location(explicit, loaded.config.station.journal or None)
    if chosen_by != "configuration file" or path.parent.is_dir():
        return []
    return [("station.journal", f"the folder {path.parent} does not exist: create it (install -d -o dealing-station "
                                f"{path.parent}) or correct the path; the station does not make a configured "
                                "journal's folder")]


def _control(loaded: LoadedConfig, journal: Path) -> list[Finding]:
    """The control socket's path: where ``run`` would listen must fit a socket address."""
    from station.service.paths import control_socket_path, socket_path_problem

    problem = socket_path_problem(control_socket_path(loaded.config.control.socket or None, journal))
    return [Finding("control.socket", problem, True)] if problem else []


def _floor(loaded: LoadedConfig, journal: Path) -> list[Finding]:
    """The files [floor] names, and the metrics port (docs/floor.md, docs/metrics.md)."""
    from station.floor.service import port_problem, setting_problems

    problems = [*setting_problems(loaded.config, journal), *filter(None, [port_problem(loaded.config)])]
    return [Finding(key, text, True) for key, text in problems]


def _journal(loaded: LoadedConfig, journal: Path) -> list[Finding]:
    where = f"journal {journal}"
    folder = journal.parent
    try:
        with JournalReader(journal) as reader:
            recorded = reader.last_of_kind(CONFIGURATION_RECORD)
    except JournalMissingError:
        recorded = None
        existing = folder
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if not os.access(existing, os.W_OK | os.X_OK):
            return [Finding(where, f"cannot be created: {existing} is not writable by this user", True)]
        return []
    except JournalError as exc:
        return [Finding(where, str(exc), True)]
    findings = []
    if not os.access(folder, os.W_OK | os.X_OK) or not os.access(journal, os.W_OK):
        findings.append(Finding(where, "is not writable by this user", True))
    if recorded is not None:
        current = configuration_record(loaded.config)
        changed = journal_changes(recorded.payload, current)
        limits = [key for key in changed_keys(recorded_rules(recorded.payload, current), current)
                  if key in LIMIT_CONFIG_KEYS]
        if limits and not changed:
            findings.append(Finding(where, f"was started under other limits ({', '.join(limits)}): station run "
                                           "journals this file's limits as a change from the next round, unless an "
                                           "earlier start did (docs/limits.md)", False))
        if changed:
            from station.service.station_journal import new_journal_words

            findings.append(Finding(where, f"was written under another configuration (changed: {', '.join(changed)}): "
                                           f"{new_journal_words(journal)}", True))
    holder = _writer_holding(journal)
    if holder is not None:
        findings.append(Finding(where, f"is being written by {holder}: a journal has one writer", True))
    return findings


def _writer_holding(journal: Path) -> str | None:
    """Who holds the journal's writer lock, without taking it for longer than a look."""
    try:
        fd = os.open(lock_path(journal), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None  # no lock file: no writer has ever held it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return f"process {pid}" if pid.isdigit() else "another process"
    finally:
        os.close(fd)
    return None


def _web(loaded: LoadedConfig, web_port: int | None) -> list[Finding]:
    web = loaded.config.web
    if not web.enabled and web_port is None:
        return []
    port = web.port if web_port is None else web_port
    family = socket.AF_INET6 if ":" in web.host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((web.host, port))
        except OSError as exc:
            reason = "another program holds it" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
            return [Finding("web.port", f"cannot listen on {web.host}:{port}: {reason}", True)]
    return []


def _devices(loaded: LoadedConfig) -> list[Finding]:
    findings = []
    simulated = []
    for name, section in loaded.config.devices.configured():
        if section.url.startswith("sim:"):
            simulated.append(name)
        elif section.url.startswith("/") and not Path(section.url).exists():
            findings.append(Finding(f"devices.{name}.url", f"{section.url} does not exist now (not plugged in? "
                                                            "see `station diag ports`); the station will keep trying",
                                    False))
    if simulated:
        findings.append(Finding("devices", f"SIMULATED, not real hardware: {', '.join(simulated)} "
                                           "(url = \"sim:\"); do not use this configuration at a live table", False))
    return findings
