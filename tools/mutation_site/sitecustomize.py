"""Coverage in the processes the tests start, for ``tools/mutation_contexts.py``.

Python imports ``sitecustomize`` at start-up from the path; ``tools/mutation_contexts.py``
puts this folder on ``PYTHONPATH`` for the one run that maps which test runs which line, so
that a station, ``station demo`` or ``station integrity report`` started by a test is measured
too, with the test's name (``MUTATION_CONTEXT``) as its context. Its data goes to a file of
its own beside the run's, merged when the run ends. Outside that run this file is never on
the path.
"""

from __future__ import annotations

import os

if os.environ.get("MUTATION_CONTEXTS") and os.environ.get("MUTATION_CONTEXT"):
    import atexit

    import coverage

    _sources = os.environ.get("MUTATION_CONTEXTS_SOURCE", "station").split(os.pathsep)
    _cov = coverage.Coverage(data_file=os.environ["MUTATION_CONTEXTS"] + ".coverage", data_suffix=True,
                             source=_sources, config_file=False, context=os.environ["MUTATION_CONTEXT"])
    # A station forks its children (the floor's outbox) and a forked child leaves with
    # os._exit: measured and saved only with these (docs/testing.md, the floor guard).
    _cov.set_option("run:patch", ["fork", "_exit"])
    _cov.start()

    def _save() -> None:
        _cov.stop()
        _cov.save()

    atexit.register(_save)
