"""The end of a child's asyncio loop: no signal can reach a self-pipe already closed.

asyncio closes its loop's self-pipe before it takes its signal handlers away; a SIGTERM in
between was written to the closed descriptor and CPython printed a traceback into the
station's log ("Exception ignored when trying to write to the signal wakeup fd", seen when a
station was SIGKILLed and its scoreboard and console got their parent-death SIGTERM as they
ended). :func:`ignore_signals_from_here` runs before the loop closes."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest

from station.child_process import ignore_signals_from_here

SIGNALS = (signal.SIGTERM, signal.SIGINT)


@pytest.fixture
def signals_restored() -> Iterator[None]:
    before = {signum: signal.getsignal(signum) for signum in SIGNALS}
    wakeup = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup)
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)
    signal.set_wakeup_fd(wakeup)


def _serve_and_end(end: bool) -> tuple[int, list[object]]:
    """A loop that handles SIGTERM and SIGINT as the children do; returns the wakeup descriptor
    left when the loop's work is done (before it closes) and the handlers then."""

    async def serve() -> tuple[int, list[object]]:
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        for signum in SIGNALS:
            loop.add_signal_handler(signum, done.set)
        os.kill(os.getpid(), signal.SIGTERM)  # heard through the loop while it runs
        await asyncio.wait_for(done.wait(), 10)
        if end:
            ignore_signals_from_here(loop, SIGNALS)
        left = signal.set_wakeup_fd(-1)
        signal.set_wakeup_fd(left)
        return left, [signal.getsignal(signum) for signum in SIGNALS]

    return asyncio.run(serve())


@pytest.mark.usefixtures("signals_restored")
def test_after_the_loops_work_no_wakeup_descriptor_is_left_and_the_signals_are_ignored() -> None:
    left, handlers = _serve_and_end(end=True)
    assert left == -1  # nothing a late signal could be written to
    assert handlers == [signal.SIG_IGN, signal.SIG_IGN]
    os.kill(os.getpid(), signal.SIGTERM)  # a late SIGTERM changes nothing: the process ends as it was ending


@pytest.mark.usefixtures("signals_restored")
def test_without_it_the_loop_still_holds_the_wakeup_descriptor_when_its_work_is_done() -> None:
    left, _ = _serve_and_end(end=False)
    assert left != -1  # the window the traceback came through
