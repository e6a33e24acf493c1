"""Test-wide settings.

Hypothesis runs derandomized by default, so the suite is deterministic: CI and a new clone
try the same examples every time, and a failure reproduces. To explore new examples while
developing, run with ``HYPOTHESIS_PROFILE=explore``.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
