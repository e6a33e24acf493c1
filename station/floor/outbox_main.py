"""Entry of the floor outbox's process (``python -m station.floor.outbox_main STATUS_FD``).

Its first act, before importing anything of weight, is to step back from the table: a lower
priority (so on a busy machine the table's process is served first, the outbox's start-up
included), and, when the station keeps to some of the CPUs (while a simulated table has
another, ``station/sim/cpus.py``), the CPUs the station leaves. Measured on the 2-CPU machine
of docs/benchmarks.md: sharing the station's CPU, or floating over both, cost the full-speed
demo more of its rounds per second than sitting beside the simulated table. Then
:func:`station.floor.process.main`.
"""

import contextlib
import os
import sys

#: Lower than the table: on a busy machine the table's process is served first.
NICENESS = 10


def step_back() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICENESS)
    with contextlib.suppress(OSError, AttributeError, ValueError):
        station = os.sched_getaffinity(0)  # inherited from the station
        others = set(range(os.cpu_count() or 1)) - station
        if others:
            os.sched_setaffinity(0, others)


if __name__ == "__main__":
    step_back()
    from station.floor.process import main

    sys.exit(main())
