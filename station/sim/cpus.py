"""CPUs for the station and its simulated table.

The station is a Python process: one thread at a time runs its code, and a thread woken by a
device (a card on the shoe's line) must wait for the interpreter to come free. When the
simulated table (:mod:`station.sim.table`) runs beside it on a machine with few CPUs,
the scheduler spreads the threads of both processes over all of them; then every hand-over of
the interpreter between the station's threads can mean waking a thread on another CPU, which on
a virtual machine costs an inter-processor interrupt, and the simulators compete with the
station for every CPU. Real devices have processors of their own. So while a simulated table
runs, it gets one CPU to itself and the station keeps to the others: on the 2-CPU machine of
``docs/benchmarks.md`` that made ``station demo --fast`` about 15% faster.

Only on Linux with two CPUs or more allowed; anywhere else nothing is pinned.
"""

from __future__ import annotations

import os

import structlog

log = structlog.get_logger(__name__)


def allowed_cpus() -> set[int] | None:
    """The CPUs this process may run on, or None where that cannot be set."""
    getter = getattr(os, "sched_getaffinity", None)
    if getter is None or getattr(os, "sched_setaffinity", None) is None:
        return None
    try:
        return set(getter(0))
    except OSError:
        return None


def split_for_table(cpus: set[int] | None) -> tuple[set[int], int] | None:
    """(the station's CPUs, the simulated table's CPU), or None with fewer than two."""
    if cpus is None or len(cpus) < 2:
        return None
    table = max(cpus)
    return cpus - {table}, table


def pin_process(cpus: set[int]) -> bool:
    """Keep every thread of this process (and those it starts later) on ``cpus``."""
    try:
        tasks = [int(tid) for tid in os.listdir("/proc/self/task")]
    except OSError:
        tasks = [0]
    try:
        for tid in tasks:
            try:
                os.sched_setaffinity(tid, cpus)
            except ProcessLookupError:
                continue  # a thread that has just ended
    except OSError as exc:
        log.info("cpu_affinity_not_set", cpus=sorted(cpus), error=str(exc))
        return False
    return True
