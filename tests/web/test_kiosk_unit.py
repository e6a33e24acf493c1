"""The kiosk example (systemd/station-scoreboard-kiosk.service): a user unit that starts
Debian's Chromium in kiosk mode on the scoreboard's page and starts it again if it closes."""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from ..as_nobody import AS_NOBODY, skip_unless_nobody_can_run
from ..seccomp_filter import filter_lines, filtered, needs_seccomp, unit_filter

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "station-scoreboard-kiosk.service"


def unit() -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case, as systemd's do
    parser.read_string(UNIT.read_text())
    return parser


def test_the_unit_starts_debians_chromium_in_kiosk_mode_on_the_page() -> None:
    service = unit()["Service"]
    command = " ".join(service["ExecStart"].split())
    assert command.startswith("/usr/bin/chromium ")
    for flag in ("--kiosk", "--noerrdialogs", "--disable-session-crashed-bubble", "--no-first-run",
                 "--app=${SCOREBOARD_URL}"):
        assert flag in command
    assert "\nEnvironment=SCOREBOARD_URL=http://127.0.0.1:8080/\n" in UNIT.read_text()
    assert service["Restart"] == "always"
    assert unit()["Install"]["WantedBy"] == "graphical-session.target"


def test_the_install_guide_tells_how_to_use_it() -> None:
    guide = (UNIT.parents[1] / "docs" / "install.md").read_text()
    assert "systemd/station-scoreboard-kiosk.service" in guide and "systemctl --user enable" in guide
    assert "IPAddressAllow=" in guide


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here")
def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    copy = tmp_path / UNIT.name
    copy.write_text(UNIT.read_text())
    runtime = tmp_path / "runtime"  # a user manager needs one; without it verify checks nothing
    runtime.mkdir(mode=0o700)
    result = subprocess.run(["systemd-analyze", "--user", "verify", "--man=no", str(copy)],
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    problems = [line for line in result.stderr.splitlines() if "chromium" not in line]
    assert not problems, result.stderr


#: The exposure ``systemd-analyze security`` may give the unit at most (it gave 9.6 UNSAFE
#: before the hardening; 2.9 after, docs/install.md).
MOST_EXPOSURE = 3.0


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here")
def test_the_unit_is_hardened_as_far_as_chromium_allows() -> None:
    """Scored offline from the file (no systemd runs as PID 1 here), as a system unit, as the
    issue measured it; the user manager's own offline analysis gives the same figure."""
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(UNIT)],
                            capture_output=True, text=True, timeout=60)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout)
    assert found is not None, result.stdout[-2000:] + result.stderr
    assert float(found.group(1)) <= MOST_EXPOSURE, result.stdout
    service = unit()["Service"]
    for left_open in ("MemoryDenyWriteExecute", "PrivateDevices", "PrivateNetwork"):
        assert left_open not in service, f"{left_open}= would stop Chromium (the unit says why it is left open)"


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="needs Debian's chromium")
@needs_seccomp
def test_chromium_renders_a_page_under_the_units_system_call_filter() -> None:
    """Debian's Chromium, with its own sandbox on, draws a page under the unit's filter with a
    forbidden call killing it (stricter than the unit, whose forbidden calls fail with EPERM):
    nothing it needs for a page is outside the filter. As root the browser runs as nobody (it
    refuses to sandbox itself as root). Headless: this machine has no display; the graphics
    drivers' calls of a real screen fail with EPERM at worst."""
    home = Path(tempfile.mkdtemp(prefix="station-kiosk-"))
    try:
        home.chmod(0o755)
        prefix: list[str] = []
        if os.geteuid() == 0:
            skip_unless_nobody_can_run()
            shutil.chown(home, "nobody", "nogroup")
            prefix = AS_NOBODY
        shot = home / "shot.png"
        browser = ["/usr/bin/chromium", "--headless=new", f"--user-data-dir={home / 'profile'}", f"--screenshot={shot}",
                   "--window-size=800,600", "data:text/html,<h1>Table 3</h1>"]
        # Its own temporary folder, as the unit's PrivateTmp= gives it.
        command = [*prefix, "env", f"HOME={home}", f"TMPDIR={home}",
                   *filtered(home, unit_filter(filter_lines(UNIT)), browser)]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=home)
        assert result.returncode == 0 and shot.stat().st_size > 0, result.stderr[-3000:]
    finally:
        shutil.rmtree(home, ignore_errors=True)
