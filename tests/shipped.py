"""The shipped configurations, as the tests and the soak run them under ``station run``.

Every file the project ships (``config/station.toml`` and each of ``config/examples/``) must
run on its simulated hardware until it is stopped. A test runs a copy that differs only where
a test machine must differ from a table PC: the journal and the control socket in the test's
folder, the console's and the scoreboard's ports free ones, the simulated dealer at the pace
asked for (full speed: ``pace_ms = 0``), and, where asked, the floor feed to a test broker.
The production template ships with ``FILL-IN`` values and a placeholder token that the station
refuses until a person fills them in; its copy fills them with simulated devices, a time zone
and a token, as a technician trying the template on a bench would, and keeps everything else.
"""

from __future__ import annotations

import hashlib
import socket
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = (ROOT / "config" / "station.toml", *sorted((ROOT / "config" / "examples").glob("*.toml")))
FILL_IN = "FILL-IN"
#: What the production template's ``FILL-IN`` values become on a bench of simulators.
BENCH_VALUES = {"timezone": "Europe/Vienna", "url": "sim:"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def shipped_ids() -> list[str]:
    """A name per shipped file for the tests' ids: ``station``, ``casino-war``, ..."""
    return [path.stem for path in SHIPPED]


def shipped(name: str) -> Path:
    return next(path for path in SHIPPED if path.stem == name)


#: The bench's token for the template's placeholder user (``station ctl`` with it works).
BENCH_TOKEN = "bench-token-of-the-production-template"
PLACEHOLDER_TOKEN = "0" * 64


def _filled(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _filled(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, key) for v in value]
    if isinstance(value, str) and value.startswith(FILL_IN):
        return BENCH_VALUES[key]
    if key == "token_sha256" and value == PLACEHOLDER_TOKEN:
        return hashlib.sha256(BENCH_TOKEN.encode()).hexdigest()
    return value


@dataclass(frozen=True)
class RunnableCopy:
    """A shipped configuration made runnable in ``folder``: its file and what it uses."""

    source: Path
    config: Path
    journal: Path
    control_socket: Path
    console_url: str
    web_url: str
    game: str
    simulated_dealer: bool
    continuous: bool


def runnable_copy(source: Path, folder: Path, *, pace_ms: int | None = 0, floor: dict[str, Any] | None = None,
                  web: bool = False, extra: dict[str, dict[str, Any]] | None = None,
                  users: list[dict[str, str]] | None = None) -> RunnableCopy:
    """Write ``source`` made runnable here into ``folder`` (see the module's docstring).
    ``pace_ms`` None keeps the file's own pace; ``floor`` replaces its ``[floor]`` section;
    ``web`` turns the scoreboard on at a free port; ``extra`` sets keys of other sections;
    ``users`` are added to ``[[control.users]]`` (a supervisor's token for a test, say)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = _filled(tomllib.loads(source.read_text()))
    journal = folder / "journal.sqlite3"
    control = folder / "control.sock"
    data.setdefault("station", {})["journal"] = str(journal)
    reader = data.get("chip_reader")
    if reader is not None:  # the chip maker's file stays where it ships, beside the source
        reader["registry"] = str((source.parent / reader["registry"]).resolve())
    data.setdefault("control", {})["socket"] = str(control)
    dealer = data.setdefault("dealer", {})
    if pace_ms is not None:
        dealer["pace_ms"] = pace_ms
    console_url = ""
    console = data.get("console")
    if console is not None and console.get("enabled"):
        console["port"] = free_port()
        console_url = f"http://127.0.0.1:{console['port']}/"
    web_url = ""
    if web:
        data["web"] = {**data.get("web", {}), "enabled": True, "bind": "127.0.0.1", "port": free_port()}
        web_url = f"http://127.0.0.1:{data['web']['port']}/"
    if floor is not None:
        data["floor"] = floor
    for section, values in (extra or {}).items():
        data.setdefault(section, {}).update(values)
    if users:
        data["control"]["users"] = [*data["control"].get("users", []), *users]
    config = folder / f"{source.stem}.toml"
    config.write_text(tomli_w.dumps(data))
    table = data["table"]
    return RunnableCopy(source, config, journal, control, console_url, web_url, str(table.get("game", "baccarat")),
                        bool(dealer.get("simulated", False)), table.get("equipment") == "continuous")
