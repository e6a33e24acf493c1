"""The chip maker's file: read exactly (integers of minor units, never a float), every problem
named by file, line and column (docs/chips.md, "The registry file")."""

from __future__ import annotations

from decimal import Decimal, localcontext
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from station.chips.registry import ChipRecord, ChipRegistry, ChipStatus, amount_text
from station.chips.registry_file import (
    SHOWN_PROBLEMS,
    RegistryFileError,
    RegistryProblem,
    load_registry,
    parse_registry,
    value_in_minor_units,
)
from station.money import Money

EUR = Money(2, "EUR")
HEADER = "uid,value,currency,status,set\n"
A, B, C = "04A1B2C3D4E5F601", "04A1B2C3D4E5F602", "04A1B2C3D4E5F603"

EXAMPLE = f"""uid,value,currency,status,set
{A},25.00,EUR,active,Series A 2024
{B},100,EUR,flagged,"Series A, 2024"
{C},0.50,EUR,retired,
"""


def _error(text: str | bytes, money: Money = EUR) -> str:
    with pytest.raises(RegistryFileError) as raised:
        parse_registry(text, money, "chips.csv")
    return str(raised.value)


def test_the_example_file_is_read_exactly() -> None:
    registry = parse_registry(EXAMPLE, EUR, "chips.csv")
    assert registry == ChipRegistry("EUR", 2, (
        ChipRecord(A, 2500, ChipStatus.ACTIVE, "Series A 2024"),
        ChipRecord(B, 10_000, ChipStatus.FLAGGED, "Series A, 2024"),
        ChipRecord(C, 50, ChipStatus.RETIRED, ""),
    ))


def test_bytes_a_byte_order_mark_crlf_blank_lines_spaces_small_letters_and_any_case_of_status() -> None:
    text = f"\ufeffUID, Value ,currency,status,set\r\n\r\n {A.lower()} , 25.00 ,EUR, ACTIVE ,A\r\n\r\n"
    registry = parse_registry(text.encode("utf-8"), EUR)
    assert registry.records == (ChipRecord(A, 2500, ChipStatus.ACTIVE, "A"),)


def test_the_optional_note_column_is_read() -> None:
    registry = parse_registry(f"{HEADER.strip()},note\n{A},25.00,EUR,flagged,A,\"seen at BAC-02, 3 May\"\n", EUR)
    assert registry.standing(A).note == "seen at BAC-02, 3 May"


def test_a_file_of_the_header_alone_is_an_empty_registry() -> None:
    assert len(parse_registry(HEADER, EUR)) == 0


def test_a_file_is_loaded_by_its_path_and_its_errors_name_it(tmp_path: Path) -> None:
    path = tmp_path / "chips.csv"
    path.write_text(EXAMPLE)
    assert len(load_registry(path, EUR)) == 3
    path.write_text(HEADER + f"{A},25.00,EUR,lost,A\n")
    with pytest.raises(RegistryFileError, match=rf"^{path}, line 2, column 4 \(status\): unknown status 'lost'"):
        load_registry(path, EUR)
    with pytest.raises(FileNotFoundError):
        load_registry(tmp_path / "none.csv", EUR)


# --- money, exactly ------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "digits", "currency", "minor"), [
    ("25.00", 2, "EUR", 2500),
    ("25", 2, "EUR", 2500),
    ("25.5", 2, "EUR", 2550),
    ("0.29", 2, "EUR", 29),  # 0.29 * 100 is 28.999999999999996 in floats
    ("0.57", 2, "EUR", 57),  # 56.99999999999999 in floats
    ("1.005", 3, "BHD", 1005),
    ("1000", 0, "JPY", 1000),
    ("007.10", 2, "EUR", 710),
    ("123456789012345678901234567890.99", 2, "EUR", 12345678901234567890123456789099),
    ("0.0001", 4, "CLF", 1),
])
def test_values_are_converted_exactly(text: str, digits: int, currency: str, minor: int) -> None:
    assert value_in_minor_units(text, digits, currency) == (minor, None)


