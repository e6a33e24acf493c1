"""Every reader and audit command on journals written by the real commands, for every shipped
configuration.

Journals built in-process by the tests' own table lack what only the real commands write (the
station's start and stop, the configuration and software records, pedal presses, the
integrity monitor's and the meters' checkpoints, a start after a SIGKILL), and so missed that
``verify --deep`` called every real journal altered. Here each shipped configuration
(tests/shipped.py) writes two journals, each over two gaming days (the first day's part
written with the station's wall clock a day back, tests/wallclock.py):

- ``station run`` at full speed, killed with SIGKILL in the middle of play, started again the
  next day and stopped with SIGTERM (it must exit 0, and never stop by itself);
- ``station demo --fast`` twice into one journal, a day apart.

On each, ``journal verify`` and ``verify --deep``, ``recall`` (the last rounds, one round by
id), ``events``, ``meters``, ``journal export``, then ``journal archive`` of the first day,
and the readers again through the archive. The writers run as subprocesses; the readers run
in-process through ``station``'s own entry point (the same code path, without an
interpreter's start per command).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.cli.main import main
from station.core.checkpoints import CHECKPOINT
from station.journal import JournalReader, canonical_json, record_hash

from ..shipped import runnable_copy, shipped, shipped_ids
from ..waiting import wait_until
from ..wallclock import WallClock, WallClockUnavailable

pytestmark = pytest.mark.e2e

DAY_S = 86_400.0
ROUNDS_PER_RUN = 12


def _wall_clock(folder: Path) -> WallClock:
    try:
        return WallClock(folder, offset_s=-DAY_S)
    except WallClockUnavailable as exc:
        pytest.skip(str(exc))


def _copy(name: str, folder: Path) -> Any:
    # The production template has no simulated dealer; on a bench of simulators one plays it.
    extra = {"dealer": {"simulated": True}} if name == "production" else None
    return runnable_copy(shipped(name), folder, extra=extra)


def _environment(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """The commands' environment: their runtime folder (where a running station says which
    devices it holds) the test's own, so no other test's diagnostic sees this station."""
    return {**os.environ, "XDG_RUNTIME_DIR": str(folder / "run"), "PYTHONUNBUFFERED": "1", **env}


def _station(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", "station", *args], stdout=out, stderr=subprocess.STDOUT,
                                env=_environment(log.parent, env))


def _settled(log: Path) -> int:
    return log.read_text(errors="replace").count('"round_settled"')


def _checkpoints(journal: Path) -> int:
    """Checkpoints of the projection in the journal (read as any reader would, read-only)."""
    if not journal.exists():
        return 0
    with JournalReader(journal) as reader:
        return sum(1 for _ in reader.of_kind(CHECKPOINT))


def _run_until(copy: Any, env: dict[str, str], log: Path, rounds: int, checkpoints: int = 0
               ) -> subprocess.Popen[bytes]:
    station = _station(["run", "-c", str(copy.config)], env, log)

    def there() -> bool:
        return station.poll() is not None or (_settled(log) >= rounds and _checkpoints(copy.journal) >= checkpoints)

    try:
        wait_until(there, 120, f"{rounds} rounds settled and {checkpoints} checkpoints")
    except AssertionError:
        station.kill()
        station.wait()
        raise AssertionError(f"station run did not get there; its log ends:\n{log.read_text()[-4000:]}") from None
    assert station.poll() is None, f"station run stopped by itself ({station.returncode}):\n{log.read_text()[-3000:]}"
    return station


def write_with_station_run(name: str, folder: Path) -> tuple[Any, Path]:
    """The first gaming day's part goes on past a checkpoint (a shoe end, or a thousand records
    of a continuous shuffler): ``journal archive`` cuts a journal at a checkpoint."""
    copy = _copy(name, folder / "table")
    clock = _wall_clock(folder / "clock")
    yesterday = _run_until(copy, clock.env(), folder / "yesterday.log", ROUNDS_PER_RUN, checkpoints=1)
    yesterday.send_signal(signal.SIGKILL)
    assert yesterday.wait(30) == -signal.SIGKILL
    clock.set(0.0)
    log = folder / "today.log"
    today = _run_until(copy, clock.env(), log, ROUNDS_PER_RUN)
    today.send_signal(signal.SIGTERM)
    assert today.wait(60) == 0, log.read_text()[-3000:]
    return copy, copy.journal


def write_with_station_demo(name: str, folder: Path) -> tuple[Any, Path]:
    copy = _copy(name, folder / "table")
    clock = _wall_clock(folder / "clock")
    journal = folder / "demo.sqlite3"
    # A continuous shuffler has no shoe end: its first day runs past a thousand records.
    length = ["--rounds", "130"] if copy.continuous else ["--shoes", "1"]
    for offset in (-DAY_S, 0.0):
        clock.set(offset)
        done = subprocess.run([sys.executable, "-m", "station", "demo", "--fast", *length, "-c", str(copy.config),
                               "--journal", str(journal)], capture_output=True, text=True, timeout=180,
                              env=_environment(folder, clock.env()))
        assert done.returncode == 0, done.stderr[-3000:]
    return copy, journal


def station(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """``station ARGS`` in this process: its exit status and what it printed."""
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def check_readers(capsys: pytest.CaptureFixture[str], config: Path, journal: Path) -> None:
    where = ("--journal", str(journal))
    status, said = station(capsys, "journal", "verify", *where)
    assert (status, "intact" in said) == (0, True), said
    status, said = station(capsys, "journal", "verify", "--deep", *where)
    assert status == 0 and "intact" in said and "match" in said, said

    status, said = station(capsys, "recall", "--last", "0", "--json", "--config", str(config), *where)
    assert status == 0, said
    rounds = json.loads(said)
    # Settled or voided: the rounds the meters count (a settled round whose payouts wait for the
    # dealer's confirmation is still in progress for recall).
    closed = [r for r in rounds if r["voided"] or (r.get("result") or {}).get("outcome")]
    assert len(closed) >= ROUNDS_PER_RUN, len(closed)
    first = closed[0]["round_id"]
    status, said = station(capsys, "recall", "--round", first, "--config", str(config), *where)
    assert status == 0 and first in said, said

    status, said = station(capsys, "events", "--json", "--config", str(config), *where)
    assert status == 0, said
    # What a person reads, as a pipe or a printer gets it: no line over 100 columns (a journal's
    # hash, one word, is the one thing not broken).
    for words in (("events", "--since", "all"), ("integrity", "report"), ("meters", "--day", "all"),
                  ("recall", "--last", "5")):
        status, said = station(capsys, *words, "--config", str(config), *where)
        assert status == 0, said
        wide = [line for line in said.splitlines() if len(line) > 100 and " " in line.strip()]
        assert not wide, (words, wide[:3])
    status, said = station(capsys, "meters", "--day", "all", "--json", "--config", str(config), *where)
    assert status == 0, said
    meters = json.loads(said)
    check_stretches(capsys, config, journal, rounds, meters["gaming_days"])
    counted = sum(day["totals"]["rounds"] + day["totals"]["voided_rounds"] for day in meters["days"])
    assert counted == len(closed), (counted, len(closed))
    days = meters["gaming_days"]
    assert len(days) == 2, days

    status, said = station(capsys, "journal", "export", *where)
    assert status == 0, said[-500:]
    prev = "0" * 64
    lines = said.splitlines()
    for line in lines:
        record = json.loads(line)
        digest = record_hash(record["seq"], record["time"], record["kind"], canonical_json(record["payload"]), prev)
        assert digest == record["hash"], record["seq"]
        prev = digest

    status, said = station(capsys, "journal", "archive", "--before", days[-1], "--config", str(config), *where)
    assert status == 0, said
    status, said = station(capsys, "journal", "verify", "--deep", *where)
    assert status == 0 and "with 1 archive" in said and "match" in said, said
    status, said = station(capsys, "recall", "--round", first, "--config", str(config), *where)
    assert status == 0 and first in said, said
    status, said = station(capsys, "recall", "--last", "0", "--json", "--config", str(config), *where)
    assert status == 0 and json.loads(said) == rounds, "every round, across the archive's seam"
    status, said = station(capsys, "meters", "--day", "all", "--json", "--config", str(config), *where)
    assert status == 0, said
    after = json.loads(said)
    check_stretches(capsys, config, journal, rounds, after["gaming_days"])
    assert sum(d["totals"]["rounds"] + d["totals"]["voided_rounds"] for d in after["days"]) == counted
    status, said = station(capsys, "journal", "export", *where)
    assert status == 0 and len(said.splitlines()) >= len(lines), said[-500:]


def check_stretches(capsys: pytest.CaptureFixture[str], config: Path, journal: Path, rounds: list[dict[str, Any]],
                    days: list[str]) -> None:
    """Every question that reads only its stretch of the journal (from the checkpoint before
    it) answers what the whole journal answers: each round by id, the last rounds, each gaming
    day's rounds, and the event log from points across the journal."""
    from station.cli.commands.recall import gaming_day_times
    from station.config.options import journal_options
    from station.significant.log import read_log

    where = ("--journal", str(journal), "--config", str(config))
    for round_ in [*rounds[::12], rounds[-1]]:  # each reads on to the end of a journal this short
        status, said = station(capsys, "recall", "--round", round_["round_id"], "--json", *where)
        assert status == 0 and json.loads(said) == [round_], f"recall --round {round_['round_id']}"
    for last in (1, 5, len(rounds)):
        status, said = station(capsys, "recall", "--last", str(last), "--json", *where)
        assert status == 0 and json.loads(said) == rounds[-last:], f"recall --last {last}"
    for day in days:
        start, end = gaming_day_times(journal, config, day)
        status, said = station(capsys, "recall", "--day", day, "--json", *where)
        assert status == 0, said
        assert json.loads(said) == [r for r in rounds if start <= r["opened_at"] < end], f"recall --day {day}"
    options = journal_options(journal, config)
    whole = read_log(journal, options)
    for event in whole[:: max(1, len(whole) // 4)]:
        assert read_log(journal, options, since=event.time) == [e for e in whole if e.time >= event.time], (
            f"events since {event.time}")


@pytest.mark.parametrize("name", shipped_ids())
def test_the_readers_on_what_station_run_wrote(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, journal = write_with_station_run(name, tmp_path)
    check_readers(capsys, copy.config, journal)


@pytest.mark.parametrize("name", shipped_ids())
def test_the_readers_on_what_station_demo_wrote(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, journal = write_with_station_demo(name, tmp_path)
    check_readers(capsys, copy.config, journal)
