"""Which software this is: the installed package's version (from its metadata).

The version goes into ``station --version`` and into the journal (the ``Configuration``
record of a new journal, and a ``Software`` record whenever a station of another version
opens it), so an auditor can tell which software dealt a round. docs/install.md says when
the version changes (CHANGELOG.md keeps the record).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def installed_version() -> str:
    """``0.2.0``, or ``unknown`` when the package is not installed (run from a bare checkout)."""
    try:
        return version("dealing-station")
    except PackageNotFoundError:
        return "unknown"
