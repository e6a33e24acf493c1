"""``python -m station`` is the same as the ``station`` command."""

import sys

from station.cli.main import main

if __name__ == "__main__":  # not when a spawned child process imports this module as its main
    sys.exit(main())
