"""What the soak (bench/soak.py) checks of a table, from the outside, with the real commands.

Each check returns its figures and the violations it found, in words. The station is never
asked: the journal is read by ``station journal verify --deep``, ``station recall`` and
``station meters`` as a technician or an auditor would run them, the rounds the station
announced are read from its logs, and the floor's are those a consumer of the feed kept.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


@dataclass
class Finding:
    """One check of one table: its figures (for the report) and what it found wrong."""

    figures: dict[str, Any] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)


def station(*args: str, timeout: float = 900.0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "station", *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def deep_verify(journal: Path, timeout: float = 3600.0) -> Finding:
    """``journal verify --deep`` on ``journal``. One that does not finish within ``timeout``
    is a figure (how long a deep replay of a large journal takes on a loaded machine), not a
    violation: the soak's last check verifies every journal again with nothing else running."""
    try:
        done = station("journal", "verify", "--deep", "--journal", str(journal), timeout=timeout)
    except subprocess.TimeoutExpired:
        return Finding({"verify": f"not finished within {timeout:.0f} s (a figure, not a violation)"})
    finding = Finding({"verify": (done.stdout or done.stderr).strip()[:200]})
    if done.returncode != 0 or "intact" not in done.stdout:
        finding.violations.append(f"journal verify --deep: {(done.stdout + done.stderr).strip()[:400]}")
    return finding


def journal_rounds(journal: Path, config: Path) -> list[dict[str, Any]]:
    """Every round of the journal that is settled or voided (``station recall --last 0``)."""
    done = station("recall", "--last", "0", "--json", "--journal", str(journal), "--config", str(config))
    if done.returncode != 0:
        raise RuntimeError(f"station recall: {done.stderr.strip()[:400]}")
    rounds: list[dict[str, Any]] = json.loads(done.stdout)
    return [r for r in rounds if r["voided"] or (r.get("result") or {}).get("outcome")]


def house_of(round_: dict[str, Any]) -> int:
    """The house's result of a round as recall shows it: what the players lost, less what they won."""
    if round_["voided"]:
        return 0
    return -sum(int(bet["net"]) for bet in round_.get("settlement") or [])


def announced(logs: list[Path]) -> list[dict[str, Any]]:
    """The rounds the station said it settled, in its logs, in order, every run."""
    found = []
    for log in logs:
        for line in log.read_text(errors="replace").splitlines():
            if '"round_settled"' not in line:
                continue
            try:
                found.append(json.loads(line))
            except ValueError:
                continue  # a line cut short by a SIGKILL
    return found


def rounds_against_journal(logs: list[Path], journal: Path, config: Path) -> tuple[Finding, list[dict[str, Any]]]:
    """No round lost, none settled twice: every round the station announced is in the journal
    with the same result, and no round was announced twice."""
    said = announced(logs)
    kept = journal_rounds(journal, config)
    by_id = {r["round_id"]: r for r in kept}
    counts = Counter(line["round_id"] for line in said)
    finding = Finding({"announced": len(said), "in_journal": len(kept)})
    for round_id, times in counts.items():
        if times > 1:
            finding.violations.append(f"round {round_id} announced settled {times} times")
    for line in said:
        round_ = by_id.get(line["round_id"])
        if round_ is None:
            finding.violations.append(f"round {line['round_id']} was announced settled but is not in the journal")
        elif (round_["voided"] or round_["result"]["outcome"] != line["outcome"]
              or house_of(round_) != line["house_net"]):
            finding.violations.append(f"round {line['round_id']}: announced {line['outcome']} {line['house_net']}, "
                                      f"the journal has {round_['result'].get('outcome')} {house_of(round_)}")
    return finding, kept


def meters_against_rounds(journal: Path, config: Path, rounds: list[dict[str, Any]]) -> Finding:
    """``station meters`` over every gaming day equals the sum of the journal's rounds."""
    done = station("meters", "--day", "all", "--json", "--journal", str(journal), "--config", str(config))
    if done.returncode != 0:
        return Finding(violations=[f"station meters: {done.stderr.strip()[:400]}"])
    days = json.loads(done.stdout)["days"]
    counted = sum(day["totals"]["rounds"] for day in days)  # every round that ended: voided ones included
    house = sum(day["totals"]["house"] for day in days)
    summed = sum(house_of(r) for r in rounds)
    finding = Finding({"meters_rounds": counted, "meters_house": house, "gaming_days": len(days)})
    if counted != len(rounds):
        finding.violations.append(f"station meters counts {counted} rounds, the journal has {len(rounds)}")
    if house != summed:
        finding.violations.append(f"station meters says the house made {house}, the rounds sum to {summed}")
    return finding


def expected_rounds(journal: Path, table: str) -> dict[tuple[str, int], dict[str, Any]]:
    """The round messages the floor feed must carry for ``journal``, by (journal, n): derived
    from the whole journal once (a replay: minutes for a journal an hour at full speed wrote)."""
    from tests.floor.helpers import expected_feed

    return {(m["journal_id"], m["n"]): m for m in expected_feed(journal, table) if m["kind"] == "round"}


def floor_against_journal(received: list[dict[str, Any]], expected: dict[tuple[str, int], dict[str, Any]],
                          table: str) -> Finding:
    """A consumer of the floor feed has every round of the journal (``expected``:
    :func:`expected_rounds`) exactly once: kept once by (journal, kind, n) as the feed's
    consumers keep them, nothing missing, nothing unknown, and a repeat never differs from the
    first."""
    kept: dict[tuple[str, int], dict[str, Any]] = {}
    finding = Finding()
    repeats = 0
    for message in received:
        if message.get("kind") != "round" or message.get("table") != table:
            continue
        key = (message["journal_id"], message["n"])
        if key in kept:
            repeats += 1
            if kept[key] != message:
                finding.violations.append(f"floor: round message {key} came twice, differently")
            continue
        kept[key] = message
    missing = sorted(set(expected) - set(kept))
    unknown = sorted(set(kept) - set(expected))
    differ = [key for key in set(expected) & set(kept) if expected[key] != kept[key]]
    finding.figures = {"floor_rounds": len(kept), "floor_repeats_dropped": repeats}
    if missing:
        finding.violations.append(f"floor: {len(missing)} round messages never arrived (first {missing[0]})")
    if unknown:
        finding.violations.append(f"floor: {len(unknown)} round messages the journal does not give "
                                  f"(first {unknown[0]})")
    if differ:
        finding.violations.append(f"floor: {len(differ)} round messages differ from the journal's (first {differ[0]})")
    return finding


def no_tracebacks(logs: list[Path]) -> Finding:
    """No traceback ever reaches a person: not one in any run's log (each failure the station
    contains is one line with its reason)."""
    found = []
    for log in logs:
        for number, line in enumerate(log.read_text(errors="replace").splitlines(), 1):
            if "Traceback" in line:
                found.append(f"{log.name}:{number}: {line[:300]}")
    finding = Finding({"tracebacks": len(found)})
    if found:
        finding.violations.append(f"{len(found)} tracebacks in the logs; the first: {found[0]}")
    return finding
