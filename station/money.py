"""Money as players read it: integers in minor units, written out only at the very end.

Every amount in the station is an integer count of the currency's minor unit (cents for EUR,
yen for JPY). Only what a person reads is formatted, and with integer arithmetic alone, so a
limit of 500000 with 2 minor digits is always "5,000.00", never "4,999.999…".

ISO 4217 gives each currency the number of digits of its minor unit; :data:`MINOR_DIGITS`
holds those of the currencies a casino is likely to use, for validating a configuration
(a table in JPY written with 2 digits would show every limit a hundred times too small).
"""

from __future__ import annotations

from dataclasses import dataclass

#: ISO 4217 minor-unit digits of common currencies (a code absent here is accepted with the
#: digits configured: the list is for catching mistakes, not for limiting where tables are).
MINOR_DIGITS: dict[str, int] = {
    "AED": 2, "ARS": 2, "AUD": 2, "BGN": 2, "BHD": 3, "BRL": 2, "CAD": 2, "CHF": 2, "CLP": 0,
    "CNY": 2, "COP": 2, "CZK": 2, "DKK": 2, "EUR": 2, "GBP": 2, "HKD": 2, "HUF": 2, "IDR": 2,
    "ILS": 2, "INR": 2, "ISK": 0, "JOD": 3, "JPY": 0, "KHR": 2, "KRW": 0, "KWD": 3, "LAK": 2,
    "MOP": 2, "MXN": 2, "MYR": 2, "NOK": 2, "NZD": 2, "OMR": 3, "PEN": 2, "PHP": 2, "PLN": 2,
    "QAR": 2, "RON": 2, "RSD": 2, "RUB": 2, "SEK": 2, "SGD": 2, "THB": 2, "TND": 3, "TRY": 2,
    "TWD": 2, "UAH": 2, "USD": 2, "VND": 0, "XAF": 0, "XOF": 0, "ZAR": 2,
}

#: Largest number of minor-unit digits ISO 4217 uses (CLF, UYW have 4).
MAX_MINOR_DIGITS = 4


def minor_digits_problem(currency: str, digits: int) -> str | None:
    """Why ``digits`` cannot be the minor unit of ``currency``, or None."""
    if not 0 <= digits <= MAX_MINOR_DIGITS:
        return f"{digits} digits: ISO 4217 minor units have 0 to {MAX_MINOR_DIGITS}"
    expected = MINOR_DIGITS.get(currency)
    if expected is not None and expected != digits:
        return f"{currency} has {expected} minor digit(s) in ISO 4217, not {digits}"
    return None


def format_amount(amount: int, digits: int) -> str:
    """``amount`` minor units as people write it: 500000 with 2 digits is "5,000.00"."""
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise TypeError(f"money is an integer of minor units, not {amount!r}")
    sign = "-" if amount < 0 else ""
    whole, fraction = divmod(abs(amount), 10**digits)
    text = f"{whole:,}"
    if digits:
        text += f".{fraction:0{digits}d}"
    return sign + text


def format_money(amount: int, digits: int, currency: str = "") -> str:
    """An amount with its currency: "5,000.00 EUR" (no currency: the number alone)."""
    text = format_amount(amount, digits)
    return f"{text} {currency}" if currency else text


def format_range(minimum: int, maximum: int, digits: int, currency: str = "") -> str:
    """A limit as players read it: "10.00 – 5,000.00 EUR"."""
    text = f"{format_amount(minimum, digits)} \u2013 {format_amount(maximum, digits)}"
    return f"{text} {currency}" if currency else text


@dataclass(frozen=True)
class Money:
    """How one table writes its amounts for people: its minor digits and its currency.

    The one formatter for an amount a person reads anywhere: the console's payouts, and the
    reason of every refusal the rules give (the games' table options carry one, built from
    ``[table] currency`` and ``minor_digits``, so a bet refused on the console, by ``station
    ctl`` or in recall reads "over the maximum of 5,000.00 EUR", never "of 500000"). It is
    presentation only: two tables that differ only in it have the same rules.
    """

    digits: int = 2
    currency: str = ""

    def __call__(self, amount: int) -> str:
        """The amount alone, as in a list of payouts: "19.00"."""
        return format_amount(amount, self.digits)

    def with_currency(self, amount: int) -> str:
        """The amount with the table's currency, as in a sentence: "5,000.00 EUR"."""
        return format_money(amount, self.digits, self.currency)

    def signed(self, amount: int) -> str:
        """A gain or a loss, its sign always written: "+19.00", "-20.00", "0.00"."""
        return ("+" if amount > 0 else "") + format_amount(amount, self.digits)