@given(st.integers(min_value=1, max_value=10**40), st.integers(min_value=0, max_value=4))
def test_any_value_written_as_the_file_writes_it_reads_back_to_itself(value: int, digits: int) -> None:
    text = amount_text(value, digits)
    assert value_in_minor_units(text, digits, "XXX") == (value, None)
    assert value_in_minor_units(text + ("" if digits else ".") + "0", digits, "XXX")[0] is None  # one decimal too many


@given(st.integers(min_value=1, max_value=10**30), st.integers(min_value=0, max_value=4),
       st.integers(min_value=0, max_value=4))
def test_a_value_is_what_decimal_arithmetic_says_or_refused_for_its_decimals(units: int, places: int,
                                                                            digits: int) -> None:
    text = f"{units // 10**places}.{units % 10**places:0{places}d}" if places else str(units)
    minor, why = value_in_minor_units(text, digits, "XXX")
    if places > digits:
        assert minor is None and why is not None and f"has {places} decimal" in why
    else:
        with localcontext() as context:
            context.prec = 100
            assert minor == int(Decimal(text).scaleb(digits))


# --- every problem, by file, line and column ------------------------------------------------------


@pytest.mark.parametrize(("text", "message"), [
    ("", "chips.csv, line 1, column 1 (uid): no header: the file is empty (it begins uid,value,currency,status,set)"),
    ("uid,value,currency,status\n",
     "chips.csv, line 1, column 5 (set): the header has no column 'set' (the header is uid,value,currency,status,set)"),
    ("uid,amount,currency,status,set\n",
     "chips.csv, line 1, column 2 (value): the header's column 2 is 'value', not 'amount' "
     "(the header is uid,value,currency,status,set, and optionally note)"),
    ("uid,value,currency,status,set,colour\n",
     "chips.csv, line 1, column 6 (note): the header's column 6 is 'note', not 'colour' "
     "(the header is uid,value,currency,status,set, and optionally note)"),
    ("uid,value,currency,status,set,note,colour\n",
     "chips.csv, line 1, column 7 (beyond the header): 'colour' is no column of a chip file "
     "(the header is uid,value,currency,status,set, and optionally note)"),
    ('uid,"value,currency,status,set\n', "chips.csv, line 1, column 2 (value): not CSV: unexpected end of data"),
    (HEADER + f'{A},25.00,EUR,active,"A"B\n', "chips.csv, line 2, column 5 (set): not CSV: ',' expected after '\"'"),
    (HEADER + f"{A},25.00,EUR,active,A\n{A},10.00,EUR,active,A\n",
     f"chips.csv, line 3, column 1 (uid): duplicate UID {A}: already on line 2"),
    (HEADER + f"{A},25.00,EUR,active,A\n\n{A.lower()},10.00,EUR,active,A\n",
     f"chips.csv, line 4, column 1 (uid): duplicate UID {A}: already on line 2"),
    (HEADER + "04A1B2C3D4E5F6,25.00,EUR,active,A\n",
     "chips.csv, line 2, column 1 (uid): malformed UID '04A1B2C3D4E5F6': a chip's UID is 16 hexadecimal digits "
     "(8 bytes)"),
    (HEADER + "04A1B2C3D4E5F6ZZ,25.00,EUR,active,A\n",
     "chips.csv, line 2, column 1 (uid): malformed UID '04A1B2C3D4E5F6ZZ': a chip's UID is 16 hexadecimal digits "
     "(8 bytes)"),
    (HEADER + "04a1 b2c3d4e5f60,25.00,EUR,active,A\n",
     "chips.csv, line 2, column 1 (uid): malformed UID '04a1 b2c3d4e5f60': a chip's UID is 16 hexadecimal digits "
     "(8 bytes)"),
    (HEADER + ",25.00,EUR,active,A\n",
     "chips.csv, line 2, column 1 (uid): no UID: a chip's UID is 16 hexadecimal digits (8 bytes)"),
    (HEADER + f"{A},-25.00,EUR,active,A\n",
     "chips.csv, line 2, column 2 (value): negative value -25.00: a chip's value is above 0"),
    (HEADER + f"{A},0.00,EUR,active,A\n", "chips.csv, line 2, column 2 (value): value 0.00: a chip's value is above 0"),
    (HEADER + f"{A},25.001,EUR,active,A\n",
     "chips.csv, line 2, column 2 (value): value 25.001 has 3 decimals: EUR has 2 decimals"),
    (HEADER + f"{A},+25.00,EUR,active,A\n",
     "chips.csv, line 2, column 2 (value): value '+25.00' has a sign: write it as 25.00"),
    (HEADER + f"{A},2.5e1,EUR,active,A\n",
     "chips.csv, line 2, column 2 (value): value '2.5e1' is not an amount: write it with digits and a point, "
     "such as 25.00"),
    (HEADER + f'{A},"1,000.00",EUR,active,A\n',
     "chips.csv, line 2, column 2 (value): value '1,000.00' is not an amount: write it with digits and a point, "
     "such as 25.00"),
    (HEADER + f"{A},,EUR,active,A\n",
     "chips.csv, line 2, column 2 (value): no value: write the chip's face value, such as 25.00"),
    (HEADER + f"{A},25.00,USD,active,A\n",
     "chips.csv, line 2, column 3 (currency): currency 'USD' is not the table's (EUR)"),
    (HEADER + f"{A},25.00,eur,active,A\n",
     "chips.csv, line 2, column 3 (currency): currency 'eur' is not the table's (EUR)"),
    (HEADER + f"{A},25.00,,active,A\n", "chips.csv, line 2, column 3 (currency): no currency: the table's is EUR"),
    (HEADER + f"{A},25.00,EUR,lost,A\n",
     "chips.csv, line 2, column 4 (status): unknown status 'lost': a chip is active, flagged or retired"),
    (HEADER + f"{A},25.00,EUR,unknown,A\n",
     "chips.csv, line 2, column 4 (status): unknown status 'unknown': a chip is active, flagged or retired"),
    (HEADER + f"{A},25.00,EUR,,A\n",
     "chips.csv, line 2, column 4 (status): no status: a chip is active, flagged or retired"),
    (HEADER + f"{A},25.00,EUR,active,Series\tA\n",
     "chips.csv, line 2, column 5 (set): the set 'Series\\tA' has a control character (a line break, a tab): "
     "write it on one line"),
    (HEADER.strip() + ",note\n" + f"{A},25.00,EUR,flagged,A,stolen\x07\n",
     "chips.csv, line 2, column 6 (note): the note 'stolen\\x07' has a control character (a line break, a tab): "
     "write it on one line"),
    (HEADER + f"{A},25.00,EUR,active\n", "chips.csv, line 2, column 5 (set): 4 fields on the line, the header has 5"),
    (HEADER + f"{A},25.00,EUR,active,A,x\n",
     "chips.csv, line 2, column 6 (beyond the header): 6 fields on the line, the header has 5"),
    (HEADER.encode() + f"{A},25.00,EUR,active,S\xe9rie\n".encode("latin-1"),
     "chips.csv, line 2, column 5 (set): not UTF-8 text (byte 0xe9)"),
    (b"\xef\xbb\xbf" + HEADER.encode() + f"{A},25.00,EUR\xff,active,A\n".encode("latin-1"),
     "chips.csv, line 2, column 3 (currency): not UTF-8 text (byte 0xff)"),
])
def test_every_problem_names_the_file_the_line_and_the_column(text: str | bytes, message: str) -> None:
    assert _error(text) == message


