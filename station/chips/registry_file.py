"""The chip maker's file: a CSV of every chip, read exactly into a :class:`ChipRegistry`.

The format (docs/chips.md, "The registry file")::

    uid,value,currency,status,set
    04A1B2C3D4E5F601,25.00,EUR,active,Series A 2024
    04A1B2C3D4E5F602,100.00,EUR,flagged,Series A 2024

UTF-8 (a byte-order mark is allowed), lines ended by ``\\n`` or ``\\r\\n``, a header of these
five columns in this order and an optional sixth, ``note`` (the station's canonical form writes
it). A field may be quoted as CSV quotes (``"Series A, 2024"``); spaces around a field are
dropped; blank lines are skipped.

- ``uid``: 16 hexadecimal digits (8 bytes), each UID once in the file (small letters are
  read as capitals);
- ``value``: the chip's face value in the currency, a decimal amount (``25``, ``25.00``,
  ``0.50``), above 0, with no more decimals than the currency has; converted exactly to
  minor units (``25.00`` EUR is 2500) with integers alone, never through a float;
- ``currency``: the table's ISO 4217 code, on every line;
- ``status``: ``active``, ``flagged`` or ``retired`` (any case);
- ``set``: the chip's series or serial label, may be empty.

Every problem is found, not only the first: :class:`RegistryFileError` lists each one with
the file, the line and the column, and what is wrong.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from station.chips.places import uid_problem
from station.chips.registry import (
    COLUMNS,
    NOTE_COLUMN,
    RECORD_STATUSES,
    ChipRecord,
    ChipRegistry,
    ChipStatus,
    text_problem,
)
from station.money import Money, minor_digits_problem

#: A value as the file writes it: digits, a point and digits (an optional sign, to say why not).
_AMOUNT = re.compile(r"^([+-]?)(\d+)(?:\.(\d+))?$")
#: At most this many problems are written out in an error's message (all are in ``problems``).
SHOWN_PROBLEMS = 20


@dataclass(frozen=True)
class RegistryProblem:
    """One thing wrong in a chip file: where (line and column from 1, the column's name) and what."""

    line: int
    column: int
    name: str
    what: str

    def text(self, source: str) -> str:
        """The problem as a person reads it: "chips.csv, line 4, column 2 (value): ..."."""
        return f"{source}, line {self.line}, column {self.column} ({self.name}): {self.what}"


class RegistryFileError(ValueError):
    """A chip file that cannot be read as a registry: every problem found in it, in order."""

    def __init__(self, source: str, problems: tuple[RegistryProblem, ...]) -> None:
        self.source = source
        self.problems = problems
        lines = [problem.text(source) for problem in problems[:SHOWN_PROBLEMS]]
        if len(problems) > SHOWN_PROBLEMS:
            lines.append(f"... and {len(problems) - SHOWN_PROBLEMS} more")
        head = lines[0] if len(problems) == 1 else f"{source}: {len(problems)} problems\n  " + "\n  ".join(lines)
        super().__init__(head)


def load_registry(path: Path, money: Money) -> ChipRegistry:
    """The registry of the chip file at ``path`` for a table whose money is ``money`` (its
    currency and minor digits). :class:`RegistryFileError` when the file is wrong; an
    ``OSError`` when it cannot be read."""
    return parse_registry(path.read_bytes(), money, str(path))


def parse_registry(data: bytes | str, money: Money, source: str = "<registry>") -> ChipRegistry:
    """The registry of the chip file ``data`` (its bytes, or its text), ``source`` naming it
    in the errors. The table must have a currency: the file's is checked against it, and its
    minor digits say how many decimals a value may have."""
    if not money.currency:
        raise ValueError("the table has no currency ([table] currency): a chip file's currency cannot be checked")
    problem = minor_digits_problem(money.currency, money.digits)
    if problem is not None:
        raise ValueError(problem)
    text = _decoded(data, source)
    reader = _ChipFileReader(money)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        reader.read(number, line.removesuffix("\r"))
    if reader.columns is None:
        reader.problem(1, 1, "uid", f"no header: the file is empty (it begins {','.join(COLUMNS)})")
    if reader.problems:
        raise RegistryFileError(source, tuple(reader.problems))
    return ChipRegistry.of(money.currency, money.digits, reader.records)


def _decoded(data: bytes | str, source: str) -> str:
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        before = error.object[:error.start]  # the bytes after a byte-order mark
        column = before[before.rfind(b"\n") + 1:].count(b",") + 1
        raise RegistryFileError(source, (RegistryProblem(
            before.count(b"\n") + 1, column, _column_name(column, len(COLUMNS) + 1),
            f"not UTF-8 text (byte {error.object[error.start]:#04x})"),)) from None


def _column_name(column: int, count: int) -> str:
    names = (*COLUMNS, NOTE_COLUMN)
    return names[column - 1] if column <= min(count, len(names)) else "beyond the header"


def value_in_minor_units(text: str, digits: int, currency: str) -> tuple[int | None, str | None]:
    """The value ``text`` (a decimal amount such as ``25.00``) in minor units, exactly, or
    None and why it is not a chip's value."""
    match = _AMOUNT.match(text)
    if not text:
        return None, "no value: write the chip's face value, such as 25.00"
    if match is None:
        return None, f"value {text!r} is not an amount: write it with digits and a point, such as 25.00"
    if match[1] == "-":
        return None, f"negative value {text}: a chip's value is above 0"
    if match[1] == "+":
        return None, f"value {text!r} has a sign: write it as {text[1:]}"
    decimal = Decimal(text)
    exponent = decimal.as_tuple().exponent
    assert isinstance(exponent, int)  # digits and a point: never NaN or infinity
    if -exponent > digits:
        has = f"{digits} decimal{'s' if digits != 1 else ''}" if digits else "none (whole amounts only)"
        return None, f"value {text} has {-exponent} decimal{'s' if -exponent != 1 else ''}: {currency} has {has}"
    value = int(match[2] + (match[3] or "")) * 10 ** (digits + exponent)
    if value == 0:
        return None, f"value {text}: a chip's value is above 0"
    return value, None


class _ChipFileReader:
    """The lines of one file, read one by one: the header, then one chip a line."""

    def __init__(self, money: Money) -> None:
        self.money = money
        self.columns: tuple[str, ...] | None = None
        self.records: list[ChipRecord] = []
        self.problems: list[RegistryProblem] = []
        self.first_line: dict[str, int] = {}

    def problem(self, line: int, column: int, name: str, what: str) -> None:
        self.problems.append(RegistryProblem(line, column, name, what))

    def read(self, number: int, line: str) -> None:
        if self.columns is None:
            self._header(number, line)
        elif line.strip(" \t"):
            fields = self._fields(number, line)
            if fields is not None:
                self._chip(number, fields)

    def _fields(self, number: int, line: str) -> list[str] | None:
        try:
            fields = next(csv.reader([line], strict=True))
        except csv.Error as error:
            quote = line.find('"')
            column = line[:quote].count(",") + 1 if quote >= 0 else 1
            count = len(COLUMNS) + 1 if self.columns is None else len(self.columns)  # None: this is the header
            self.problem(number, column, _column_name(column, count), f"not CSV: {error}")
            return None
        return [field.strip(" \t") for field in fields]

    def _header(self, number: int, line: str) -> None:
        fields = self._fields(number, line)
        if fields is None:
            self.columns = ()
            return
        expected = (*COLUMNS, NOTE_COLUMN)
        header = [field.lower() for field in fields]
        for index, name in enumerate(header[:len(expected)]):
            if name != expected[index]:
                self.problem(number, index + 1, expected[index],
                             f"the header's column {index + 1} is {expected[index]!r}, not {fields[index]!r} "
                             f"(the header is {','.join(COLUMNS)}, and optionally {NOTE_COLUMN})")
                self.columns = ()
                return
        if len(header) < len(COLUMNS):
            missing = COLUMNS[len(header)]
            self.problem(number, len(header) + 1, missing, f"the header has no column {missing!r} "
                         f"(the header is {','.join(COLUMNS)})")
            self.columns = ()
        elif len(header) > len(expected):
            self.problem(number, len(expected) + 1, "beyond the header",
                         f"{fields[len(expected)]!r} is no column of a chip file "
                         f"(the header is {','.join(COLUMNS)}, and optionally {NOTE_COLUMN})")
            self.columns = ()
        else:
            self.columns = tuple(header)

    def _chip(self, number: int, fields: list[str]) -> None:
        columns = self.columns or ()
        if not columns:
            return  # the header is wrong: its problem is said, the lines cannot be read
        if len(fields) != len(columns):
            column = min(len(fields), len(columns)) + 1
            self.problem(number, column, _column_name(column, len(columns)),
                         f"{len(fields)} fields on the line, the header has {len(columns)}")
            return
        row = dict(zip(columns, fields, strict=True))
        before = len(self.problems)
        uid = self._uid(number, row["uid"])
        value, why = value_in_minor_units(row["value"], self.money.digits, self.money.currency)
        if why is not None:
            self.problem(number, 2, "value", why)
        if row["currency"] != self.money.currency:
            self.problem(number, 3, "currency", f"currency {row['currency']!r} is not the table's "
                         f"({self.money.currency})" if row["currency"] else
                         f"no currency: the table's is {self.money.currency}")
        status = row["status"].lower()
        if status not in RECORD_STATUSES:
            named = f"unknown status {row['status']!r}" if row["status"] else "no status"
            self.problem(number, 4, "status", f"{named}: a chip is active, flagged or retired")
        for index, name in ((5, "set"), (6, NOTE_COLUMN)):
            why = text_problem(f"the {name}", row.get(name, ""))
            if why is not None:
                self.problem(number, index, name, why)
        if len(self.problems) == before and uid is not None and value is not None:
            self.records.append(ChipRecord(uid, value, ChipStatus(status), row["set"], row.get(NOTE_COLUMN, "")))

    def _uid(self, number: int, text: str) -> str | None:
        uid = text.upper()
        problem = uid_problem(uid) if text else "no UID: a chip's UID is 16 hexadecimal digits (8 bytes)"
        if problem is not None:
            self.problem(number, 1, "uid", problem.replace(repr(uid), repr(text)).replace(" in capitals", ""))
            return None
        if uid in self.first_line:
            self.problem(number, 1, "uid", f"duplicate UID {uid}: already on line {self.first_line[uid]}")
            return None
        self.first_line[uid] = number
        return uid
