"""The shoe's life: shuffled sets, the cut, the burn, the cut card coming out, an empty shoe.

The burn count and the last round follow :mod:`station.games.shoe_procedure`; a batch
shuffler's two coloured sets are tracked from its reports.
"""

from __future__ import annotations

from station.cards import Card
from station.core import outputs as out
from station.core import states as st
from station.core.machine_base import MachineBase
from station.events import (
    CardsReturned,
    CutCardSeen,
    DealerAction,
    DeckCheck,
    DeviceFault,
    DeviceRecovered,
    Event,
    ShoeEmpty,
    ShufflerState,
    ShufflerStatus,
)
from station.games.shoe_procedure import ShoePhase

#: Shuffler reports that mean the shuffler is not working: treated as a device fault.
FAULT_STATES = (ShufflerState.JAM, ShufflerState.DOOR_OPEN, ShufflerState.ERROR)


class ShoeSteps(MachineBase):
    """Events about the shoe and the shuffler."""

    def _next_set(self) -> str:
        """Batch shuffler: the colour of the set that should come into the shoe next."""
        a, b = self.options.set_colours
        if self.shoe.set_in_shoe == a:
            return b
        if self.shoe.set_in_shoe == b:
            return a
        return ""

    def _on_shuffler(self, ev: ShufflerStatus) -> None:
        if ev.state in FAULT_STATES:
            self._faulted_by_status.add(ev.device)
            self._on_fault(DeviceFault(ev.device, f"shuffler {ev.state.value}", ev.detail))
            return
        if ev.device in self._faulted_by_status:
            self._faulted_by_status.discard(ev.device)
            self._on_recovered(DeviceRecovered(ev.device))
        equipment = self.options.equipment
        if equipment == "batch":
            if ev.set_colour and ev.state in (ShufflerState.SHUFFLING, ShufflerState.DONE):
                self.shoe.set_in_shuffler = ev.set_colour
            if ev.state is ShufflerState.DONE:
                if ev.set_colour and ev.set_colour == self.shoe.set_in_shoe and self.shoe.in_play:
                    self._refuse(ev, f"the shuffler reports the {ev.set_colour} set, which is in the shoe")
                    return
                self.shoe.ready_set = ev.set_colour or "?"
                if self.state == st.SHUFFLING:
                    self._batch_set_ready(ev)
        elif equipment == "continuous" and ev.state is ShufflerState.READY and self.state == st.SHUFFLING:
            self.shoe.start()
            self._open_round()
            self._emit(out.ShoeStarted(self.shoe.number, None, ()))
            self._trigger("shuffler_ready")

    def _batch_set_ready(self, ev: Event) -> None:
        ready = self.shoe.ready_set
        expected = self._next_set()
        if ready not in ("?", "") and expected and ready != expected:
            self._refuse(ev, f"the {ready} set was dealt in the last shoe: waiting for the {expected} set")
            return
        if self.shoe.set_in_shoe:
            self.shoe.set_in_shuffler = self.shoe.set_in_shoe
        self.shoe.set_in_shoe = "" if ready == "?" else ready
        self.shoe.ready_set = ""
        self._trigger("shuffle_done")

    def _on_deck_check(self, ev: DeckCheck) -> None:
        self.deck_check = {
            "device": ev.device,
            "decks": ev.decks,
            "complete": ev.complete,
            "missing": list(ev.missing),
            "extra": list(ev.extra),
        }
        if not ev.complete:
            self._refuse(ev, f"deck check: missing {list(ev.missing)}, extra {list(ev.extra)}")

    def _shuffle_done(self, ev: DealerAction) -> None:
        if self.state != st.SHUFFLING:
            self._refuse(ev, self._not_now("shuffle done"))
        elif self.options.equipment == "batch":
            if self.shoe.ready_set:
                self._batch_set_ready(ev)
            else:
                self._refuse(ev, "the batch shuffler reports when a set is shuffled")
        elif self.options.equipment == "continuous":
            self._refuse(ev, "the continuous shuffler reports when it is ready")
        else:
            self._trigger("shuffle_done")

    def _confirm_cut(self, ev: DealerAction) -> None:
        if self.state != st.CUTTING:
            self._refuse(ev, self._not_now("confirm the cut"))
            return
        problem = self.rules.cut_problem(ev.box, ev.player, self.table)  # 5.6: never a standing player
        if problem:
            self._refuse(ev, problem)
            return
        self.shoe.start()
        self.shoe.cut_by = [ev.box, ev.player] if ev.box.strip() else []
        self.shoe_results = []
        self._trigger("cut_confirmed")

    def _burn_card(self, card: Card) -> None:
        progress = self.shoe.progress
        assert progress is not None
        if progress.phase is ShoePhase.EXPOSE:
            self.shoe.progress = progress.first_card_exposed(card)
        else:
            self.shoe.burned.append(card)
            self.shoe.progress = progress.card_burned()
        if self.shoe.progress.phase is ShoePhase.READY:
            self._open_round()
            self._emit(
                out.ShoeStarted(self.shoe.number, self.shoe.exposed, tuple(self.shoe.burned), self.shoe.set_in_shoe)
            )
            self._trigger("burn_complete")

    def _on_cut_card(self, ev: CutCardSeen) -> None:
        progress = self.shoe.progress
        if self.options.equipment == "continuous" or progress is None or not self.shoe.in_play:
            self._refuse(ev, "no cut card is expected now")
            return
        second = progress.rounds_left is not None
        if second and (progress.cut_cards < 2 or progress.out_of_cards):
            self._refuse(ev, "the cut card has already come out of this shoe")
            return
        if progress.phase is ShoePhase.IN_ROUND:
            self.shoe.progress = progress.cut_card_seen(mid_round=True)
            if second:  # the cutting card behind the last card: this round gets no more cards
                self._on_shoe_empty(ShoeEmpty(ev.device))
        elif progress.phase is ShoePhase.READY:
            self.shoe.progress = progress.cut_card_seen(mid_round=False)
            if (
                self.shoe.progress.is_shoe_end
                and self.round is not None
                and not self.round.settled
                and self.state in (st.BETTING, st.DEALING)
            ):
                # No round may follow the cut card: the round still open never started.
                self._void_round("the cut card came out: the shoe is finished")
                self._trigger("abandon")
        else:
            self._refuse(ev, "the cut card came out during the burn")

    def _on_shoe_empty(self, ev: ShoeEmpty) -> None:
        state = self.state
        if state == st.IRREGULARITY:
            self.shoe.empty = True
            return
        if state in st.MID_ROUND or (state == st.BETTING and self.round is not None):
            self.shoe.empty = True
            self._raise("shoe_empty", "the shoe reported no cards left", device=ev.device)
        elif state == st.PAYING:
            self.shoe.empty = True
        else:
            self._refuse(ev, "the shoe reported empty while no round is being dealt")

    def _on_cards_returned(self, ev: CardsReturned) -> None:
        if self.options.equipment != "continuous":
            self._refuse(ev, "cards are returned to a continuous shuffler only")
            return
        waiting = self.shoe.awaiting_return
        if ev.count != len(waiting):
            self._refuse(ev, f"the shuffler counted {ev.count} cards back; {len(waiting)} were dealt and cleared")
        self.shoe.put_back(waiting)
        self.shoe.awaiting_return = []
        self.shoe.empty = False  # the continuous shuffler has cards again
