"""One table of the soak (bench/soak.py): a shipped configuration under the real ``station run``.

A :class:`SoakTable` owns one station's folder, its journal (on a file system of its own when
the machine lets the soak mount one, so that its disk can be filled), every run of ``station
run`` with its own log, and what it takes to hurt it from outside: its process and its
children by name, its simulated table's fault door, its wall clock. It never reads the
station's memory: what it knows, it reads from logs, journals, ``/proc`` and sockets, as a
technician would.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from station.service.control import ControlError, hash_token, request  # noqa: E402
from tests.shipped import RunnableCopy, runnable_copy  # noqa: E402
from tests.wallclock import WallClock  # noqa: E402

#: How long a SIGKILLed station may take to be gone. Seen over 30 s once on a loaded machine
#: (the kernel ends a process only once each of its threads leaves an uninterruptible wait).
KILL_WAIT_S = 120.0


def process_state(pid: int) -> str:
    """The kernel's word on a process that will not end: its state and what it waits in."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        state = next((line.split(":", 1)[1].strip() for line in status.splitlines() if line.startswith("State:")), "?")
        wchan = Path(f"/proc/{pid}/wchan").read_text().strip() or "-"
    except OSError as exc:
        return f"no /proc entry: {exc.strerror}"
    return f"state {state}, waiting in {wchan}"

#: The station's children, by the start of the name each gives itself (setproctitle).
CHILDREN = {"console": "station-console", "scoreboard": "station-scoreboard", "outbox": "station-floor-outbox",
            "table": "station-sim-table"}
#: Size of a table's own file system (tmpfs: memory only as far as it is filled).
DISK_MB = 1024
#: The soak's supervisor, on every table's control socket.
SUPERVISOR = "soak-supervisor"
SUPERVISOR_TOKEN = "soak-supervisor-token-not-a-secret"


