"""The codes of the significant-event log: stable names, grouped in families.

A code never changes its meaning; a new kind of event gets a new code. Consumers (the floor's
surveillance systems, the pit's reports) key on the code; the text is for people and may be
worded better in a later version. docs/events.md lists every code with what it means, and a
test holds the two together.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    name: str
    family: str
    meaning: str


#: The families, each with a JSON Schema of its own on the floor feed
#: (``station/floor/schemas/significant-<family>.schema.json``).
FAMILIES = ("station", "device", "integrity", "journal", "access", "table")

CODES: dict[str, Code] = {c.name: c for c in (
    Code("start_new_journal", "station", "the station started on a journal it had never started on"),
    Code("start_after_clean_stop", "station", "the station started; its last run had stopped in order"),
    Code("start_after_unclean_stop", "station", "the station started; its last run ended without stopping (killed, "
         "crashed, or the PC lost power: data.power_loss says the PC itself restarted)"),
    Code("start_after_unknown_stop", "station", "the station started on a journal written before stops were "
         "journaled: how the last run ended is not known"),
    Code("station_stopped", "station", "the station stopped in order"),
    Code("software_version_changed", "station", "the station started with another software version than its "
         "last run"),
    Code("configuration_opened", "station", "a journal was begun under the table's configuration (its rules are "
         "journaled with it)"),
    Code("configuration_changed", "station", "the station started with a configuration file that differs from "
         "its last run's (devices, users, floor...: the table's rules themselves cannot change within a journal)"),
    Code("device_lost", "device", "a device stopped answering or reported a fault"),
    Code("device_fault", "device", "a device is not working: a shuffler jam or error, a failed self-test"),
    Code("device_back", "device", "a device lost or faulted works again"),
    Code("device_rebooted", "device", "a device reported that it started afresh (power-up, reset)"),
    Code("shoe_lid_opened", "device", "the shoe's lid was opened"),
    Code("shoe_lid_closed", "device", "the shoe's lid was closed"),
    Code("shuffler_door_opened", "device", "the shuffler's door was opened"),
    Code("shuffler_door_closed", "device", "the shuffler's door was closed again"),
    Code("deck_check_failed", "integrity", "a set failed its deck check (short, over-full, foreign cards, or no "
         "count given)"),
    Code("integrity_alarm", "integrity", "an integrity alarm: the shoe or the game is proved wrong "
         "(docs/integrity.md)"),
    Code("integrity_alert", "integrity", "an integrity alert: something to look at (docs/integrity.md)"),
    Code("journal_unwritable", "journal", "the journal could not be written (the disk full, an I/O error): "
         "the table waited"),
    Code("journal_writable", "journal", "the journal could be written again"),
    Code("disk_low", "journal", "the journal's file system has less free space than [station] disk_warning_mb"),
    Code("disk_space_back", "journal", "the journal's file system has enough free space again"),
    Code("access_denied", "access", "someone was refused: a wrong PIN, an unknown token or dealer id, or a "
         "command their role may not use"),
    Code("correction", "table", "a supervisor corrected a bet of a settled round"),
    Code("dealer_change", "table", "a dealer took the table, relieving the one before"),
)}
