"""Every command example in README.md and docs/*.md works as written, or says why it cannot run here.

A documented command that silently broke (``--set box=1`` refused, ``station run --web-port``
that never existed) is found here, by file and line, with what it printed. Examples are:

- the command lines of the shell blocks (```` ```sh ````; in a plain block, lines that begin
  ``station `` or ``$ station ``), which are *run*: ``bash -c`` with the line as written,
  against a running simulated station (the real ``station run`` on simulators, in betting
  state, tests/service/conftest.py) for the commands that talk to a station or its journal,
  and on a bench of simulated devices (``config/examples/batch-shuffler.toml``) for the
  others. The table PC's paths stand for the test's files (:data:`TABLE_PC_PATHS`);
- every ``station …`` in a block or in inline code, whose commands, sub-commands and options
  must all exist (a synopsis such as ``station demo [--shoes N]`` is checked, not run).

An example that cannot run here (a real serial port, a broker, root) is listed in
:data:`CANNOT_RUN` with why; one that runs but is refused by the state of the test's table
(``decide void`` with no irregularity open) in :data:`REFUSED_HERE`, with the refusal it must
give. Steps of the install that change the table PC as root are named by their program in
:data:`SYSTEM_STEPS`. A listed example that no document has any more fails too, so the lists
stay the documents'.

When this test fails on a merge, the message names the document, the line and what the
command printed: fix the document or the code (or, for an example that truly cannot run
here, add it to the lists with the reason).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from station.cli.main import build_parser

from .conftest import SUPERVISOR_TOKEN, ExternalTable

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BENCH_CONFIG = ROOT / "config" / "examples" / "batch-shuffler.toml"
STATION = Path(sys.executable).parent / "station"

#: Documented examples that cannot run on this machine, by their text: why.
CANNOT_RUN: dict[str, str] = {
    'station ctl --token-file ~/.station-token send tray --set what=fill --set chips="[[2500,40],[10000,10]]" '
    '--set witness=rob --set slip=F-1001':
        "needs the opener before it on the same table, and the examples run in any order; "
        "tests/service/test_tray_e2e.py runs an opener, a fill, a closer and a drop through station ctl",
    'station ctl --token-file ~/.station-token send drop --set amount=1250000 --set note="count room"':
        "needs a table opened with an opener, and the examples run in any order; tests/service/test_tray_e2e.py "
        "enters a drop through station ctl",
    "station diag probe --url /dev/ttyUSB1": "names a serial port of a table PC; tests/diag probes simulators "
                                             "on pseudo-terminals by --url",
    "station diag probe --url /dev/serial/by-id/usb-Shoe_SN0042-if00-port0 --kind shoe":
        "names a shoe's serial port on a table PC; tests/diag probes a simulated shoe by --url and --kind",
    "station diag pedals --seconds 20": "waits 20 s for a person to press each pedal; tests/diag/test_pedals.py "
                                        "presses the simulated pedals",
    "station floor watch --broker mqtts://floor-broker.casino.lan --anchors-out anchors.jsonl":
        "needs the casino's broker (and watches until Ctrl-C); tests/floor run it against a mosquitto",
    "station floor watch --broker mqtt://127.0.0.1 --json --table BAC-01 --table WAR-02":
        "watches a broker until Ctrl-C; tests/floor/test_feed_e2e.py runs it against a mosquitto",
    "station floor watch -c /etc/dealing-station/station.toml":
        "watches the configured broker until Ctrl-C (the test's station has no [floor]); tests/floor run it",
    "station pit --print-template > /etc/dealing-station/pit.toml":
        "writes into /etc of the pit's PC (root); tests/pit/test_pit_unit.py prints the template",
    "station pit -c /etc/dealing-station/pit.toml --check":
        "checks the pit PC's file in /etc; tests/pit/test_pit_command.py checks the template and bad files",
    "station pit -c /etc/dealing-station/pit.toml":
        "serves the pit page until Ctrl-C; tests/pit run it against a mosquitto",
    "station pit --broker mqtt://127.0.0.1:1883 --port 8090":
        "serves the pit page until Ctrl-C; tests/pit run it against a mosquitto",
    "station ctl new-user dana dealer":
        "asks a person for the PIN twice; tests/console/test_console_users_and_tls.py types it and starts a "
        "station with the entry it prints",
}

#: Documented examples that run, and are refused by the state of the test's table (betting,
#: no irregularity, no alert), by their text: (exit status, what the refusal says, why).
REFUSED_HERE: dict[str, tuple[int, str, str]] = {
    'station ctl --token-file ~/.station-token decide void --set detail="card on the floor"':
        (1, "refused: there is no irregularity to decide", "no irregularity is open on the test's table"),
    'station ctl --token-file ~/.station-token decide accept --set detail="regulars, imbalance accepted"':
        (1, "refused: there is no irregularity to decide", "no differential decision is pending"),
    'station ctl --token-file ~/.station-token send ack --set ident=3 --set note="set counted by hand: complete"':
        (1, "refused: there is no alert 3", "the test's table has raised no alert 3"),
    "station ctl --token-file ~/.station-token send action --set action=decline_tie --set box=1 --set player=P1":
        (1, "refused: unknown dealer action 'decline_tie'", "decline_tie is Casino War's; the test's table deals "
                                                           "mini Baccarat"),
    "station ctl --token-file ~/.station-token send tray --set what=closer --set counted_by=reader --set witness=dana":
        (1, "refused: no chip reader's antenna is under this table's tray",
         "the test's table reads no chips; tests/service/test_tray_antenna_e2e.py counts the tray by its antenna"),
    "station ctl --token-file ~/.station-token send confirm-payouts --set round_id=1-12":
        (1, "refused: cannot confirm payouts now", "the test's table is betting: no round's payouts wait to be "
                                                   "confirmed"),
    "station diag probe --url /dev/ttyUSB9 --kind shoe --wait 1":
        (1, "shoe at /dev/ttyUSB9 is not reachable", "the document shows this very refusal: nothing on that port"),
    "station run -c /etc/dealing-station/station.toml --check":
        (78, "is being written by process", "the test's station is running: --check finds its journal in use, "
                                            "as it would on a table PC where the service runs"),
}

#: Programs of the steps that install or administer the table PC (root, systemd, udev, apt),
#: not the station's: why they are not run here.
SYSTEM_STEPS: dict[str, str] = {
    "apt-get": "installs Debian packages on the table PC (.ci/run and tests/test_debian_package.py do)",
    "install": "installs files into /etc, /lib or /home of the table PC (root)",
    "cp": "copies files into /etc of the table PC (root)",
    "editor": "a person edits a file",
    "systemctl": "starts or stops the systemd service of the table PC (tests/service/test_systemd.py)",
    "systemd-analyze": "checks the installed unit (tests/test_debian_package.py)",
    "journalctl": "reads the systemd journal of the table PC",
    "curl": "asks the pit PC's page on its network address (tests/pit ask the page over HTTP)",
    "udevadm": "reloads the udev rules of the table PC (root)",
    "ls": "lists the table PC's device links",
    "printf": "writes a file into /etc of the table PC (root)",
    "mkdir": "makes a folder in /etc of the table PC (root)",
    "adduser": "adds the kiosk user to the table PC (root)",
    "chown": "changes owners in /home of the table PC (root)",
    "chgrp": "changes the group of /etc/dealing-station/station.toml (root)",
    "sudo": "runs a command as the kiosk user of the table PC",
    "loginctl": "keeps the kiosk user's session (root)",
    "git": "clones the repository onto the table PC",
    "ln": "links the station into /usr/local/bin (root)",
    "systemd-sysusers": "creates the station's system user (root)",
    "python3": "makes a new virtual environment: .ci/run runs the README's test command on a fresh clone",
    "/opt/dealing-station/bin/pip": "installs the locked build (tests/test_packaging.py installs it)",
    ".venv/bin/pip": "installs into a developer's virtual environment",
    ".venv/bin/pip-compile": "rebuilds requirements.lock (tests/test_packaging.py checks the lock)",
    "nice": "runs the mutation tool at the lowest priority (docs/testing.md): minutes to hours, a developer's "
            "measurement the suite does not run",
    ".venv/bin/python": "runs the mutation tool (docs/testing.md): minutes to hours, a developer's measurement "
                        "the suite does not run",
}

#: The table PC's files, as the examples name them, and the test's files they stand for.
TABLE_PC_PATHS = ("/etc/dealing-station/station.toml", "/var/lib/dealing-station/journal.sqlite3")
#: Commands that talk to a running station or read its journal: run against the test's station.
STATION_COMMANDS = ("ctl", "journal", "recall", "events", "integrity", "floor", "run", "meters")


@dataclass(frozen=True)
class Example:
    document: Path
    line: int
    text: str
    runnable: bool
    """A command line of a block, without placeholders (run); otherwise a mention or a
    synopsis (checked)."""
    block: bool = True

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"

    @property
    def program(self) -> str:
        return self.text.split()[0]


def _blocks(text: str) -> Iterator[tuple[str, int, list[str]]]:
    """Fenced blocks: (language, line of the first content line, lines)."""
    for match in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
        yield match.group(1), text[:match.start()].count("\n") + 2, match.group(2).splitlines()


def _commands(language: str, first: int, lines: list[str]) -> Iterator[tuple[int, str, bool]]:
    """(line, command, is a shell block's) for each command line of a block; continuation
    lines (``\\``) are joined."""
    pending, start = "", 0
    for offset, raw in enumerate(lines):
        if language in ("sh", "bash", "shell"):
            line = raw.strip()
        elif raw.startswith("$ station ") or raw.startswith("station "):
            line = raw.removeprefix("$ ")
        else:
            continue
        if not line or line.startswith("#"):
            continue
        if not pending:
            start = first + offset
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        command = re.sub(r"\s+#\s.*$", "", pending + line)  # a comment for the reader
        yield start, " ".join(command.split()), True
        pending = ""


def _placeholder(text: str) -> bool:
    return bool(re.search(r"[\[\]|<>…]|\.\.\.", text.split(" #", maxsplit=1)[0]))


def documented_examples() -> list[Example]:
    examples = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for language, first, lines in _blocks(text):
            for line, command, shell in _commands(language, first, lines):
                runnable = shell and not _placeholder(command)
                examples.append(Example(document, line, command, runnable))
        prose = re.sub(r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S | re.M)
        for match in re.finditer(r"`(station [a-z][^`]*)`", prose):
            words = " ".join(match.group(1).split())
            if not words.split()[1].endswith(":"):  # `station journal: no journal at …` is output
                examples.append(Example(document, prose[:match.start()].count("\n") + 1, words, False, block=False))
    return examples


EXAMPLES = documented_examples()
RUN = [e for e in EXAMPLES if e.runnable and e.text not in CANNOT_RUN and e.program not in SYSTEM_STEPS]


# --- every station command named in the docs exists --------------------------------------------------

def _station_words(text: str) -> list[str] | None:
    """The words after ``station`` in a command line (None when it does not run the station)."""
    words = text.split(" #", maxsplit=1)[0].split()
    if words and words[0].endswith("/station"):
        words[0] = "station"
    if "station" not in words[:1]:
        return None
    return words[1:]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _tokens(words: list[str]) -> list[str]:
    """The words of one ``station`` command, quotes taken as the shell takes them, brackets of
    a synopsis dropped, up to a shell operator (``| head -3``, ``&&``)."""
    text = " ".join(words)
    try:
        tokens = shlex.split(text, comments=True)
    except ValueError:  # an unbalanced quote in a synopsis
        tokens = text.split()
    kept = []
    for token in tokens:
        if token in ("|", "||", "&&", ";", ">", ">>", "<"):
            break
        token = token.strip("[]")
        if token:
            kept.append(token)
    return kept


def reference_problems(words: list[str]) -> list[str]:
    """What a ``station …`` line names that does not exist: a command, a sub-command or an option."""
    problems: list[str] = []
    parser = build_parser(words[0] if words else None)
    descending, skip = True, False
    for word in _tokens(words):
        if skip:  # the value of the option before
            skip = False
            continue
        if word.startswith("-") and not re.fullmatch(r"-\d+", word):
            for option in word.split("|"):
                name, has_value = option.split("=")[0].rstrip(",.;:)"), "=" in option
                action = parser._option_string_actions.get(name)
                if action is None:
                    problems.append(f"{name}: no such option of this command")
                else:
                    skip = action.nargs != 0 and not has_value and "|" not in word
            continue
        choices = _subcommands(parser)
        if not descending or not choices:
            continue
        names = [part for part in word.split("|") if re.fullmatch(r"[a-z][a-z-]*", part)]
        if not names:  # a placeholder: SUBCOMMAND, ACTION, …
            descending = False
            continue
        unknown = [name for name in names if name not in choices]
        problems += [f"{name}: no such command (there are: {', '.join(sorted(choices))})" for name in unknown]
        known = [name for name in names if name in choices]
        if not known:
            break
        if len(known) > 1 or "|" in word:
            descending = False  # alternatives: their own options are not checked past here
            continue
        parser = choices[known[0]]
    return problems


@pytest.mark.parametrize("example", [e for e in EXAMPLES if _station_words(e.text) is not None],
                         ids=lambda e: e.where)
def test_every_station_command_a_document_names_exists(example: Example) -> None:
    words = _station_words(example.text)
    assert words is not None
    problems = reference_problems(words)
    assert not problems, (f"{example.where}: `{example.text}` names what `station` does not have: "
                          f"{'; '.join(problems)} (fix the document or the code)")


def test_the_lists_of_examples_that_cannot_run_hold_only_documented_ones() -> None:
    documented = {e.text for e in EXAMPLES}
    stale = sorted(set(CANNOT_RUN) - documented) + sorted(set(REFUSED_HERE) - documented)
    assert not stale, f"no document has these examples any more; remove them from the lists: {stale}"
    programs = {e.program for e in EXAMPLES if e.block}
    unused = sorted(set(SYSTEM_STEPS) - programs)
    assert not unused, f"no document runs these programs any more; remove them from SYSTEM_STEPS: {unused}"


def test_every_example_is_run_or_says_why_not() -> None:
    unknown = [f"{e.where}: `{e.text}`" for e in EXAMPLES
               if e.runnable and _station_words(e.text) is None and e.program not in SYSTEM_STEPS]
    assert not unknown, ("command examples this test neither runs nor has a reason for (a `station` command is "
                         "run; another program's step needs a line in SYSTEM_STEPS saying why not): "
                         + "; ".join(unknown))
    assert len(RUN) >= 25, f"only {len(RUN)} examples run: the extraction of the documents broke"


# --- the examples run -------------------------------------------------------------------------------

@dataclass
class Places:
    station_env: dict[str, str]
    bench_env: dict[str, str]
    table: ExternalTable
    scratch: Path


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Places]:
    """A running station in betting state (its people's tokens in ~/.station-token) and a
    bench of simulated devices, each with an environment of its own."""
    scratch = tmp_path_factory.mktemp("docs")
    (scratch / "table").mkdir()
    table = ExternalTable(scratch / "table")
    home = scratch / "home"
    (home / "run").mkdir(parents=True)
    (home / ".station-token").write_text(SUPERVISOR_TOKEN + "\n")
    path = f"{STATION.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    base = {k: v for k, v in os.environ.items() if not k.startswith("STATION_")}
    base.update(HOME=str(home), PATH=path, PYTHONUNBUFFERED="1")
    bench = scratch / "bench"
    bench.mkdir()
    shutil.copy(BENCH_CONFIG, bench / "station.toml")
    try:
        table.start_station()
        table.play_until(lambda s: s["state"] == "betting")
        station_env = {**base, "XDG_RUNTIME_DIR": str(table.directory / "run"), "STATION_CONFIG": str(table.config),
                       "STATION_JOURNAL": str(table.journal), "STATION_CONTROL_SOCKET": str(table.socket)}
        bench_env = {**base, "XDG_RUNTIME_DIR": str(home / "run"), "XDG_STATE_HOME": str(bench / "state"),
                     "STATION_CONFIG": str(bench / "station.toml")}
        yield Places(station_env, bench_env, table, scratch)
    finally:
        table.close()


def _in_place(example: Example, places: Places) -> tuple[str, dict[str, str]]:
    """The command line with the table PC's paths put for the test's, and its environment."""
    words = _station_words(example.text) or []
    at_station = bool(words) and words[0] in STATION_COMMANDS
    table = places.table
    if at_station:
        paths = {TABLE_PC_PATHS[0]: str(table.config), TABLE_PC_PATHS[1]: str(table.journal)}
    else:  # `config init` writes a new file; anything else reads the bench's configuration
        fresh = places.scratch / f"new-{example.line}" / "station.toml"
        fresh.parent.mkdir(exist_ok=True)
        new_file = words[:2] == ["config", "init"]
        paths = {TABLE_PC_PATHS[0]: str(fresh if new_file else Path(places.bench_env["STATION_CONFIG"]))}
    command = example.text
    for pc_path, test_path in paths.items():
        command = command.replace(pc_path, test_path)
    return command, places.station_env if at_station else places.bench_env


def _ready_to_bet(table: ExternalTable) -> None:
    """Each example meets the table in betting, not paused (``pause`` is one of them)."""
    status = table.status()
    if status["state"] == "paused" or "pause asked" in status["expecting"]:
        table.ctl("resume", token=SUPERVISOR_TOKEN)
    table.wait_for(lambda s: s["state"] == "betting")


@pytest.mark.parametrize("example", RUN, ids=lambda e: e.where)
def test_the_documented_example_runs(example: Example, places: Places) -> None:
    command, env = _in_place(example, places)
    if (_station_words(example.text) or [""])[:1] == ["ctl"]:
        _ready_to_bet(places.table)
    work = places.scratch / "work"
    work.mkdir(exist_ok=True)
    ran = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120, env=env, cwd=work)
    printed = (ran.stdout[-1500:] + ran.stderr[-1500:]).strip()
    refused = REFUSED_HERE.get(example.text)
    if refused is None:
        assert ran.returncode == 0, (f"{example.where}: `{example.text}` exited {ran.returncode}:\n{printed}\n"
                                     "(fix the document or the code; an example that cannot run against a "
                                     "simulated station goes in CANNOT_RUN with why)")
        assert "Traceback" not in ran.stderr, f"{example.where}: a traceback reached a person:\n{ran.stderr}"
        return
    status, words, why = refused
    assert (ran.returncode, words in ran.stderr + ran.stdout) == (status, True), (
        f"{example.where}: `{example.text}` should be refused here ({why}) with exit {status} and {words!r}; "
        f"it exited {ran.returncode}:\n{printed}")
    assert "Traceback" not in ran.stderr and ran.stderr.count("\n") <= 3, ran.stderr


def test_a_documented_command_that_breaks_is_named_with_what_it_printed(tmp_path: Path) -> None:
    """The checker itself: a document naming an option that does not exist fails with the
    document's line and the option (this is what found `station run --web-port`)."""
    document = tmp_path / "doc.md"
    document.write_text("Start it with `station run --web-port 8080`.\n\n```sh\nstation ctl --jsn status\n```\n")
    found: list[Any] = []
    text = document.read_text()
    for language, first, lines in _blocks(text):
        found += [(line, command) for line, command, _ in _commands(language, first, lines)]
    assert found == [(4, "station ctl --jsn status")]
    assert reference_problems(["run", "--web-port", "8080"]) == ["--web-port: no such option of this command"]
    assert reference_problems(["ctl", "--jsn", "status"]) == ["--jsn: no such option of this command"]
    assert reference_problems(["ctl", "statuss"])[0].startswith("statuss: no such command")
    assert reference_problems(["ctl", "status", "--json"]) == []
