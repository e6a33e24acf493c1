"""A station's wall clock, stepped from outside (tests/wallclock_shim.c), as NTP or a person
with ``date -s`` would step a table PC's.

The shim is compiled here with the machine's C compiler into the test's folder and preloaded
into the station's processes; the offset lives in a file that every one of them maps, so a
step reaches them all at once. The monotonic clock is left alone, as on a real machine. Where
no C compiler is installed the caller is told why it cannot step the clock.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

SOURCE = Path(__file__).with_name("wallclock_shim.c")
NS = 1_000_000_000


class WallClockUnavailable(RuntimeError):
    """The machine cannot build the shim (no C compiler); the message says so."""


class WallClock:
    """The offset file and the preloaded shim; :meth:`env` is what a process needs to follow it."""

    def __init__(self, folder: Path, offset_s: float = 0.0) -> None:
        compiler = shutil.which("gcc") or shutil.which("cc")
        if compiler is None:
            raise WallClockUnavailable("stepping a station's wall clock needs a C compiler (gcc) for its shim")
        folder.mkdir(parents=True, exist_ok=True)
        self.library = folder / "wallclock_shim.so"
        built = subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", str(self.library), str(SOURCE), "-ldl"],
                               capture_output=True, text=True)
        if built.returncode != 0:
            raise WallClockUnavailable(f"the wall clock's shim did not build: {built.stderr.strip()[:300]}")
        self.file = folder / "wallclock_offset"
        self.file.write_bytes(struct.pack("=q", int(offset_s * NS)))
        self.offset_s = offset_s

    def env(self) -> dict[str, str]:
        return {"LD_PRELOAD": str(self.library), "STATION_WALLCLOCK_FILE": str(self.file)}

    def set(self, offset_s: float) -> None:
        """Step every process that follows the file to ``offset_s`` from the real time. Written
        in place: a file truncated, even for a moment, would fault a process reading its map."""
        with self.file.open("r+b") as stream:
            stream.write(struct.pack("=q", int(offset_s * NS)))
        self.offset_s = offset_s

    def step(self, seconds: float) -> None:
        self.set(self.offset_s + seconds)
