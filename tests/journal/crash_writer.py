"""Child process for the crash tests: append groups to a journal until killed.

Usage: ``python crash_writer.py JOURNAL SEED``. Each line printed on stdout, ``GROUP LAST_SEQ``,
is written only after the group's append returned, i.e. after the journal promised it was on
disk. The payload of every record is a pure function of (group, index, size), so the test
can tell a complete record from a torn one.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from station.journal import Journal


def payload(group: int, index: int, size: int) -> dict[str, Any]:
    return {"group": group, "index": index, "size": size, "pad": "x" * ((group * 37 + index * 11) % 900)}


def main(path: str, seed: int) -> None:
    rng = random.Random(seed)
    with Journal(path) as journal:
        last = journal.last()
        group = 0 if last is None else last.payload["group"] + 1
        while True:
            size = rng.randint(1, 8)
            items = [("CrashTest", payload(group, index, size)) for index in range(size)]
            records = journal.append_many(items) if size > 1 else [journal.append(*items[0])]
            print(f"{group} {records[-1].seq}", flush=True)
            group += 1


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
