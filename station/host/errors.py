"""Errors of the running station that more than the service's own modules raise or read.

Here rather than in :mod:`station.service.app`, so that the features app.py starts (the floor
feed, the metrics) can raise them without importing the module that starts them.
"""

from __future__ import annotations


class ResourceBusy(Exception):
    """Something the station needs is held by another program (the web scoreboard's port, the
    metrics port): starting again once it is free can succeed."""
