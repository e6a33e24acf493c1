"""The pit page's systemd unit: it verifies (with its network drop-in), it is hardened like the
station's and needs less (no device, no state), and the package installs it with its drop-in
template and its configuration template."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..floor.helpers import verify_unit
from .helpers import ROOT

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

UNIT = ROOT / "systemd" / "station-pit.service"
DROP_IN = ROOT / "systemd" / "pit-network.conf"


def _settings(text: str) -> list[str]:
    return [line.split("=", 1)[0] for line in text.splitlines() if line and not line.startswith(("#", "["))]


def test_the_unit_is_hardened_and_reaches_nothing_until_a_drop_in_allows_it() -> None:
    text = UNIT.read_text()
    for setting in ("Type=notify", "WatchdogSec=", "Restart=on-failure", "RestartPreventExitStatus=2 78",
                    "User=dealing-station", "ProtectSystem=strict", "NoNewPrivileges=yes", "PrivateDevices=yes",
                    "DevicePolicy=closed", "CapabilityBoundingSet=", "IPAddressDeny=any", "IPAddressAllow=localhost",
                    "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
                    "ExecStart=/opt/dealing-station/bin/station pit -c ${CONFIGURATION_DIRECTORY}/pit.toml"):
        assert setting in text, setting
    assert "DeviceAllow" not in text and "StateDirectory" not in text and "SupplementaryGroups" not in text
    assert set(_settings(DROP_IN.read_text())) <= {"IPAddressAllow", "LoadCredential"}


def test_the_package_installs_the_unit_and_its_templates() -> None:
    installed = (ROOT / "debian" / "dealing-station.install").read_text().split("\n")
    assert "systemd/station-pit.service lib/systemd/system/" in installed
    docs = (ROOT / "debian" / "dealing-station.docs").read_text().split()
    assert {"docs/pit.md", "systemd/pit-network.conf"} <= set(docs)
    shown = subprocess.run([sys.executable, "-m", "station", "pit", "--print-template"], capture_output=True,
                           text=True, timeout=60, cwd=ROOT)
    assert shown.returncode == 0 and shown.stdout == (ROOT / "config" / "pit.toml").read_text()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here")
def test_the_unit_with_its_drop_in_verifies(tmp_path: Path) -> None:
    result = verify_unit(UNIT, DROP_IN, tmp_path)
    assert result.returncode == 0 and result.stderr.strip() == "", result.stderr
