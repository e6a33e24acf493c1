"""Checkpoint crash-test child: a session through the core loop, checkpoints written often.

Run as ``python checkpoint_child.py INPUTS.json JOURNAL OUT.json`` (with the checkout on
``PYTHONPATH``: it plays its inputs as :mod:`tests.core.crash_child` does). It opens the loop on the
journal (from its newest checkpoint: that is what is being tested), feeds the inputs not yet
journaled in small groups and writes the machine's snapshot to OUT.json when all are applied.
Just before each checkpoint it writes ``checkpoint`` on a line of its own to stdout, so the
parent can kill it with SIGKILL while the checkpoint is being written.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path
from typing import Any

from station.core.checkpoints import CHECKPOINT
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.event_codec import event_from_dict
from station.journal import Journal
from tests.core.crash_child import play_the_rest  # the parent puts the checkout on PYTHONPATH

#: Records between two checkpoints: small, so most of the child's life is near one.
EVERY = 5


class _Announcing(Journal):
    """A real journal that says on stdout when a checkpoint is about to be written."""

    def append(self, kind: str, payload: dict[str, Any]) -> Any:
        if kind == CHECKPOINT:
            sys.stdout.write("checkpoint\n")
            sys.stdout.flush()
        return super().append(kind, payload)


def main(argv: list[str]) -> int:
    inputs_path, journal_path, out_path = (Path(a) for a in argv[1:4])
    events = [event_from_dict(d) for d in json.loads(inputs_path.read_text())]
    rng = random.Random(os.environ.get("CHECKPOINT_CHILD_SEED", "1"))
    play_the_rest(CoreLoop(_Announcing(journal_path), CoreOptions(decks=4), checkpoint_every=EVERY), events, rng, 4,
                  out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
