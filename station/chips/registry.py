"""The chip registry: every chip's UID, its value, its status and its set (docs/chips.md).

A registry is a value: nothing changes it in place. A supervisor's change (a chip flagged,
retired, or put back in play) is a :class:`RegistryChange`, and a chip maker's new file is a
:class:`RegistryImport`; :meth:`ChipRegistry.apply` gives the registry after one. So the
station can journal each change as an event and replay them to the same registry, and a
journal names the registry in force by its :meth:`~ChipRegistry.sha256`.

**Values** are integers of the table's minor units, never floats; the file's decimal amounts
are converted exactly (:mod:`station.chips.registry_file`).

**Statuses.** ``active``: in play, counted at its value. ``flagged``: under suspicion
(reported stolen, a counterfeit of its series, ...), not counted, raised as an alarm wherever
it is read. ``retired``: taken out of circulation for good, not counted, an alarm where read.
A UID the registry does not hold is ``unknown`` (a lookup's answer, never a record's status).

**Changes.** A supervisor may flag an active chip, put a flagged one back in play, or retire
either; a retired chip stays retired. Each change gives its reason, kept as the chip's note.

**An import** adds a chip maker's file to the registry: its new chips as the file says; a
chip already held keeps its value (a file that gives it another value is refused whole) and
takes the graver of the two statuses (active < flagged < retired), so a file never puts a
chip back in play that a supervisor took out; the file's set label replaces an empty one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from itertools import pairwise
from types import MappingProxyType

from station.chips.places import uid_problem
from station.money import MAX_MINOR_DIGITS

#: The columns of a chip maker's file, in order; a sixth, ``note``, is optional.
COLUMNS: tuple[str, ...] = ("uid", "value", "currency", "status", "set")
#: The optional sixth column, which the canonical form always writes.
NOTE_COLUMN = "note"


class ChipStatus(StrEnum):
    """A chip's standing: the three a registry holds, and ``unknown`` for a UID it does not."""

    ACTIVE = "active"
    FLAGGED = "flagged"
    RETIRED = "retired"
    UNKNOWN = "unknown"


#: The statuses a record (a line of the file) may have.
RECORD_STATUSES: tuple[ChipStatus, ...] = (ChipStatus.ACTIVE, ChipStatus.FLAGGED, ChipStatus.RETIRED)
#: How grave each status is: an import keeps the graver of the registry's and the file's.
_GRAVITY = {ChipStatus.ACTIVE: 0, ChipStatus.FLAGGED: 1, ChipStatus.RETIRED: 2}
#: The changes a supervisor may make: from a status, the statuses it may go to.
ALLOWED_CHANGES: Mapping[ChipStatus, frozenset[ChipStatus]] = MappingProxyType({
    ChipStatus.ACTIVE: frozenset({ChipStatus.FLAGGED, ChipStatus.RETIRED}),
    ChipStatus.FLAGGED: frozenset({ChipStatus.ACTIVE, ChipStatus.RETIRED}),
    ChipStatus.RETIRED: frozenset(),
})


def text_problem(name: str, text: object) -> str | None:
    """Why ``text`` cannot be a chip's set label, a note or a reason (one line, no space at
    either end), or None; ``name`` says which it is."""
    if not isinstance(text, str):
        return f"{name} is text, not {text!r}"
    if any(ord(char) < 32 or ord(char) == 127 for char in text):
        return f"{name} {text!r} has a control character (a line break, a tab): write it on one line"
    if text != text.strip():
        return f"{name} {text!r} begins or ends with a space"
    return None


def amount_text(amount: int, digits: int) -> str:
    """``amount`` minor units as the file writes a value: 2500 with 2 digits is "25.00" (no
    thousands separator, exactly ``digits`` decimals)."""
    whole, fraction = divmod(amount, 10**digits)
    return f"{whole}.{fraction:0{digits}d}" if digits else str(whole)


