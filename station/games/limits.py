"""A table's limits and chips: what a supervisor may change during a gaming day.

The rest of a table's options (the game, its variant, the boxes, the payouts, the decks) decide
how the rounds of a journal replay, and a journal is written under one set of them. TableLimits are
different: a casino raises its minimum for a Saturday night, lowers it on a quiet Tuesday
morning, and adds a chip when the cage issues one. So limits change by an event
(:class:`station.events.LimitsChanged`) that takes effect from the next round to open, and
every round keeps the limits it was played under (docs/limits.md).

Names are the configuration's ``[table]`` keys (``war.box_max`` is ``box_max`` here), so a
change, its refusal and the configuration speak the same words. All amounts are ``int`` in
the table's minor units. The Tie and Pair limits are what the limits sign shows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from station.money import Money

#: Every limit key, in the order a sign or a report lists them.
LIMIT_KEYS = ("min_bet", "max_bet", "chips", "differential", "tie_min", "tie_max", "pair_min", "pair_max",
              "box_max", "player_max")

#: Keys whose value 0 means "none" (no differential, no box maximum, no Tie line on the sign).
OPTIONAL_KEYS = frozenset(LIMIT_KEYS) - {"min_bet", "max_bet", "chips"}


#: Amounts as people write them when nothing says the table's money (two digits, no currency).
_RAW = Money()


class LimitsError(ValueError):
    """A change of limits that cannot be: ``key`` names the limit."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(f"{key}: {message}")


@dataclass(frozen=True)
class TableLimits:
    """The limits a round is played under. Checked when built: whole positive minor units,
    minimum below maximum, chips in use that each make the smallest; the game checks what it
    adds (:meth:`station.games.interface.Game.table_with_limits`)."""

    min_bet: int
    max_bet: int
    chips: tuple[int, ...]
    differential: int = 0
    tie_min: int = 0
    tie_max: int = 0
    pair_min: int = 0
    pair_max: int = 0
    box_max: int = 0
    player_max: int = 0

    def __post_init__(self) -> None:
        _check({key: getattr(self, key) for key in LIMIT_KEYS}, str)
        object.__setattr__(self, "chips", tuple(sorted(self.chips)))

    @classmethod
    def from_settings(cls, settings: Any) -> TableLimits:
        """The limits of the configuration's ``[table]`` section (read by attribute)."""
        war = getattr(settings, "war", None)
        return cls(settings.min_bet, settings.max_bet, tuple(settings.chips), settings.differential,
                   settings.tie_min, settings.tie_max, settings.pair_min, settings.pair_max,
                   getattr(war, "box_max", 0), getattr(war, "player_max", 0))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TableLimits:
        """TableLimits as :meth:`to_json` wrote them (raises :class:`LimitsError` or KeyError)."""
        return cls(**{key: data[key] for key in LIMIT_KEYS if key in data})  # chips made a tuple when built

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["chips"] = list(self.chips)
        return data

    def changed(self, changes: Mapping[str, Any], allowed: Iterable[str], money: Money = _RAW) -> TableLimits:
        """These limits with ``changes`` made; a key the game has no such limit for (``allowed``
        are the keys it has) or a value that cannot be is a :class:`LimitsError`, its amounts
        written in the table's ``money``."""
        keys = tuple(allowed)
        if not changes:
            raise LimitsError("limits", "name at least one limit to change")
        for key, value in changes.items():
            if key not in keys:
                raise LimitsError(key, f"this table has no such limit; it has {', '.join(keys)}")
            if key == "chips" and not isinstance(value, (list, tuple)):
                raise LimitsError("chips", f"give the chips as a list of denominations, got {value!r}")
        values: dict[str, Any] = {key: (tuple(value) if key == "chips" else value) for key, value in changes.items()}
        merged = {**{key: getattr(self, key) for key in LIMIT_KEYS}, **values}
        say = money.with_currency
        _check(merged, say)
        smallest = min(merged["chips"])
        odd = [chip for chip in merged["chips"] if chip % smallest]
        if odd:
            raise LimitsError("chips", f"every chip must be a multiple of the smallest chip {say(smallest)}; "
                                       f"{', '.join(say(chip) for chip in odd)} not")
        for key in ("min_bet", "max_bet"):
            if merged[key] % smallest:
                raise LimitsError(key, f"{say(merged[key])} cannot be made of chips of {say(smallest)}")
        if merged["differential"] and merged["differential"] < merged["min_bet"]:  # as the configuration requires
            raise LimitsError("differential", f"a differential of {say(merged['differential'])} is below the "
                                              f"table minimum {say(merged['min_bet'])}")
        return replace(self, **values)

    def differences(self, other: TableLimits) -> list[str]:
        """The keys whose values differ between these limits and ``other``."""
        return [key for key in LIMIT_KEYS if getattr(self, key) != getattr(other, key)]


def _check(values: Mapping[str, Any], say: Callable[[int], str]) -> None:
    """Whole positive minor units, minimum below maximum, chips each once, the sign's lines in
    order; a :class:`LimitsError` otherwise, its amounts written by ``say``."""
    for key in LIMIT_KEYS:
        value = values[key]
        if key != "chips" and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise LimitsError(key, f"must be a whole number of minor units, 0 or more, got {value!r}")
    chips = values["chips"]
    if not isinstance(chips, (tuple, list)) or not chips:
        raise LimitsError("chips", f"give at least one chip denomination, got {chips!r}")
    if any(not isinstance(c, int) or isinstance(c, bool) or c <= 0 for c in chips):
        raise LimitsError("chips", f"chip denominations are positive whole minor units, got {list(chips)}")
    if len(set(chips)) != len(chips):
        raise LimitsError("chips", f"a denomination is listed twice: {', '.join(say(c) for c in chips)}")
    low, high = values["min_bet"], values["max_bet"]
    if low <= 0:
        raise LimitsError("min_bet", f"must be above 0, got {say(low)}")
    if high < low:
        raise LimitsError("max_bet", f"maximum {say(high)} is below the minimum {say(low)}")
    for side in ("tie", "pair"):
        low, high = values[f"{side}_min"], values[f"{side}_max"]
        if (low or high) and not 0 < low <= high:
            raise LimitsError(f"{side}_max", f"{side} limits need 0 < {side}_min <= {side}_max (both 0: none), "
                                             f"got {say(low)} - {say(high)}")


def limits_words(limits: Mapping[str, Any], money: Money, *, chips: bool = True) -> str:
    """Limits as a supervisor reads them: "10.00 - 5,000.00, chips 1.00 5.00 25.00, Tie 5.00 -
    500.00" (the optional limits only when set; the chips left out when ``chips`` is false)."""
    parts = [f"{money(limits['min_bet'])} - {money(limits['max_bet'])}"]
    if chips:
        parts.append("chips " + " ".join(money(chip) for chip in limits.get("chips", ())))
    if limits.get("differential"):
        parts.append(f"differential {money(limits['differential'])}")
    for side, name in (("tie", "Tie"), ("pair", "Pair")):
        if limits.get(f"{side}_max"):
            parts.append(f"{name} {money(limits[f'{side}_min'])} - {money(limits[f'{side}_max'])}")
    for key, name in (("box_max", "box max"), ("player_max", "player max")):
        if limits.get(key):
            parts.append(f"{name} {money(limits[key])}")
    return ", ".join(parts)


def chip_words(limits: Mapping[str, Any], money: Money) -> str:
    """The chips in play: "chips        1.00 5.00 25.00" (aligned as recall aligns its lines)."""
    return "chips        " + " ".join(money(chip) for chip in limits.get("chips", ()))