def test_whole_amounts_only_for_a_currency_without_decimals() -> None:
    assert _error(HEADER + f"{A},1000.0,JPY,active,A\n", Money(0, "JPY")) == (
        "chips.csv, line 2, column 2 (value): value 1000.0 has 1 decimal: JPY has none (whole amounts only)")
    assert _error(HEADER + f"{A},1.00,BHD,active,A\n".replace("1.00", "1.0001"), Money(3, "BHD")) == (
        "chips.csv, line 2, column 2 (value): value 1.0001 has 4 decimals: BHD has 3 decimals")


def test_every_problem_of_a_file_is_found_each_line_and_column_in_order() -> None:
    text = HEADER + f"{A},25.001,USD,lost,A\nXYZ,-5,EUR,active,A\n{A},25.00,EUR,active,A\n"
    with pytest.raises(RegistryFileError) as raised:
        parse_registry(text, EUR, "chips.csv")
    problems = raised.value.problems
    assert [(p.line, p.column, p.name) for p in problems] == [
        (2, 2, "value"), (2, 3, "currency"), (2, 4, "status"), (3, 1, "uid"), (3, 2, "value"), (4, 1, "uid")]
    assert raised.value.source == "chips.csv"
    assert str(raised.value).splitlines() == ["chips.csv: 6 problems", *(f"  {p.text('chips.csv')}" for p in problems)]