@dataclass(frozen=True)
class ChipRecord:
    """One chip: its UID, its value (minor units, above 0), its status, the set (series,
    serial) it belongs to, and why its status is what it is (the last change's reason)."""

    uid: str
    value: int
    status: ChipStatus
    chip_set: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        problem = uid_problem(self.uid)
        if problem is None and (not isinstance(self.value, int) or isinstance(self.value, bool)):
            problem = f"a chip's value is an integer of minor units, not {self.value!r}"
        if problem is None and self.value <= 0:
            problem = f"chip {self.uid}: a value must be above 0, got {self.value}"
        if problem is None and self.status not in RECORD_STATUSES:
            problem = f"chip {self.uid}: a registry's chip is active, flagged or retired, not {self.status!r}"
        problem = problem or text_problem("a chip set", self.chip_set) or text_problem("a note", self.note)
        if problem is not None:
            raise ValueError(problem)
        object.__setattr__(self, "status", ChipStatus(self.status))


@dataclass(frozen=True)
class ChipStanding:
    """What the registry says of a chip read: its status (``unknown``: not in the registry) and,
    when it is registered, its value, set and note. Only an ``active`` chip counts."""

    uid: str
    status: ChipStatus
    value: int = 0
    chip_set: str = ""
    note: str = ""

    @property
    def counts(self) -> bool:
        """True when the chip is counted at its value (it is active)."""
        return self.status is ChipStatus.ACTIVE

    def status_words(self) -> str:
        """Its status as a person reads it: "active", "flagged", "retired", "not in the registry"."""
        return "not in the registry" if self.status is ChipStatus.UNKNOWN else self.status.value


@dataclass(frozen=True)
class RegistryChange:
    """A supervisor's change of one chip's status, with why (journaled, then applied)."""

    uid: str
    status: ChipStatus
    reason: str

    def __post_init__(self) -> None:
        problem = uid_problem(self.uid) or text_problem("a reason", self.reason)
        if problem is None and not self.reason:
            problem = "a change of a chip's status says why"
        if problem is None and self.status not in RECORD_STATUSES:
            problem = f"a chip can be made active, flagged or retired, not {self.status!r}"
        if problem is not None:
            raise ValueError(problem)
        object.__setattr__(self, "status", ChipStatus(self.status))


@dataclass(frozen=True)
class RegistryImport:
    """A chip maker's file added to the registry: the file as read (a registry of its own,
    whose :meth:`~ChipRegistry.canonical_text` is what a journal keeps) and its name."""

    delivery: ChipRegistry
    source: str = ""


class RegistryChangeRefused(ValueError):
    """A change that cannot be applied to this registry; the message says why."""


