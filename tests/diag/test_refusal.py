"""Refusals: with a real ServiceHolder acquired in a child process (as the running service
holds it), every diagnostic that would talk to a held device is refused with the holder's
message and exit status 1, before a byte is sent; during a live round everything is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from station.cli.main import main
from station.service.holder import how_to_stop

from .helpers import write_config

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


@pytest.fixture
def devices(sim, tmp_path: Path) -> dict[str, object]:
    """Real simulators for every serial kind, and a config naming them plus simulated pedals."""
    started = {kind: sim(kind) for kind in ("shoe", "shuffler", "display")}
    urls = {kind: running.url for kind, running in started.items()}
    urls["pedals"] = "sim:"
    return {"sims": started, "urls": urls, "config": str(write_config(tmp_path / "station.toml", urls))}


COMMANDS = [
    ["display-test", "--pause", "0"],
    ["deck-check"],
    ["pedals", "--seconds", "1"],
    ["probe", "shoe"],
    ["monitor", "shoe", "--seconds", "1"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_held_devices_are_refused(devices, hold, command, capsys) -> None:
    holder = hold(devices["urls"])
    assert main(["diag", "-c", devices["config"], *command]) == 1
    err = capsys.readouterr().err
    assert f"refused: the station (pid {holder.child.pid}) holds the" in err
    assert f"stop it first: {how_to_stop(holder.child.pid)}" in err
    # nothing was sent: the simulators saw no handshake
    assert all(not running.simulator.received for running in devices["sims"].values())


def test_selftest_is_refused_while_the_service_holds_the_devices(devices, hold, capsys) -> None:
    hold(devices["urls"])
    assert main(["diag", "-c", devices["config"], "selftest"]) == 1
    assert "refused: the station (pid" in capsys.readouterr().err


BY_URL = {  # command -> (kind of device it is pointed at, extra arguments)
    "display-test": ("display", ["--pause", "0"]),
    "deck-check": ("shuffler", []),
    "pedals": ("pedals", ["--seconds", "1"]),
    "probe": ("shoe", []),
    "monitor": ("shoe", ["--seconds", "1"]),
}


@pytest.mark.parametrize("command", sorted(BY_URL))
def test_a_live_round_refuses_even_a_device_the_service_does_not_hold(devices, hold, command, capsys) -> None:
    hold({"shoe": "/dev/dealing-station/shoe"}, mode="live")
    kind, extra = BY_URL[command]
    # The pedals' socket does not exist: the refusal must come before any attempt to reach it.
    url = "usb-sim:///nonexistent/pedals.sock?serial=PED-X" if kind == "pedals" else devices["urls"][kind]
    assert main(["diag", command, "--url", str(url), "--kind", kind, *extra]) == 1
    assert "refused: a round is live on this table" in capsys.readouterr().err
    assert all(not running.simulator.received for running in devices["sims"].values())


def test_a_bench_device_on_another_port_is_not_refused(devices, hold, capsys) -> None:
    hold({"shoe": "/dev/dealing-station/shoe"})  # idle service, its shoe elsewhere
    display = devices["urls"]["display"]
    assert main(["diag", "probe", "--url", str(display), "--kind", "display"]) == 0
    assert "model SIM-DISPLAY-1" in capsys.readouterr().out


def test_a_held_port_is_recognised_through_a_by_id_link(devices, hold, tmp_path: Path, capsys) -> None:
    shoe_tty = os.path.realpath(devices["urls"]["shoe"])
    link = tmp_path / "usb-Shoe_Reader_SN123-if00-port0"
    link.symlink_to(shoe_tty)
    hold({"shoe": str(link)})  # the service opened the shoe by its by-id link
    assert main(["diag", "probe", "--url", shoe_tty, "--kind", "shoe"]) == 1
    err = capsys.readouterr().err
    assert "holds the shoe" in err and str(link) in err


def test_a_leftover_lock_of_a_stopped_service_refuses_nothing(devices, hold, capsys) -> None:
    holder = hold(devices["urls"], mode="live")
    holder.child.kill()
    holder.child.wait(timeout=10)
    assert main(["diag", "-c", devices["config"], "probe", "shoe"]) == 0
    capsys.readouterr()


def test_a_live_round_on_another_table_refuses_only_that_tables_devices(devices, hold, tmp_path: Path,
                                                                         capsys) -> None:
    """One user may run the stations of several tables (issue 24): a round live on another
    table's station (another journal) does not refuse this table's diagnostics, while the
    devices that station holds stay refused; a round live on this table's station refuses all."""
    ours, theirs = tmp_path / "ours" / "journal.sqlite3", tmp_path / "theirs" / "journal.sqlite3"
    config = write_config(tmp_path / "ours.toml", devices["urls"], f'\n[station]\njournal = "{ours}"\n')
    other = hold({"shoe": "/dev/dealing-station/other-shoe"}, mode="live", journal=theirs)
    assert main(["diag", "-c", str(config), "probe", "display"]) == 0
    assert "model SIM-DISPLAY-1" in capsys.readouterr().out
    assert main(["diag", "probe", "--url", "/dev/dealing-station/other-shoe", "--kind", "shoe"]) == 1
    assert f"the station (pid {other.child.pid}) holds the shoe" in capsys.readouterr().err
    hold({}, mode="live", journal=ours)
    assert main(["diag", "-c", str(config), "probe", "display"]) == 1
    assert "refused: a round is live on this table" in capsys.readouterr().err


@pytest.mark.parametrize(("cgroup", "said"), [
    ("0::/system.slice/dealing-station.service\n", "systemctl stop dealing-station"),
    ("0::/system.slice/dealing-station@table2.service\n", "systemctl stop dealing-station@table2"),
    ("0::/user.slice/user-1000.slice/session-3.scope\n", "it was started by hand: Ctrl-C in its terminal, or kill 42"),
    ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/vte-spawn-1.scope\n",
     "it was started by hand: Ctrl-C in its terminal, or kill 42"),
    ("0::/\n", "it was started by hand: Ctrl-C in its terminal, or kill 42"),
])
def test_the_refusal_says_how_the_holder_is_stopped_as_it_runs(tmp_path: Path, cgroup: str, said: str) -> None:
    (tmp_path / "42").mkdir()
    (tmp_path / "42" / "cgroup").write_text(cgroup)
    assert how_to_stop(42, tmp_path) == said
