"""The printer of ``station floor watch`` when its reader has gone, on the thread that prints
(paho's network thread in the watch): no exception escapes it, it says once that the output
is closed, and nothing written after that can fail again (tests/floor/test_watch_pipe.py runs
the whole command)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from station.cli.commands.floor import _Printer
from station.floor.watch import FloorView


def _a_view() -> tuple[Any, FloorView]:
    floor = FloorView("dealing-station")
    view = floor.update("dealing-station/BAC-01/status", b'{"v": 1, "kind": "status", "status": "online"}')
    assert view is not None
    return view, floor


def test_a_write_to_a_pipe_nobody_reads_ends_the_watch_once_and_quietly() -> None:
    read_end, write_end = os.pipe()
    stream = os.fdopen(write_end, "w")
    closed: list[str] = []
    printer = _Printer(stream, as_json=True, redraw=False, on_closed=lambda: closed.append("closed"))
    view, floor = _a_view()
    printer.show(view, floor)
    assert os.read(read_end, 4096).startswith(b'{"table": "BAC-01"')
    os.close(read_end)  # what `head -1` does once it has its line
    printer.show(view, floor)  # raised BrokenPipeError on the printing thread before
    printer.show(view, floor)
    assert closed == ["closed"] and printer.closed
    stream.write("the interpreter's last flush\n")
    stream.flush()  # the descriptor now points at /dev/null: nothing fails any more
    stream.close()


def test_the_pipe_is_seen_closed_without_a_write() -> None:
    read_end, write_end = os.pipe()
    stream = os.fdopen(write_end, "w")
    closed: list[str] = []
    printer = _Printer(stream, as_json=True, redraw=False, on_closed=lambda: closed.append("closed"))
    assert not printer.reader_gone()
    os.close(read_end)
    assert printer.reader_gone() and closed == ["closed"]
    stream.close()


def test_a_file_is_never_taken_for_a_closed_pipe(tmp_path: Path) -> None:
    with (tmp_path / "watch.jsonl").open("w") as stream:
        printer = _Printer(stream, as_json=True, redraw=False)
        assert not printer.reader_gone()
