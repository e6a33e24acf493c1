"""``station completion`` and ``station manpage`` as a shell and ``man`` use them: generated
from the argument parser itself, so every command and option a person can type is offered."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from station.cli.main import build_parser

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def _station(*words: str) -> str:
    done = subprocess.run([sys.executable, "-m", "station", *words], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout


def _commands() -> list[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return sorted(sub.choices)  # type: ignore[arg-type]


def _complete(script: str, *words: str) -> list[str]:
    """What bash offers after ``words`` (the last one being typed), with ``script`` sourced."""
    line = " ".join(f"'{w}'" for w in words)
    program = (f'source /dev/stdin <<< "$SCRIPT"; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; '
               '_shtab_station; printf "%s\\n" "${COMPREPLY[@]}"')
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=60,
                          env={"SCRIPT": script, "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return sorted(filter(None, done.stdout.splitlines()))


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_every_command_and_a_command_s_options() -> None:
    script = _station("completion", "bash")
    assert _complete(script, "station", "") == _commands()
    assert _complete(script, "station", "jour") == ["journal"]
    assert "verify" in _complete(script, "station", "journal", "")
    assert _complete(script, "station", "recall", "--la") == ["--last"]
    assert "zsh" in _station("completion", "zsh") or "#compdef" in _station("completion", "zsh")


def test_the_manual_page_has_every_command() -> None:
    page = _station("manpage")
    assert page.startswith(".TH STATION \"1\"")
    for command in _commands():
        assert f"\\fBstation\\fR \\fI\\,{command}\\/\\fR" in page, command
    if shutil.which("man"):  # as a person reads it
        shown = subprocess.run(["man", "-l", "-"], input=page, capture_output=True, text=True, timeout=60,
                               env={"MANWIDTH": "100", "PATH": "/usr/bin:/bin"})
        assert "station journal" in shown.stdout and "--last" in shown.stdout
