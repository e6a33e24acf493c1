"""Entry of the floor outbox in a fresh interpreter (``python -m station.floor.outbox_main
STATUS_FD``): a restart after the outbox died, or a station that had threads before its feed
started (:mod:`station.floor.process` says why the first start is a fork instead).

Its first act, before importing anything of weight, is to step back from the table
(:data:`station.child_process.OUTBOX`), so the table is served first, the outbox's start-up
included. Then :func:`station.floor.process.main`.
"""

import sys

from station.child_process import OUTBOX, step_back

if __name__ == "__main__":
    step_back(OUTBOX)
    from station.floor.process import main

    sys.exit(main())
