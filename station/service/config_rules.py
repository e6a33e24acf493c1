"""The configuration's rules that span keys, found all at once.

A technician fixing a template should learn of every problem in one run of ``station run
--check``, each as one line naming the file and the key. pydantic reports every key of a
wrong type in one pass; the rules that relate keys (a maximum below the minimum, two users
with one token) are written here so that each rule adds its problem and the others still run
(:class:`Findings`). A rule that reads a key already refused (``decks = "8"``) is skipped: its
verdict would be about a value the file does not hold (:func:`station.service.config.parse_config`
validates again with the refused keys left at their defaults, so the other rules are judged
in the same run).

The rules across sections (users, buttons, devices the rounds need, a real device's options)
are functions of the validated sections, called by
:class:`~station.service.config.StationConfig`. (Whether a simulator takes an option is the
simulation's to say: ``station.cli.configuration`` asks it, for the commands that start one.)
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError, ValidationInfo

if TYPE_CHECKING:
    from station.service.config import ControlUser, DeviceSection

ModelT = TypeVar("ModelT", bound=BaseModel)

#: Validation context keys: the dotted keys refused so far, and where the rules' problems go.
REFUSED = "refused"
FOUND = "found"
#: The placeholder token of the production template: a token nobody holds.
PLACEHOLDER_TOKEN = "0" * 64
#: Devices whose buttons ``[dealer.buttons]`` names, and the names their drivers report.
BUTTON_DEVICES = ("pedals", "buttonbox")


class ConfigRulesError(ValueError):
    """Rules broken: ``problems`` are ``(dotted key, message)`` pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{key}: {message}" for key, message in problems))
        self.problems = problems


def refused(key: str, keys: Iterable[str]) -> bool:
    """``key`` (or a key inside it, or the section it is in) was refused already."""
    return any(other == key or other.startswith((f"{key}.", f"{key}[")) or key.startswith((f"{other}.", f"{other}["))
               for other in keys)


class Findings:
    """The problems one validator's rules find; raised together at the end (:meth:`done`),
    or handed to :func:`~station.service.config.parse_config` when it collects them."""

    def __init__(self, info: ValidationInfo | None, prefix: str = "") -> None:
        context = info.context if info is not None and isinstance(info.context, dict) else {}
        self._refused: frozenset[str] = frozenset(context.get(REFUSED, ()))
        self._found: list[tuple[str, str]] | None = context.get(FOUND)
        self.prefix = prefix
        self.problems: list[tuple[str, str]] = []

    def judged(self, *keys: str) -> bool:
        """True when none of ``keys`` (relative to the section) was refused: the rule runs."""
        return not any(refused(self.prefix + key, self._refused) for key in keys)

    def add(self, key: str, message: str) -> None:
        self.problems.append((self.prefix + key, message))

    def done(self) -> None:
        if not self.problems:
            return
        if self._found is not None:
            self._found.extend(p for p in self.problems if p not in self._found)
            return
        raise ConfigRulesError(self.problems)


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


def button_names(devices: Mapping[str, DeviceSection | None]) -> dict[str, tuple[str, ...]]:
    """The buttons each configured button device has (every button device's when none is)."""
    from drivers.devices.buttonbox import DEFAULT_BUTTONS as BOX_BUTTONS
    from drivers.usb.protocol import DEFAULT_BUTTONS as PEDAL_BUTTONS

    known = {"pedals": tuple(PEDAL_BUTTONS), "buttonbox": tuple(BOX_BUTTONS.values())}
    present = {name: known[name] for name in BUTTON_DEVICES if devices.get(name) is not None}
    return present or known


def button_problems(buttons: Mapping[str, str], given: bool, devices: Mapping[str, DeviceSection | None],
                    found: Findings) -> None:
    """Every button ``[dealer.buttons]`` maps is one a configured device has: ``center`` for
    the pedals' ``centre`` would be a pedal that silently does nothing."""
    if not given or not found.judged("dealer.buttons", "devices"):
        return
    names = button_names(devices)
    have = {button for device in names.values() for button in device}
    for button in buttons:
        if button not in have:
            found.add(f"dealer.buttons.{button}", f"no configured device has a button {button!r}; the buttons are "
                                                  + "; ".join(f"{d}: {', '.join(b)}" for d, b in names.items()))


