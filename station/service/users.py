"""The people of ``[[control.users]]``: what a name may be, and an entry written for the file.

A name is journaled with everything its holder does ("voided by sam") and printed in reports,
logs and the console, so it is kept to letters, digits, ``.``, ``-`` and ``_``: nothing that
needs quoting in TOML, a log line or a shell, nothing that looks like another name. The
configuration refuses any other name (naming the key); ``station ctl new-token`` refuses it
before it makes a token.

An entry is written by a TOML library (tomli-w), never by pasting text between quotes: a
value is escaped as TOML needs, so what a person pastes into the configuration reads back as
exactly what was meant.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import tomli_w

#: Letters, digits, ``.``, ``-`` and ``_``; 1 to 32 of them.
USER_NAME = r"^[A-Za-z0-9._-]{1,32}$"
_USER_NAME = re.compile(USER_NAME)


def user_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a user, or None."""
    if not name:
        return "a user's name cannot be empty"
    if not _USER_NAME.match(name):
        return (f"{name!r} is not a user name: use 1 to 32 letters, digits, '.', '-' or '_' "
                "(it is journaled with everything the user does)")
    return None


def control_user_entry(fields: Mapping[str, str]) -> str:
    """One ``[[control.users]]`` table (``name``, ``role`` and the user's secret's hash, in
    that order) as TOML text to paste into the configuration."""
    return f"[[control.users]]\n{tomli_w.dumps(dict(fields))}"
