"""The kiosk example (systemd/station-scoreboard-kiosk.service): a user unit that starts
Debian's Chromium in kiosk mode on the scoreboard's page and starts it again if it closes."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest

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
    assert service["Environment"] == "SCOREBOARD_URL=http://127.0.0.1:8080/"
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
    result = subprocess.run(["systemd-analyze", "--user", "verify", "--man=no", str(copy)],
                            capture_output=True, text=True, timeout=60)
    problems = [line for line in result.stderr.splitlines() if UNIT.name in line and "chromium" not in line]
    assert not problems, result.stderr