def sign_in_button_problems(button: str, devices: Mapping[str, DeviceSection | None], found: Findings) -> None:
    """The button that begins a sign-in on the button box is one of the box's buttons."""
    from drivers.devices.buttonbox import DEFAULT_BUTTONS as BOX_BUTTONS

    if not button or not found.judged("dealer.sign_in_button", "devices"):
        return
    if devices.get("buttonbox") is None:
        found.add("dealer.sign_in_button", "no [devices.buttonbox] is configured to sign in on")
    elif button not in BOX_BUTTONS.values():
        found.add("dealer.sign_in_button", f"the button box has no button {button!r}; its buttons are "
                                           + ", ".join(BOX_BUTTONS.values()))


def device_problems(devices: Mapping[str, DeviceSection | None], found: Findings) -> None:
    """The rounds need a card shoe: beside a real device it is named, never simulated by
    default (a simulated one is asked for by name, ``url = "sim:"``). A real device's driver
    reads no ``options`` (they are its simulator's)."""
    if found.judged("devices") and devices.get("shoe") is None:
        real = sorted(name for name, section in devices.items() if section is not None)
        found.add("devices.shoe", f"missing: the rounds need a card shoe, and beside {', '.join(real)} it is not "
                                  "simulated by default; name its port (`station diag ports`), or url = \"sim:\" "
                                  "for the simulated one")
    for name, section in devices.items():
        if section is None or section.url.startswith("sim:") or not found.judged(f"devices.{name}"):
            continue
        for key in section.options:
            found.add(f"devices.{name}.options.{key}", f"no driver reads it: options are for a simulated "
                                                       f"{name} (url = \"sim:\"), and this one is real")


def _dotted(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif parts:
            parts.append(f".{item}")
        else:
            parts.append(str(item))
    return "".join(parts)


def _location(error: Any) -> tuple[int | str, ...]:
    return tuple(p for p in error["loc"] if not (isinstance(p, str) and p.startswith("function-")))


def _problems(exc: ValidationError) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    for error in exc.errors(include_url=False):
        loc = _location(error)
        ctx_error = (error.get("ctx") or {}).get("error")
        if isinstance(ctx_error, ConfigRulesError):
            problems.extend(ctx_error.problems)
            continue
        key = _dotted(loc)
        if error["type"] == "extra_forbidden":
            problems.append((key, "unknown key (check the spelling; `station config show-default` shows every key)"))
        elif error["type"] == "literal_error":
            problems.append(
                (key, f"{error['input']!r} is not allowed (use {error['msg'].removeprefix('Input should be ')})")
            )
        elif error["type"] == "value_error":
            problems.append((key, f"{error['msg'].removeprefix('Value error, ')} (got {error['input']!r})"))
        else:
            problems.append((key, f"{error['msg']} (got {error['input']!r})"))
    return problems


#: Validations of one file at most: the first finds every wrong key; the next ones, with those
#: keys at their defaults, judge the rules that read only right ones (and find the sections
#: a required key was taken from, which go whole).
_PASSES = 5
_GONE = object()


def judge(model: type[ModelT], data: dict[str, Any]) -> tuple[ModelT | None, list[tuple[str, str]]]:
    """Every problem of ``data`` as a ``model`` (each wrong key, then each broken rule whose
    keys are right), and the model with the refused keys at their defaults (None when even
    that cannot be built)."""
    found: list[tuple[str, str]] = []
    problems: list[tuple[str, str]] | None = None
    refused_keys: set[str] = set()
    current: Any = data
    for _ in range(_PASSES):
        try:
            config = model.model_validate(current, context={REFUSED: frozenset(refused_keys), FOUND: found})
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
            problems = _problems(exc) if problems is None else problems
            gone = [_location(e)[:-1] if e["type"] == "missing" else _location(e) for e in errors]
            if any(not loc for loc in gone):
                break
            refused_keys.update(_dotted(loc) for loc in gone)
            current = _swept(_marked(copy.deepcopy(current), gone))
            continue
        return config, [*(problems or []), *(p for p in found if p not in (problems or []))]
    return None, [*(problems or []), *(p for p in found if p not in (problems or []))]


def _marked(data: Any, locations: list[tuple[int | str, ...]]) -> Any:
    for loc in locations:
        node = data
        for part in loc[:-1]:
            node = node[part] if _has(node, part) else None
        if _has(node, loc[-1]):
            node[loc[-1]] = _GONE
    return data


def _has(node: Any, part: int | str) -> bool:
    if isinstance(node, dict):
        return part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)


def _swept(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _swept(value) for key, value in node.items() if value is not _GONE}
    if isinstance(node, list):
        return [_swept(value) for value in node if value is not _GONE]
    return node
