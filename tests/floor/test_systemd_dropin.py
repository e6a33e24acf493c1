"""The unit gains what the feed needs, and nothing of its hardening is weakened: the floor
drop-in only allows the broker's (and a scraper's) address and loads credentials."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DROP_IN = ROOT / "systemd" / "floor.conf"
UNIT = ROOT / "systemd" / "dealing-station.service"


def _settings(text: str) -> list[str]:
    return [line.split("=", 1)[0] for line in text.splitlines() if line and not line.startswith(("#", "["))]


def test_the_drop_in_only_allows_addresses_and_loads_credentials() -> None:
    assert set(_settings(DROP_IN.read_text())) <= {"IPAddressAllow", "LoadCredential"}
    for hardening in ("IPAddressDeny=any", "RestrictAddressFamilies=AF_UNIX AF_NETLINK AF_INET AF_INET6",
                      "ProtectSystem=strict", "PrivateTmp=yes", "NoNewPrivileges=yes", "CapabilityBoundingSet="):
        assert hardening in UNIT.read_text()
    assert "systemd/floor.conf" in (ROOT / "debian" / "dealing-station.docs").read_text().split()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here")
def test_the_unit_with_the_drop_in_verifies(tmp_path: Path) -> None:
    station = Path(sys.executable).with_name("station")
    unit = tmp_path / "dealing-station.service"
    unit.write_text(UNIT.read_text().replace("/opt/dealing-station/bin/station", str(station))
                    + "\n" + DROP_IN.read_text().replace("#LoadCredential", "LoadCredential"))
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0 and result.stderr.strip() == "", result.stderr
