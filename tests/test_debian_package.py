"""The Debian package, built with dh-virtualenv, installed on this machine and purged again.

It changes the machine (a system package, a system user), so it runs only when asked
(``-m deb``), as root, with Debian's build tools: ``.ci/run`` installs them and runs it after
the suite. It checks what a casino's IT department checks: the files where systemd, udev and
the shell look for them, a conffile that refuses to start until its devices are filled in, a
unit that verifies, a service neither enabled nor started, and a purge that keeps the journal
unless asked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "dealing-station"
JOURNAL_FOLDER = Path("/var/lib/dealing-station")

pytestmark = [
    pytest.mark.deb,
    pytest.mark.e2e,  # builds and installs with dpkg (tests/conftest.py)
    pytest.mark.skipif(os.geteuid() != 0, reason="installs a system package: needs root (CI runs it as root)"),
    pytest.mark.skipif(shutil.which("dpkg-buildpackage") is None or shutil.which("dh_virtualenv") is None,
                       reason="needs Debian's dpkg-dev, debhelper and dh-virtualenv (apt-get install; .ci/run does)"),
]


def _run(*command: str, env: dict[str, str] | None = None, timeout: float = 300,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env={**os.environ, "DEBIAN_FRONTEND": "noninteractive", **(env or {})})


@pytest.fixture(scope="module")
def deb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package, built from a clean copy of the checkout."""
    base = tmp_path_factory.mktemp("deb")
    source = base / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "__pycache__", "*.egg-info", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis",
        "build", "dist", "*.sqlite3*"))
    started = time.monotonic()
    built = _run("dpkg-buildpackage", "-us", "-uc", "-b", cwd=source, timeout=1200)
    assert built.returncode == 0, (built.stdout + built.stderr)[-4000:]
    print(f"\n.deb built in {time.monotonic() - started:.0f} s")
    (package,) = base.glob(f"{PACKAGE}_*.deb")
    return package


def test_the_package_depends_on_the_python_it_was_built_with_and_uses_today_s_debhelper(deb: Path,
                                                                                       tmp_path: Path) -> None:
    """No python3 pin written by hand (Debian 13 has 3.13): the build's own minor version, the
    venv's; the sysusers file through dh_installsysusers; no wait for the deprecated udev-settle."""
    built_with = _run("/usr/bin/python3", "-c", "import sys; print('%d.%d %d.%d' % (*sys.version_info[:2], "
                      "sys.version_info[0], sys.version_info[1] + 1))").stdout.split()
    depends = _run("dpkg-deb", "-f", str(deb), "Depends").stdout
    assert f"python3 (>= {built_with[0]})" in depends and f"python3 (<< {built_with[1]})" in depends, depends
    assert _run("dpkg-deb", "-e", str(deb), str(tmp_path / "control")).returncode == 0
    postinst = (tmp_path / "control" / "postinst").read_text()
    assert "dh_installsysusers" in postinst and "systemd-sysusers" in postinst, postinst
    assert postinst.index("systemd-sysusers") < postinst.index("chgrp dealing-station"), "the group exists first"
    listing = _run("dpkg-deb", "-c", str(deb)).stdout
    assert "./usr/lib/sysusers.d/dealing-station.conf" in listing
    unit = (ROOT / "systemd" / "dealing-station.service").read_text().splitlines()
    ordering = [line for line in unit if line.split("=")[0] in ("After", "Wants", "Requires", "BindsTo")]
    assert ordering and not any("udev-settle" in line for line in ordering), ordering


def test_the_package_installs_where_systemd_looks_and_purges_keeping_the_journal(deb: Path) -> None:
    installed = _run("apt-get", "install", "-y", "-q", str(deb), timeout=600)
    assert installed.returncode == 0, (installed.stdout + installed.stderr)[-4000:]
    try:
        for path in ("/opt/dealing-station/bin/station", "/usr/bin/station",
                     "/lib/systemd/system/dealing-station.service", "/lib/udev/rules.d/60-dealing-station.rules",
                     "/usr/lib/sysusers.d/dealing-station.conf", "/usr/share/doc/dealing-station/install.md.gz",
                     "/usr/share/doc/dealing-station/floor.conf",
                     "/lib/systemd/system/station-pit.service", "/usr/share/doc/dealing-station/pit-network.conf",
                     "/usr/share/dealing-station/station-scoreboard-kiosk.service",
                     "/usr/share/bash-completion/completions/station", "/usr/share/man/man1/station.1.gz"):
            assert Path(path).exists(), path
        completed = _run("bash", "-c", "source /usr/share/bash-completion/completions/station; "
                         'COMP_WORDS=(station jour); COMP_CWORD=1; _shtab_station; echo "${COMPREPLY[@]}"')
        assert completed.stdout.split() == ["journal"], completed
        conffiles = _run("dpkg-query", "-W", "-f=${Conffiles}", PACKAGE).stdout
        assert "/etc/dealing-station/station.toml" in conffiles
        config = Path("/etc/dealing-station/station.toml")
        assert oct(config.stat().st_mode & 0o777) == "0o640"
        assert _run("getent", "passwd", PACKAGE).returncode == 0  # systemd-sysusers made the user
        version = _run("station", "--version")
        assert version.returncode == 0 and version.stdout.startswith(f"{PACKAGE} ")
        check = _run("station", "run", "-c", str(config), "--check")
        assert check.returncode == 78 and "devices.shoe.url: not filled in yet" in check.stderr
        verify = _run("systemd-analyze", "verify", "/lib/systemd/system/dealing-station.service")
        assert verify.returncode == 0, verify.stderr
        assert not Path("/etc/systemd/system/multi-user.target.wants/dealing-station.service").exists()
        verify = _run("systemd-analyze", "verify", "/lib/systemd/system/station-pit.service")
        assert verify.returncode == 0, verify.stderr
        assert not Path("/etc/systemd/system/multi-user.target.wants/station-pit.service").exists()
        template = _run("station", "pit", "--print-template")
        assert template.returncode == 0 and "[broker]" in template.stdout
    finally:
        JOURNAL_FOLDER.mkdir(parents=True, exist_ok=True)
        (JOURNAL_FOLDER / "journal.sqlite3").write_text("the casino's record\n")
        purged = _run("apt-get", "purge", "-y", "-q", PACKAGE, timeout=600)
    assert purged.returncode == 0, purged.stderr
    assert not Path("/opt/dealing-station").exists() and not Path("/usr/bin/station").exists()
    assert not Path("/etc/dealing-station").exists()
    assert (JOURNAL_FOLDER / "journal.sqlite3").exists(), "a purge must keep the journal unless asked"
    again = _run("apt-get", "install", "-y", "-q", str(deb), timeout=600)
    assert again.returncode == 0
    asked = _run("apt-get", "purge", "-y", "-q", PACKAGE, env={"DEALING_STATION_PURGE_JOURNAL": "yes"}, timeout=600)
    assert asked.returncode == 0 and not JOURNAL_FOLDER.exists()
