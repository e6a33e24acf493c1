"""Who deals: a dealer signs in to the table and relieves the one before (docs/dealers.md).

Every round carries its dealer (:attr:`Round.dealer <station.core.rounds.Round.dealer>`, in
its record and in :class:`~station.core.outputs.RoundSettled` / ``RoundVoided``), and every
change of dealer is a :class:`~station.core.outputs.DealerChanged` with both names, from a
journaled :class:`~station.events.DealerSignedIn`: so whoever reads the journal (the meters
counting rounds per dealer session, the floor feed, recall) takes the dealer from a field,
never from an order of records it would have to interpret.

Which round is the incoming dealer's first: the round in play when no card of it is out yet
(betting, or "no more bets" called and nothing drawn), otherwise the next round opened: the
cards of a round are all dealt by one dealer.

With ``[table] burn_on_dealer_change`` the incoming dealer burns one card, face down, before
the first card of their first round (after "no more bets", as the expectation says: "Burn 1
card (new dealer)"). The card leaves the shoe like any other, is kept with the round's burned
cards and as its ``dealer_burned``, and goes back to a continuous shuffler with the round's
cards. The first dealer to sign in at a table that had none relieves nobody and burns nothing.
"""

from __future__ import annotations

from typing import Any

from station.cards import Card
from station.core import outputs as out
from station.core.machine_base import MachineBase
from station.core.options import CoreOptions
from station.core.rounds import Round
from station.events import DealerSignedIn, DealerSignedOut

#: What the dealer's line says while the incoming dealer's burn card is due.
BURN_WORDS = "Burn 1 card (new dealer)"


class DealerSteps(MachineBase):
    """The dealer at the table, the round each dealer deals, and the burn on a change."""

    def __init__(self, options: CoreOptions | None = None) -> None:
        super().__init__(options)
        self.dealer = ""  # who has the table now ("" before anyone signed in)
        self.dealer_burn_due = False  # the dealer who took over owes one burn card

    def _on_dealer_signed_in(self, ev: DealerSignedIn) -> None:
        name = ev.dealer.strip()
        if not name:
            self._refuse(ev, "a dealer signs in by name")
            return
        if name == self.dealer:
            self._refuse(ev, f"{name} is already the dealer at this table")
            return
        relieved, self.dealer = self.dealer, name
        r = self.round
        takes_round = r is not None and not r.dealt and not r.burned and not r.settled
        if takes_round:
            assert r is not None
            r.dealer = name
        burn = bool(relieved) and self.options.burn_on_dealer_change
        self.dealer_burn_due = burn
        self._emit(out.DealerChanged(name, relieved, r.round_id if takes_round and r is not None else "", burn,
                                     ev.actor.role, ev.actor.who, ev.door))

    def _on_dealer_signed_out(self, ev: DealerSignedOut) -> None:
        name = ev.dealer.strip()
        if not name or name != self.dealer:
            self._refuse(ev, f"{name or 'nobody'} is not the dealer at this table"
                         + (f" ({self.dealer} is)" if self.dealer else ""))
            return
        self.dealer, self.dealer_burn_due = "", False
        self._emit(out.DealerChanged("", name, "", False, ev.actor.role, ev.actor.who, ev.door))

    def _give_round_its_dealer(self, r: Round) -> None:
        """A round opens: it is the present dealer's."""
        r.dealer = self.dealer

    def _burn_for_new_dealer(self, card: Card) -> bool:
        """The card drawn is the incoming dealer's burn card (True: it is taken as that)."""
        r = self.round
        if not self.dealer_burn_due or r is None or r.dealt or r.dealer_burned is not None:
            return False
        r.burned.append(card)
        r.dealer_burned = card
        self.dealer_burn_due = False
        r.decisions.append({"dealer_burned": card.code, "dealer": r.dealer})
        return True

    @property
    def dealer_burn_pending(self) -> bool:
        """The next card dealt in the round in play is the incoming dealer's burn card."""
        r = self.round
        return self.dealer_burn_due and r is not None and not r.dealt and r.dealer_burned is None

    def dealer_state(self) -> dict[str, Any]:
        """The dealer's part of :meth:`TableMachine.snapshot`."""
        return {"dealer": self.dealer, "dealer_burn_due": self.dealer_burn_due}
