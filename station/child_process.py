"""What every child process of the station does first: end with the station, step back, speak.

The station runs four kinds of children: the floor outbox (``station.floor.process``), the
simulated table (``station.sim.table_process``), the web scoreboard (``station.web.process``)
and the dealer's console (``station.console.process``). Each must never outlive the station,
and each must leave the CPU to the table when the table wants it. This module is the one
place that says how, so they cannot drift apart; it imports nothing of the station, so any child may call it before
importing anything of weight.

It also holds the wire a child fed over a socket pair speaks (the web scoreboard and the
dealer's console): frames of one byte of kind, a 4-byte big-endian length and the payload,
the first from the child being its hello (:func:`hello_frame`). The station's side of every
child, the wire included, is :mod:`station.child_supervisor`.

Under systemd these calls are allowed by the unit: ``systemd/dealing-station.service``
lets ``sched_setscheduler``, ``setpriority`` and ``sched_setaffinity`` through its system
call filter, and with no capability and ``RestrictRealtime=yes`` they can only lower a
process's own priority, never raise it (``tests/service/test_seccomp.py`` runs the station
and its children under the unit's filter).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

#: ``prctl`` option: the signal a process gets when its parent ends.
PR_SET_PDEATHSIG = 1

#: A frame's header on a child's socket, both ways: its kind (one byte), its payload's length.
HEADER = struct.Struct(">cI")
#: The child's first frame: ``{"ready": url}``, or ``{"error": text, "errno": n}`` and it ends.
HELLO = b"H"
#: The station's last frame: stop now (the end of the socket means the same).
QUIT = b"Q"


def frame(kind: bytes, data: bytes) -> bytes:
    """One frame of the wire: ``kind`` (one byte), the length, ``data``."""
    return HEADER.pack(kind, len(data)) + data


def hello_frame(answer: Mapping[str, object]) -> bytes:
    """The child's hello: ready (with the address it serves), or why it cannot serve."""
    return frame(HELLO, json.dumps(answer).encode())


def die_with(parent: int) -> None:
    """Linux: SIGTERM when the station's process (``parent``) ends, so a child that would
    miss the end of its pipe still goes; each child handles that SIGTERM as its orderly stop
    (or, for the outbox, ignores it and leaves at the pipe's end-of-file). Exits at once when
    the station has already gone before the signal was set. Elsewhere the closed pipe alone
    ends the child. A ``parent`` of 0 only sets the signal."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if parent and os.getppid() != parent:
        os._exit(0)


@dataclass(frozen=True)
class Scheduling:
    """How much of the CPU a child asks for, below the table's share.

    ``batch`` puts it in Linux's batch class (``SCHED_BATCH``): the scheduler takes it for a
    CPU-bound program, so a thread of the station that wakes (a card on the shoe's line) is
    not kept waiting behind it, while it keeps a fair share of a busy CPU. ``niceness`` lowers
    its weight in that share (added to the nice value it inherited); where the batch class is
    missing, ``fallback_niceness`` is used instead. Neither ever takes the process out of
    the normal class: unlike the idle class (``SCHED_IDLE``), which gets next to nothing while
    any other program holds every CPU, a niced or batch process always gets its share.
    """

    batch: bool
    niceness: int
    fallback_niceness: int


#: The floor outbox: batch at the table's own weight. Measured with ``bench/floor.py`` on the
#: 2-CPU machine of docs/benchmarks.md: at nice 10 instead, the outbox shared the simulated
#: table's CPU at a tenth of its weight and the lag of one full-speed demo reached p99
#: 58-115 ms; in the batch class, 37-43 ms, with the demo's rate unchanged.
OUTBOX = Scheduling(batch=True, niceness=0, fallback_niceness=10)

#: The web scoreboard: batch at nice 10, a tenth of the table's weight, never starved: a pit
#: screen keeps getting pictures while another program (the kiosk browser, a technician's
#: command) holds every CPU (docs/web-scoreboard.md, "Only a small share of the CPU").
SCOREBOARD = Scheduling(batch=True, niceness=10, fallback_niceness=10)

#: The dealer's console: batch at nice 5, twice the scoreboard's weight and half the table's.
#: A dealer who taps a bet waits for its answer, so the console must never be the process
#: that starves on a busy PC (the idle class got it no CPU at all while another program held
#: both CPUs); the table still comes first when one of its threads wakes.
CONSOLE = Scheduling(batch=True, niceness=5, fallback_niceness=5)


def step_back(scheduling: Scheduling) -> None:
    """Apply ``scheduling`` to this process. Lowering one's own priority needs no privilege;
    a system that refuses it leaves the process as it was (it still works, only less
    politely)."""
    niceness = scheduling.niceness
    if scheduling.batch:
        try:
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
        except (AttributeError, OSError):
            niceness = scheduling.fallback_niceness
    if niceness:
        with contextlib.suppress(OSError, AttributeError):
            os.nice(niceness)


def ignore_signals_from_here(loop: asyncio.AbstractEventLoop, signums: Iterable[int]) -> None:
    """At the end of a process's asyncio loop: take the loop's handlers of ``signums`` away and
    ignore those signals for the little that is left of the process.

    An asyncio loop closes its self-pipe before it removes its signal handlers. A signal in
    between (the parent-death SIGTERM of a station killed just as the child ends, a second
    SIGTERM from systemd) is then written to a closed descriptor, and CPython prints a
    traceback on stderr ("Exception ignored when trying to write to the signal wakeup fd"),
    which reaches the station's log. Removed here, before the loop closes, no signal can find
    the self-pipe gone; ignored, it cannot cut the end of the process short either. SIGKILL
    still ends it."""
    for signum in signums:
        loop.remove_signal_handler(signum)
        signal.signal(signum, signal.SIG_IGN)