def _proc_children(pid: int) -> dict[str, int]:
    """The processes whose parent is ``pid``, by the kind of child their name says."""
    found: dict[str, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid != pid:
            continue
        for kind, prefix in CHILDREN.items():
            if cmdline.startswith(prefix):
                found[kind] = int(entry.name)
    return found


def names_a_station(title: str, pids: set[int]) -> bool:
    """A child's title names one of ``pids`` as its station: "station 2555" names 2555, and
    "of station 25556" does not (a substring would take another table's children for its)."""
    return any(int(number) in pids for number in re.findall(r"\bstation (\d+)\b", title))


def processes_naming(pids: set[int]) -> list[str]:
    """Every live process that names one of ``pids`` as its station in its title, or whose
    parent is one of them: what a killed or stopped station must not leave behind."""
    left = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if " Z " in stat.split(")", 1)[1][:3]:
            continue  # a zombie waiting for its parent: gone but for its exit status
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        named = names_a_station(cmdline, pids)
        if (named and cmdline.startswith("station-")) or ppid in pids:
            left.append(f"{entry.name}: {cmdline[:120]}")
    return left


def port_open(url: str) -> bool:
    if not url:
        return False
    host_port = url.split("//", 1)[1].split("/", 1)[0]
    host, port = host_port.rsplit(":", 1)
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((host, int(port))) == 0


@dataclass
class Run:
    """One ``station run`` of a table: its process, its log, why it ended."""

    number: int
    process: subprocess.Popen[bytes]
    log: Path
    started: float
    killed_by_soak: str = ""  # the fault that ended it, when one did
    exit_status: int | None = None


@dataclass
class SoakTable:
    """A shipped configuration run by the soak."""

    source: Path
    folder: Path
    broker_url: str
    clock: WallClock | None
    pace_ms: int = 0
    own_disk: bool = False
    copy: RunnableCopy | None = None
    runs: list[Run] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.source.stem

    # --- set-up ------------------------------------------------------------------------------

    def prepare(self, mount: bool) -> None:
        """Its folder (a tmpfs of its own when ``mount``: the disk-full fault needs one) and its
        runnable copy: full speed, the floor feed to the soak's broker, the scoreboard on."""
        self.folder.mkdir(parents=True, exist_ok=True)
        disk = self.folder / "disk"
        disk.mkdir(exist_ok=True)
        if mount:
            made = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_MB}m", "tmpfs", str(disk)],
                                  capture_output=True, text=True)
            self.own_disk = made.returncode == 0
        extra: dict[str, dict[str, Any]] = {}
        if self.name == "production":
            extra["dealer"] = {"simulated": True}  # the template's bench copy, dealt by the simulated dealer
        floor = {"enabled": True, "broker": self.broker_url, "table": f"SOAK-{self.name}", "drain_s": 10.0}
        supervisor = {"name": SUPERVISOR, "role": "supervisor", "token_sha256": hash_token(SUPERVISOR_TOKEN)}
        self.copy = runnable_copy(self.source, disk, pace_ms=self.pace_ms, floor=floor, web=True, extra=extra,
                                  users=[supervisor])

    def release(self) -> None:
        if self.own_disk:
            subprocess.run(["umount", "-l", str(self.folder / "disk")], check=False)
            self.own_disk = False

    # --- running -----------------------------------------------------------------------------

    @property
    def current(self) -> Run | None:
        return self.runs[-1] if self.runs else None

    def env(self) -> dict[str, str]:
        extra = self.clock.env() if self.clock is not None else {}
        return {**os.environ, "XDG_RUNTIME_DIR": str(self.folder / "run"), "PYTHONUNBUFFERED": "1", **extra}

    def start(self) -> Run:
        assert self.copy is not None
        number = len(self.runs) + 1
        log = self.folder / f"run-{number:03d}.log"
        with log.open("ab") as out:
            process = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(self.copy.config)],
                                       stdout=out, stderr=subprocess.STDOUT, env=self.env())
        run = Run(number, process, log, time.monotonic())
        self.runs.append(run)
        return run

    def alive(self) -> bool:
        run = self.current
        return run is not None and run.process.poll() is None

    def ready(self) -> bool:
        run = self.current
        return run is not None and '"station_ready"' in run.log.read_text(errors="replace")

    def children(self) -> dict[str, int]:
        run = self.current
        return _proc_children(run.process.pid) if run is not None and self.alive() else {}

    def table_folder(self) -> Path | None:
        """The simulated table's folder, from this run's log (its pseudo-terminals' links)."""
        run = self.current
        if run is None:
            return None
        for line in run.log.read_text(errors="replace").splitlines():
            if '"simulated_table_started"' in line:
                with contextlib.suppress(ValueError, KeyError, StopIteration):
                    ports = json.loads(line)["ports"]
                    return Path(next(iter(ports.values()))).parent
        return None

    def kill(self, reason: str) -> int:
        run = self.current
        assert run is not None
        run.killed_by_soak = reason
        run.process.send_signal(signal.SIGKILL)
        try:
            run.exit_status = run.process.wait(KILL_WAIT_S)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"{self.name}: station {run.process.pid} still there {KILL_WAIT_S:g} s after its "
                               f"SIGKILL ({process_state(run.process.pid)})") from None
        return run.process.pid

    def stop(self, timeout: float = 90.0) -> int | None:
        """SIGTERM, as systemd stops it; its exit status."""
        run = self.current
        if run is None or run.process.poll() is not None:
            return run.exit_status if run is not None else None
        run.killed_by_soak = "the soak's stop"
        run.process.send_signal(signal.SIGTERM)
        try:
            run.exit_status = run.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.problems.append(f"{self.name} run {run.number}: did not stop within {timeout:g} s of SIGTERM")
            run.process.kill()
            run.exit_status = run.process.wait(KILL_WAIT_S)
        return run.exit_status

    def note_exit(self) -> int | None:
        """If the current run has ended, its status (and, when nothing of the soak's ended it,
        whether that was allowed: never 0, and non-zero only when the soak broke a part)."""
        run = self.current
        if run is None or run.exit_status is not None or run.process.poll() is None:
            return None
        run.exit_status = run.process.returncode
        if not run.killed_by_soak:
            tail = run.log.read_text(errors="replace")[-600:]
            if run.exit_status == 0:
                self.problems.append(f"{self.name} run {run.number}: exited 0 by itself: {tail}")
            else:
                self.problems.append(f"{self.name} run {run.number}: exited {run.exit_status} by itself: {tail}")
        return run.exit_status

    def settled(self) -> int:
        """Rounds the current run has said it settled (its progress, for the stall check)."""
        run = self.current
        return run.log.read_text(errors="replace").count('"round_settled"') if run is not None else 0

    # --- a supervisor at the table -------------------------------------------------------------

    def ctl(self, command: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """A control command as the soak's supervisor; the station's reply (``{}`` when it is not
        listening: starting, stopping, killed)."""
        assert self.copy is not None
        try:
            return request(self.copy.control_socket, SUPERVISOR_TOKEN, command, args or {}, timeout=10.0)
        except ControlError:
            return {}

    def supervise(self) -> str:
        """What a supervisor at a table that waits for one does: decide its irregularity (resume
        where that is allowed, else void, else what it offers first) or resume a pause. The words
        of what was decided, or "" when nothing waited."""
        status = self.ctl("status").get("result") or {}
        if status.get("state") == "paused":
            return "resumed a pause" if self.ctl("resume").get("ok") else ""
        irregularity = status.get("irregularity")
        if status.get("state") != "irregularity" or not irregularity:
            return ""
        offered = list(irregularity.get("decisions") or [])
        preferred = [d for d in ("resume", "void") if d in offered] or offered[:1]
        for choice in preferred:  # a resume the table refuses (a device still lost): void, as a person would
            if self.ctl("decide", {"decision": choice, "detail": "the soak's supervisor"}).get("ok"):
                return f"{choice}: {irregularity.get('reason')} ({str(irregularity.get('detail'))[:80]})"
        return ""

    # --- faults from outside -----------------------------------------------------------------

    def fault(self, device: str, name: str, **arguments: Any) -> str:
        """Ask the simulated table's fault door for a device fault; its answer in words."""
        folder = self.table_folder()
        if folder is None:
            return "no simulated table found"
        request = json.dumps({"device": device, "fault": name, **arguments}).encode() + b"\n"
        with socket.socket(socket.AF_UNIX) as door:
            door.settimeout(5)
            try:
                door.connect(str(folder / "faults.sock"))
                door.sendall(request)
                reply = json.loads(door.makefile("rb").readline() or b"{}")
            except (OSError, ValueError) as exc:
                return f"the fault door did not answer: {exc}"
        return str(reply.get("done") if reply.get("ok") else f"refused: {reply.get('error')}")

    def fill_disk(self) -> Path | None:
        """Fill the journal's file system to its last byte (the write that fails is the proof)."""
        if not self.own_disk:
            return None
        filler = self.folder / "disk" / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            while True:
                os.write(fd, b"\0" * (1 << 20))
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * 4096)
        finally:
            os.close(fd)
        return filler

    def free_disk(self, filler: Path) -> None:
        with contextlib.suppress(FileNotFoundError):
            filler.unlink()

    def keep_disk(self) -> None:
        """Copy what is on the table's own file system (its journal, its configuration) beside it,
        before the file system is unmounted."""
        if self.own_disk:
            shutil.copytree(self.folder / "disk", self.folder / "kept", dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("filler", "*.sock"))

    def remove(self) -> None:
        self.release()
        shutil.rmtree(self.folder, ignore_errors=True)
