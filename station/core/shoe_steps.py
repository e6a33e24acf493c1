"""The shoe's life: shuffled sets, the cut, the burn, the cut card coming out, an empty shoe.

The burn count and the last round follow :mod:`station.games.shoe_procedure`; a batch
shuffler's two coloured sets are tracked from its reports.

The shuffler guards the game (docs/integrity.md): a set goes into play only once the shuffler
has reported it shuffled (batch ``DONE``, continuous ``READY``) *and* its count of the set
(``DeckCheck``, asked for with :class:`~station.core.outputs.DeckCheckWanted`) has every card
of the table's decks exactly once per deck. A set reported otherwise before it goes into play
(idle, shuffling again, a jam, the door open, an error) has lost its shuffled status and waits
for the next ``DONE``. A short or over-full set stops the table for a supervisor, who rejects it
or has it counted again; it never reaches the shoe. A continuous shuffler's count of the cards
returned after each round is checked against the cards dealt.
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
    DeckCheckUnanswered,
    DeviceBooted,
    DeviceFault,
    DeviceRecovered,
    Event,
    ShoeEmpty,
    ShufflerState,
    ShufflerStatus,
)
from station.games.deck_check import judge_counts
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
            self._set_not_shuffled(ev)
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
                colour = ev.set_colour or "?"
                if self.shoe.ready_set != colour or self.shoe.ready_check is None:
                    self.shoe.ready_set = colour
                    expected = self._next_set()
                    if colour == "?" or not expected or colour == expected:
                        self._want_deck_check(ev.device)
                if self.state == st.SHUFFLING:
                    self._batch_set_ready(ev)
            elif ev.state in (ShufflerState.IDLE, ShufflerState.SHUFFLING):
                self._set_not_shuffled(ev)
        elif equipment == "continuous" and ev.state is ShufflerState.READY and self.state == st.SHUFFLING:
            if self.shoe.ready_check is None:
                self.shoe.ready_set = ev.set_colour or "?"
                self._want_deck_check(ev.device)
            elif self.shoe.ready_check["status"] == "passed":
                self._continuous_session()

    def _continuous_session(self) -> None:
        self.shoe.ready_set = ""
        self.shoe.ready_check = None
        self.shoe.start()
        self._open_round()
        self._emit(out.ShoeStarted(self.shoe.number, None, ()))
        self._trigger("shuffler_ready")

    def _want_deck_check(self, device: str) -> None:
        """The set waiting to go into play must be counted first."""
        self.shoe.ready_check = {"status": "pending", "device": device, "set": self.shoe.ready_set}
        self._emit(out.DeckCheckWanted(device, self.shoe.ready_set))

    def _set_not_shuffled(self, ev: ShufflerStatus) -> None:
        """A set reported shuffled and not yet in play is reported otherwise: it has lost its
        shuffled status (and its deck check) and waits for the shuffler's next ``DONE``."""
        shoe = self.shoe
        if self.options.equipment != "batch" or not shoe.ready_set:
            return
        lost = shoe.ready_set
        shoe.ready_set = ""
        shoe.ready_check = None
        self._register_alert(
            "set_not_shuffled", "alert",
            f"the {lost} set was reported {ev.state.value} after it was shuffled: it goes into play only "
            "once the shuffler reports it shuffled again", data={"set": lost, "state": ev.state.value},
        )

    def _on_device_booted(self, ev: DeviceBooted) -> None:
        """A device started afresh. A shuffler's state is asked (its reply comes back as a
        ``ShufflerStatus``): a set it held shuffled may be gone."""
        if self.options.equipment in ("batch", "continuous"):
            self._emit(out.ShufflerStateWanted(ev.device))

    def _batch_set_ready(self, ev: Event) -> None:
        ready = self.shoe.ready_set
        expected = self._next_set()
        if ready not in ("?", "") and expected and ready != expected:
            self._refuse(ev, f"the {ready} set was dealt in the last shoe: waiting for the {expected} set")
            return
        check = self.shoe.ready_check
        if check is None or check["status"] == "pending":
            return  # the set goes into play once its count is in (the expectation says so)
        if check["status"] != "passed":
            self._raise("deck_check_failed", f"the {ready} set: {check['detail']}", device=str(check["device"]))
            return
        self.shoe.ready_check = None
        if self.shoe.set_in_shoe:
            self.shoe.set_in_shuffler = self.shoe.set_in_shoe
        self.shoe.set_in_shoe = "" if ready == "?" else ready
        self.shoe.ready_set = ""
        self._trigger("shuffle_done")

    def _on_deck_check(self, ev: DeckCheck) -> None:
        verdict = judge_counts(ev.counts, self.options.decks, ev.decks)
        self.deck_check = {
            "device": ev.device,
            "decks": ev.decks,
            "complete": verdict.passed,
            "missing": list(ev.missing),
            "extra": list(ev.extra),
        }
        shoe = self.shoe
        pending = shoe.ready_check is not None and shoe.ready_check["status"] == "pending"
        colour = shoe.ready_set if pending else ""
        detail = verdict.words()
        self._emit(out.DeckChecked(ev.device, colour, verdict.passed, detail, verdict.counted, verdict.expected,
                                   verdict.short, verdict.over))
        if not verdict.passed:
            what = f"the {colour} set" if colour and colour != "?" else "the shuffler's set"
            self._register_alert(
                "deck_check_failed", "alarm", f"{what} failed its deck check: {detail}", stop=pending,
                data={"set": colour, "counted": verdict.counted, "expected": verdict.expected,
                      "short": [list(item) for item in verdict.short], "over": [list(item) for item in verdict.over],
                      "by_rank": {rank: list(pair) for rank, pair in verdict.by_rank().items()}},
            )
        if not pending:
            return
        shoe.ready_check = {"status": "passed" if verdict.passed else "failed", "device": ev.device,
                            "set": colour, "detail": detail}
        self._set_checked()

    def _on_deck_check_unanswered(self, ev: DeckCheckUnanswered) -> None:
        shoe = self.shoe
        if shoe.ready_check is None or shoe.ready_check["status"] != "pending":
            return
        detail = f"the shuffler gave no count: {ev.reason}"
        self._register_alert("deck_check_failed", "alarm", f"the {shoe.ready_set} set: {detail}", stop=True,
                             data={"set": shoe.ready_set, "reason": ev.reason})
        shoe.ready_check = {"status": "failed", "device": ev.device, "set": shoe.ready_set, "detail": detail}
        self._set_checked()

    def _set_checked(self) -> None:
        """The count of the set waiting to go into play is in: on with the set, or stop."""
        if self.state != st.SHUFFLING:
            return  # a batch set shuffled during a shoe: judged when it would go into play
        if self.options.equipment == "batch":
            self._batch_set_ready(DealerAction("shuffle_done"))
        elif self.options.equipment == "continuous":
            check = self.shoe.ready_check
            assert check is not None
            if check["status"] == "passed":
                self._continuous_session()
            else:
                self._raise("deck_check_failed", f"the {self.shoe.ready_set} set: {check['detail']}",
                            device=str(check["device"]))

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
        comp = self.shoe.composition
        if comp is not None and len(comp) and self.shoe.in_play and self.options.equipment != "continuous" \
                and not self.shoe.empty:
            left = [card.code for card, n in comp for _ in range(n)]
            shown = " ".join(left[:20]) + (" ..." if len(left) > 20 else "")
            self._register_alert(
                "cards_unaccounted", "alert",
                f"the shoe reported empty with {len(left)} card(s) of {self.options.decks} decks never read: {shown}",
                data={"missing": left},
            )
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
        shoe = self.shoe
        waiting = list(shoe.awaiting_return)
        # Counted back already, before their round was cleared: not counted again, and noted
        # until "next round" clears them (a second report before it, of nothing, say, must not
        # make the station forget them: they would be put back twice).
        ahead = list(shoe.returned_ahead)
        for card in list(ahead):
            if card in waiting:
                waiting.remove(card)
                ahead.remove(card)
        shoe.returned_ahead = ahead
        r = self.round
        if ev.count > len(waiting) and r is not None and r.settled and self.state == st.PAYING:
            # The dealer dropped the round on the layout in before pressing "next round".
            on_layout = [c for _, c in r.dealt] + list(r.burned) + list(r.dummy)
            for card in ahead:
                if card in on_layout:
                    on_layout.remove(card)
            if on_layout and ev.count == len(waiting) + len(on_layout):
                waiting += on_layout
                shoe.returned_ahead = ahead + on_layout
        held = shoe.put_back(waiting, returned=True)
        shoe.awaiting_return = []
        shoe.empty = False  # the continuous shuffler has cards again
        for card in held:  # already all in the shoe's account: a count no shoe can hold
            waiting.remove(card)
        if ev.count != len(waiting) or held:
            words = f"the shuffler counted {ev.count} cards back; {len(waiting)} were dealt and cleared"
            self._register_alert("cards_returned_mismatch", "alarm", words, stop=True,
                                 data={"returned": ev.count, "dealt": len(waiting),
                                       "cards": [card.code for card in waiting]})
            if self.state in st.RETURNABLE and self.state != st.IRREGULARITY:
                self._raise("cards_returned_mismatch", words, device=ev.device)
