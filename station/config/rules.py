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
are functions of the validated sections, kept beside them (:mod:`station.config.users`,
:mod:`station.config.dealer`, :mod:`station.config.devices`) and called by
:class:`~station.service.config.StationConfig`. (Whether a simulator takes an option is the
simulation's to say: ``station.cli.configuration`` asks it, for the commands that start one.)
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError, ValidationInfo

ModelT = TypeVar("ModelT", bound=BaseModel)

#: Validation context keys: the dotted keys refused so far, and where the rules' problems go.
REFUSED = "refused"
FOUND = "found"


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


#: The keys that hold amounts of money (in minor units): a decimal point there is a person
#: writing money as they read it.
MONEY_KEYS = frozenset({"min_bet", "max_bet", "chips", "differential", "box_max", "player_max", "tie_min",
                        "tie_max", "pair_min", "pair_max", "bets", "min", "max"})


def _is_money(loc: tuple[Any, ...]) -> bool:
    return any(str(part) in MONEY_KEYS for part in loc)


def _looks_like_money(value: object) -> bool:
    """A text such as "10.00" or "10,50" given where a whole number is wanted."""
    text = str(value).strip().replace(",", ".")
    whole, _, fraction = text.partition(".")
    return bool(whole.isdigit() and fraction.isdigit())


def _minor_units_example(value: object) -> str:
    """What a person who wrote ``10.0`` or ``"10.00"`` meant, in minor units of a currency of
    two decimals (the common case; a table's `[table] minor_digits` says its own)."""
    text = str(value).strip().replace(",", ".")
    whole, _, fraction = text.partition(".")
    cents = int(whole or 0) * 100 + int((fraction + "00")[:2])
    return f"{whole}.{(fraction + '00')[:2]} with 2 minor digits is {cents} (see [table] minor_digits)"


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
        elif error["type"] in ("int_type", "int_from_float", "int_parsing") and _is_money(loc) \
                and _looks_like_money(error["input"]):
            problems.append((key, f"{error['msg']} (got {error['input']!r}): amounts here are whole minor units of "
                                  f"the table's currency, so {_minor_units_example(error['input'])}"))
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
