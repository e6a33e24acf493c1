"""``[control]`` and ``[[control.users]]``: the control socket and the people who may act.

Each person has a name and a token or a PIN of their own (hashes only, never the secret), and
a dealer may have an id typed on the button box (docs/dealers.md).

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
from typing import Literal

import tomli_w
from pydantic import Field, ValidationInfo, field_validator

from station.config.pins import stored_problem
from station.config.rules import Findings
from station.config.strict import StrictSection

Role = Literal["dealer", "supervisor", "technician"]
#: Letters, digits, ``.``, ``-`` and ``_``; 1 to 32 of them.
USER_NAME = r"^[A-Za-z0-9._-]{1,32}$"
_USER_NAME = re.compile(USER_NAME)
#: The placeholder token of the production template: a token nobody holds.
PLACEHOLDER_TOKEN = "0" * 64


class ControlUser(StrictSection):
    name: str
    """Letters, digits, ``.``, ``-`` and ``_`` (:mod:`station.config.users`)."""
    role: Role
    token_sha256: str = Field(default="", pattern=r"^([0-9a-f]{64})?$")
    """SHA-256 (hex) of the user's secret token for ``station ctl``; the token itself is never stored."""
    pin_scrypt: str = Field(default="", validate_default=True)
    """The user's console PIN as a salted scrypt hash (``station ctl new-user``); never the PIN."""
    dealer_id: str = Field(default="", pattern=r"^([1-9]{2,8})?$")
    """The dealer's id on the button box: 2 to 8 button numbers (docs/dealers.md); not a secret."""

    @field_validator("pin_scrypt")
    @classmethod
    def _pin_or_token(cls, value: str, info: ValidationInfo) -> str:
        if value:
            problem = stored_problem(value)
            if problem:
                raise ValueError(problem)
        elif not info.data.get("token_sha256"):
            raise ValueError("a user needs a token_sha256 (station ctl new-token) or a pin_scrypt "
                             "(station ctl new-user), or both")
        return value

    @field_validator("name")
    @classmethod
    def _a_user_name(cls, value: str) -> str:
        problem = user_name_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value


class ControlSection(StrictSection):
    socket: str = ""
    """Unix socket path; empty means $RUNTIME_DIRECTORY/control.sock or the state directory."""
    socket_mode: int = Field(default=0o660, ge=0, le=0o777)
    users: list[ControlUser] = Field(default_factory=list)
    local_technicians: list[str] = Field(default_factory=lambda: ["root"])
    """Local accounts whose ``station ctl`` needs no token for what a technician may do (read
    the status): the socket's peer as the kernel names it. Empty: every request takes a token."""


def user_problems(users: list[ControlUser], found: Findings) -> None:
    """Each person has a name and a token of their own, and no token is the template's."""
    if not found.judged("control.users"):
        return
    named: set[str] = set()
    first_with: dict[str, int] = {}
    for index, user in enumerate(users):
        where = f"control.users[{index}]"
        if user.name in named:
            found.add(f"{where}.name", f"{user.name!r} is already the name of another user: names must be distinct "
                                       "(every action is journaled with the name)")
        named.add(user.name)
        if user.token_sha256 == PLACEHOLDER_TOKEN:
            found.add(f"{where}.token_sha256", "the template's placeholder, not a token's hash: make a token with "
                                               "`station ctl new-token NAME ROLE` and paste the entry it prints")
        if user.dealer_id:
            dealer_id_problems(users, index, found)
        if not user.token_sha256:
            continue  # a console user with a PIN only (station ctl new-user)
        elif user.token_sha256 in first_with:
            other = users[first_with[user.token_sha256]]
            found.add(f"{where}.token_sha256", f"the same token as control.users[{first_with[user.token_sha256]}] "
                                               f"({other.name}, {other.role}): each person needs a token of their "
                                               "own, or one would act as the other")
        else:
            first_with[user.token_sha256] = index


def dealer_id_problems(users: list[ControlUser], index: int, found: Findings) -> None:
    """A dealer id is a dealer's or supervisor's, its numbers are buttons of the box, and no id
    is another's or the beginning of another's (the box signs in as soon as an id is typed)."""
    from drivers.devices.buttonbox import DEFAULT_BUTTONS as BOX_BUTTONS

    user, where = users[index], f"control.users[{index}].dealer_id"
    if user.role not in ("dealer", "supervisor"):
        found.add(where, f"{user.name} is a {user.role}: only a dealer or a supervisor deals")
    if any(int(digit) > len(BOX_BUTTONS) for digit in user.dealer_id):
        found.add(where, f"the button box has buttons 1 to {len(BOX_BUTTONS)}: {user.dealer_id} names another")
    mine = user.dealer_id
    for other_index, other in enumerate(users[:index]):
        if other.dealer_id and (other.dealer_id.startswith(mine) or mine.startswith(other.dealer_id)):
            found.add(where, f"{user.dealer_id} and control.users[{other_index}] ({other.name}) {other.dealer_id}: "
                             "no dealer id may be another's or begin another's")


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
