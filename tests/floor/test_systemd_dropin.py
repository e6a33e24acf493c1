"""The unit gains what the feed needs, and nothing of its hardening is weakened: the floor
drop-in only allows the broker's (and a scraper's) address and loads credentials."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .helpers import verify_unit

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

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
    result = verify_unit(UNIT, DROP_IN, tmp_path)
    assert result.returncode == 0 and result.stderr.strip() == "", result.stderr
