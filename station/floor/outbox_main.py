"""Entry of the floor outbox in a fresh interpreter (``python -m station.floor.outbox_main
STATUS_FD``): a restart after the outbox died, or a station that had threads before its feed
started (:mod:`station.floor.process` says why the first start is a fork instead).

Its first act, before importing anything of weight, is to step back from the table
(:func:`step_back`), so the table is served first, the outbox's start-up included. Then
:func:`station.floor.process.main`.
"""

import contextlib
import os
import sys

#: Where the batch scheduling class is missing: a lower priority than the table.
NICENESS = 10


def step_back() -> None:
    """Linux's batch scheduling class (``SCHED_BATCH``) at the table's priority: the scheduler
    takes the outbox for a CPU-bound program, so a table thread that wakes (a card on the
    shoe's line) runs before it, while it still gets its fair share of a busy CPU and keeps
    up with a table at full speed. Measured with ``bench/floor.py`` on the 2-CPU machine of
    docs/benchmarks.md: at nice 10 instead, the outbox shared the simulated table's CPU at a
    tenth of its weight and the lag of one full-speed demo reached p99 58-115 ms; in this
    class, 37-43 ms, with the demo's rate unchanged. Where the class is missing, nice 10.
    The forked outbox calls this too."""
    try:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):
        with contextlib.suppress(OSError, AttributeError):
            os.nice(NICENESS)


if __name__ == "__main__":
    step_back()
    from station.floor.process import main

    sys.exit(main())
