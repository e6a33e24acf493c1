"""What the meters count of a table that knows its chips (docs/chips.md, docs/meters.md): chips
moved on a betting spot after no more bets, losing chips left on a spot after the settlement,
wrong payments that held the table and those a supervisor accepted.

Each is counted in the part in play when the table said it (as an irregularity is), in
:attr:`Figures.chips <station.meters.figures.Figures.chips>`, whose keys are :data:`CHIP_FIGURES`:
for each kind of finding (``past_posting``, ``pinching``, ``left_on_losing_spot``) how many the
table reported and what their active chips were worth (``<kind>_amount``); ``wrong_payments``
(held or not), what the boxes were paid over (``paid_over``) and under (``paid_under``) in them, and
``payments_accepted``. Money is minor units. A key is present once something was counted in it.

A wrong payment's output (:class:`~station.core.chip_outputs.ChipPaymentHeld`, once a round,
held or not) gives what its boxes were paid over and under, each counted apart.
"""

from __future__ import annotations

from station.core import outputs as out
from station.meters.figures import Figures

#: The kinds of chips moved the table reports (:class:`~station.core.chip_outputs.ChipsMoved`).
FINDINGS = ("past_posting", "pinching", "left_on_losing_spot")
#: Every key of the chips' figures (the schema's ``chips`` keys).
CHIP_FIGURES = (*FINDINGS, *(f"{kind}_amount" for kind in FINDINGS), "wrong_payments", "paid_over", "paid_under",
                "payments_accepted")

def _add(figures: Figures, key: str, amount: int) -> None:
    figures.chips[key] = figures.chips.get(key, 0) + amount


def count_chips(figures: Figures, output: out.Output) -> None:
    """Count one output of a table that knows its chips in ``figures`` (others are no chips')."""
    if isinstance(output, out.ChipsMoved) and output.found in FINDINGS:
        _add(figures, output.found, 1)
        _add(figures, f"{output.found}_amount", output.amount)
    elif isinstance(output, out.ChipPaymentHeld):
        _add(figures, "wrong_payments", 1)
        _add(figures, "paid_over", output.over)
        _add(figures, "paid_under", output.under)
    elif isinstance(output, out.ChipPaymentWasAccepted):
        _add(figures, "payments_accepted", 1)


#: The outputs :func:`count_chips` counts.
CHIP_OUTPUTS: tuple[type[out.Output], ...] = (out.ChipsMoved, out.ChipPaymentHeld, out.ChipPaymentWasAccepted)
