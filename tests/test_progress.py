"""The progress of a command that reads a whole journal: lines on standard error, none when
the reading is quick, and the answer on standard output unchanged."""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import select
import struct
import termios
import time
from pathlib import Path

import pytest

from station.cli import progress as progress_module
from station.cli.main import main
from station.cli.progress import Progress

from .meters.week import play_week


def test_a_line_every_so_often_and_one_at_the_end() -> None:
    said = io.StringIO()
    with Progress("recall: every round", 10_000, out=said, every=0.0) as progress:
        for seq in range(1, 10_001):
            progress(seq)
    lines = said.getvalue().splitlines()
    assert lines[0] == "recall: every round: record 2,048 of 10,000 (20 %)"
    assert len(lines) == 10_000 // 2048 + 1
    assert lines[-1].startswith("recall: every round: done in ")


def test_nothing_when_the_reading_is_over_before_the_first_line() -> None:
    said = io.StringIO()
    with Progress("export", 10_000, out=said, every=3600.0) as progress:
        for seq in range(1, 10_001):
            progress(seq)
    assert said.getvalue() == ""


def test_every_round_and_the_whole_log_say_how_far_they_have_come(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    journal, _, _ = play_week(tmp_path)
    monkeypatch.setattr(progress_module, "EVERY_SECONDS", 0.0)
    monkeypatch.setattr(progress_module, "LOOK_EVERY", 256)
    capsys.readouterr()  # what writing the journal logged
    for args in (["recall", "--last", "0", "--json"], ["events", "--since", "all", "--json"],
                 ["journal", "export"], ["journal", "verify", "--deep"]):
        assert main([*args, "--journal", str(journal)]) == 0, args
        captured = capsys.readouterr()
        assert "record 1,024 of" in captured.err, (args, captured.err)
        if "--json" in args:
            json.loads(captured.out)  # the answer alone on standard output


def test_on_a_terminal_a_bar_drawn_in_place_and_nothing_when_quick() -> None:
    """tqdm's bar on a real terminal (a pseudo-terminal's end), after the delay only."""
    controller, terminal = pty.openpty()
    # 100 columns and no height, as `script` and a serial console give
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 0, 100, 0, 0))
    try:
        with os.fdopen(terminal, "w", closefd=False) as tty:
            with Progress("export", 10_000, out=tty, every=3600.0) as quick:
                for seq in range(1, 10_001):
                    quick(seq)
            # Drawn once its delay has passed (a bar that asked for the terminal's width at each
            # draw never drew after a delay: this caught it).
            with Progress("recall: every round", 60, out=tty, every=0.2, look_every=1) as slow:
                for seq in range(1, 61):
                    time.sleep(0.01)
                    slow(seq)
            tty.flush()
        drawn = b""
        while True:
            ready, _, _ = select.select([controller], [], [], 0.5)
            if not ready:
                break
            drawn += os.read(controller, 65536)
    finally:
        os.close(controller)
        os.close(terminal)
    text = drawn.decode(errors="replace")
    assert "export" not in text, text  # over before its delay: not a character drawn
    assert "recall: every round" in text and "100%" in text and "\r" in text, text


def test_a_demo_says_which_shoe_it_is_at() -> None:
    from station.cli.commands.demo import DemoBounds
    from station.core import outputs as out

    said = io.StringIO()
    stops: list[str] = []

    class Hooks:
        def request_stop(self, reason: str, *, failed: bool = False) -> None:
            stops.append(reason)

    with Progress("demo", 3, out=said, every=0.0, unit="shoe", look_every=1) as progress:
        bounds = DemoBounds(shoes=3, rounds=0, progress=progress)
        bounds.hooks = Hooks()  # type: ignore[assignment]
        for _ in range(3):
            bounds(out.ShoeEnded(1, 80))
    assert said.getvalue().splitlines()[:3] == ["demo: shoe 1 of 3 (33 %)", "demo: shoe 2 of 3 (66 %)",
                                                "demo: shoe 3 of 3 (100 %)"]
    assert stops == ["shoe limit reached"]


def test_the_archive_says_how_far_its_copy_has_come(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    journal, _, _ = play_week(tmp_path)
    monkeypatch.setattr(progress_module, "EVERY_SECONDS", 0.0)
    capsys.readouterr()
    assert main(["meters", "--journal", str(journal), "--day", "all", "--json"]) == 0
    days = [d["gaming_day"] for d in json.loads(capsys.readouterr().out)["days"]]
    assert main(["journal", "archive", "--before", days[-1], "--journal", str(journal)]) == 0
    captured = capsys.readouterr()
    assert "archive: copying: record " in captured.err and "moved to" in captured.out, captured
