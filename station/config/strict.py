"""The base of every configuration section: unknown keys and loose types are refused.

A typo in ``station.toml`` (``min_bett``) or a quoted number must stop the station with the
key named, not be ignored or coerced; sections are frozen because the running station never
changes its configuration. Shared by ``station.service.config`` and ``station.floor.settings``
(which the service's configuration includes).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class StrictSection(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
