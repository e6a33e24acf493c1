"""Helpers for the ``station diag`` tests that are not fixtures."""

from __future__ import annotations

from pathlib import Path


def write_config(path: Path, devices: dict[str, str], extra: str = "") -> Path:
    """A minimal valid station configuration naming ``devices`` (name -> url).

    The configuration always has a shoe, as a station's must: ``sim:`` when not named here (a
    simulated shoe is asked for by name beside real devices).
    """
    lines = ["[table]", 'equipment = "manual"', "min_bet = 1000", "max_bet = 200000", ""]
    for name, url in {"shoe": "sim:", **devices}.items():
        lines += [f"[devices.{name}]", f'url = "{url}"', ""]
    text = "\n".join(lines) + extra
    path.write_text(text)
    return path