@dataclass(frozen=True)
class ChipRegistry:
    """Every chip of a table's currency, by UID. Build it with :meth:`of` (any order)."""

    currency: str
    digits: int
    records: tuple[ChipRecord, ...] = ()
    _index: Mapping[str, ChipRecord] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.currency, str) or len(self.currency) != 3 or not self.currency.isupper() \
                or not self.currency.isalpha():
            raise ValueError(f"a chip registry's currency is a 3-letter ISO 4217 code, got {self.currency!r}")
        if not isinstance(self.digits, int) or isinstance(self.digits, bool) \
                or not 0 <= self.digits <= MAX_MINOR_DIGITS:
            raise ValueError(f"minor digits are 0 to {MAX_MINOR_DIGITS}, got {self.digits!r}")
        uids = [record.uid for record in self.records]
        if uids != sorted(set(uids)):
            raise ValueError("a registry's records are in the order of their UIDs, each once: build it with of()")
        object.__setattr__(self, "_index", MappingProxyType({record.uid: record for record in self.records}))

    @classmethod
    def of(cls, currency: str, digits: int, records: Iterable[ChipRecord] = ()) -> ChipRegistry:
        """The registry of ``records``; a UID given twice is refused (``ValueError``)."""
        ordered = sorted(records, key=lambda record: record.uid)
        for before, after in pairwise(ordered):
            if before.uid == after.uid:
                raise ValueError(f"chip {after.uid} is given twice")
        return cls(currency, digits, tuple(ordered))

    def __len__(self) -> int:
        return len(self.records)

    def __contains__(self, uid: object) -> bool:
        return uid in self._index

    def record(self, uid: str) -> ChipRecord | None:
        """The chip's record, or None when the registry does not hold it."""
        return self._index.get(uid)

    def standing(self, uid: str) -> ChipStanding:
        """What the registry says of the chip ``uid``: active with its value, flagged, retired,
        or unknown."""
        record = self._index.get(uid)
        if record is None:
            return ChipStanding(uid, ChipStatus.UNKNOWN)
        return ChipStanding(uid, record.status, record.value, record.chip_set, record.note)

    # --- changes -------------------------------------------------------------------------------

    def apply(self, change: RegistryChange | RegistryImport) -> ChipRegistry:
        """The registry after ``change``; :class:`RegistryChangeRefused` when it cannot be made
        (this registry is unchanged: it is a value)."""
        if isinstance(change, RegistryImport):
            return self._imported(change)
        record = self._index.get(change.uid)
        if record is None:
            raise RegistryChangeRefused(f"chip {change.uid} is not in the registry")
        if change.status not in ALLOWED_CHANGES[record.status]:
            if change.status is record.status:
                raise RegistryChangeRefused(f"chip {change.uid} is already {record.status.value}")
            raise RegistryChangeRefused(f"chip {change.uid} is {record.status.value}: it cannot be made "
                                        f"{change.status.value}")
        return self._with({change.uid: replace(record, status=change.status, note=change.reason)})

    def _imported(self, change: RegistryImport) -> ChipRegistry:
        delivery = change.delivery
        if (delivery.currency, delivery.digits) != (self.currency, self.digits):
            raise RegistryChangeRefused(f"the file's chips are in {delivery.currency} ({delivery.digits} digits), "
                                        f"the registry's in {self.currency} ({self.digits} digits)")
        revalued = [f"{new.uid} ({amount_text(old.value, self.digits)} here, "
                    f"{amount_text(new.value, self.digits)} in the file)"
                    for new in delivery.records if (old := self._index.get(new.uid)) and old.value != new.value]
        if revalued:
            shown = ", ".join(revalued[:5]) + (f" and {len(revalued) - 5} more" if len(revalued) > 5 else "")
            raise RegistryChangeRefused(f"a chip keeps its value for life; the file gives {len(revalued)} "
                                        f"chip(s) another: {shown}")
        changed: dict[str, ChipRecord] = {}
        for new in delivery.records:
            old = self._index.get(new.uid)
            if old is None:
                changed[new.uid] = new
                continue
            graver = new if _GRAVITY[new.status] > _GRAVITY[old.status] else old
            merged = replace(old, status=graver.status, note=graver.note, chip_set=old.chip_set or new.chip_set)
            if merged != old:
                changed[new.uid] = merged
        return self._with(changed)

    def _with(self, changed: Mapping[str, ChipRecord]) -> ChipRegistry:
        if not changed:
            return self
        if changed.keys() <= self._index.keys():  # no new chip: the order stands
            return ChipRegistry(self.currency, self.digits, tuple(changed.get(r.uid, r) for r in self.records))
        return ChipRegistry.of(self.currency, self.digits, {**self._index, **changed}.values())

    # --- the canonical form ---------------------------------------------------------------------

    def canonical_text(self) -> str:
        """The registry in the chip maker's file format with its ``note`` column, one chip a
        line in the order of the UIDs, values with exactly the currency's decimals, lines
        ended by ``\\n``: :func:`station.chips.registry_file.parse_registry` reads it back to
        this very registry, and two equal registries have the same text."""
        lines = [",".join((*COLUMNS, NOTE_COLUMN))]
        for record in self.records:
            fields = (record.uid, amount_text(record.value, self.digits), self.currency, record.status.value,
                      record.chip_set, record.note)
            lines.append(_csv_line(fields))
        return "\n".join(lines) + "\n"

    def sha256(self) -> str:
        """The sha256 (hex) of :meth:`canonical_text`: the name a journal gives this registry."""
        return hashlib.sha256(self.canonical_text().encode("utf-8")).hexdigest()

    def counts(self) -> dict[ChipStatus, int]:
        """How many chips of each status the registry holds."""
        found = dict.fromkeys(RECORD_STATUSES, 0)
        for record in self.records:
            found[record.status] += 1
        return found


def _csv_field(text: str) -> str:
    """A field as CSV writes it: quoted (its quotes doubled) only when it holds a comma or a quote."""
    return '"' + text.replace('"', '""') + '"' if "," in text or '"' in text else text


def _csv_line(fields: Iterable[str]) -> str:
    return ",".join(_csv_field(text) for text in fields)
