"""Technicians' diagnostics behind ``station diag``: list, probe, monitor and exercise devices,
against real hardware and simulators alike."""
