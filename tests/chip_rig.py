"""A table that reads its chips as the end-to-end and browser tests start it: the chip
maker's registry written for the test's chips, and the sections that put a chip reader (a
simulator in the test's process) under the layout (docs/chips.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

#: ``[table]`` lines: the currency a registry needs, chip bets confirmed by one tap, a wrong payment held.
CHIP_TABLE = 'currency = "EUR"\n[table.chip_bets]\nconfirm = "tap"\nhold_wrong_payment = true'


def write_registry(path: Path, active: Mapping[str, Iterable[str]], others: Iterable[str] = ()) -> Path:
    """The registry file at ``path``: ``active`` chips by value ("10.00" -> UIDs), then
    ``others``, whole CSV rows (a flagged or retired chip with its note)."""
    rows = [f"{uid},{value},EUR,active,test series," for value, uids in active.items() for uid in uids]
    path.write_text("uid,value,currency,status,set,note\n" + "\n".join([*rows, *others]) + "\n")
    return path


def chip_reader_sections(reader_url: str, registry: Path, antennas: Mapping[int, str]) -> str:
    """``[devices.chipreader]`` and ``[chip_reader]`` for the reader at ``reader_url``, its
    ``antennas`` (number to place), believing a steady read after 300 ms."""
    places = "\n".join(f'{n} = "{place}"' for n, place in antennas.items())
    return (f'\n[devices.chipreader]\nurl = "{reader_url}"\n[chip_reader]\nregistry = "{registry}"\n'
            f"stable_reads = 2\nstable_ms = 300\nperiod_ms = 50\n[chip_reader.antennas]\n{places}\n")