def test_a_uid_twice_is_a_duplicate_even_when_its_first_line_has_other_problems() -> None:
    text = HEADER + f"{A},25.00,USD,active,A\n{A},25.00,EUR,active,A\n"
    with pytest.raises(RegistryFileError) as raised:
        parse_registry(text, EUR, "chips.csv")
    assert [(p.line, p.name, p.what) for p in raised.value.problems] == [
        (2, "currency", "currency 'USD' is not the table's (EUR)"),
        (3, "uid", f"duplicate UID {A}: already on line 2")]


def test_a_long_list_of_problems_is_cut_in_the_message_and_kept_whole() -> None:
    text = HEADER + "".join(f"{A[:-2]}{n:02X},25.00,EUR,lost,A\n" for n in range(SHOWN_PROBLEMS + 5))
    with pytest.raises(RegistryFileError) as raised:
        parse_registry(text, EUR, "chips.csv")
    assert len(raised.value.problems) == SHOWN_PROBLEMS + 5
    lines = str(raised.value).splitlines()
    assert lines[0] == f"chips.csv: {SHOWN_PROBLEMS + 5} problems"
    assert len(lines) == 1 + SHOWN_PROBLEMS + 1 and lines[-1] == "  ... and 5 more"


def test_a_problem_reads_as_a_sentence() -> None:
    assert RegistryProblem(4, 2, "value", "no value").text("f.csv") == "f.csv, line 4, column 2 (value): no value"


def test_a_table_without_a_currency_or_with_the_wrong_digits_cannot_read_a_file() -> None:
    with pytest.raises(ValueError, match=r"the table has no currency \(\[table\] currency\)"):
        parse_registry(EXAMPLE, Money(2, ""))
    with pytest.raises(ValueError, match="JPY has 0 minor digit"):
        parse_registry(EXAMPLE, Money(2, "JPY"))


@given(st.lists(st.tuples(st.integers(min_value=0, max_value=2**64 - 1), st.integers(min_value=1, max_value=10**9),
                          st.sampled_from(("active", "flagged", "retired")),
                          st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")),
                                  max_size=12).filter(lambda label: label == label.strip())),
                unique_by=lambda row: row[0], max_size=20),
       st.sampled_from((Money(2, "EUR"), Money(0, "JPY"), Money(3, "KWD"))))
def test_a_registry_s_canonical_text_reads_back_to_it(rows: list[tuple[int, int, str, str]], money: Money) -> None:
    registry = ChipRegistry.of(money.currency, money.digits,
                               (ChipRecord(f"{uid:016X}", value, ChipStatus(status), label, label[::-1])
                                for uid, value, status, label in rows))
    again = parse_registry(registry.canonical_text().encode("utf-8"), money)
    assert again == registry
    assert again.sha256() == registry.sha256()


def test_the_documented_example_file_reads_as_documented() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "chips.md").read_text()
    example = page.split("```text\n", 1)[1].split("```", 1)[0]
    registry = parse_registry(example, EUR, "docs/chips.md")
    assert [(r.value, r.status.value, r.chip_set) for r in registry.records] == [
        (2500, "active", "Series A 2024"), (2500, "active", "Series A 2024"), (10_000, "active", "Series A, plaques"),
        (50, "retired", "Series 0"), (50_000, "flagged", "Series A 2024")]
