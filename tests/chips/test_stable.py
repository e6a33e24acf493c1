"""The stable-read rule: a place's chips are known once K clean reads in a row (or clean reads
spanning T ms) read the same set; missed reads and collisions never invent a chip, never make a
bet appear that was not placed, never take a chip away; a layout left alone converges to its
chips (docs/chips.md, "Stable reads")."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from station.chips.places import ChipPlace, PlaceKind
from station.chips.recognise import propose_bets
from station.chips.registry import ChipRecord, ChipRegistry, ChipStatus
from station.chips.stable import PlaceRead, PlaceTrack, StableChange, StableReads, StableRule

UIDS = tuple(f"04A1B2C3D4E5F6{n:02X}" for n in range(6))
A, B, C = UIDS[:3]
SPOT = ChipPlace.spot("3", "banker")
REGISTRY = ChipRegistry.of("EUR", 2, (ChipRecord(uid, 100 * 5**n, ChipStatus.ACTIVE) for n, uid in enumerate(UIDS)))


def read(round_: int, *uids: str, collisions: int = 0, complete: bool = True, at_ms: int | None = None,
         place: ChipPlace = SPOT) -> PlaceRead:
    return PlaceRead(place, round_, frozenset(uids), collisions, complete, round_ * 100 if at_ms is None else at_ms)


DEFAULT = StableRule()


def run(reads: list[PlaceRead], rule: StableRule = DEFAULT) -> tuple[StableReads, list[StableChange]]:
    places, changes = StableReads(rule), []
    for one in reads:
        places, change = places.observe(one)
        if change is not None:
            changes.append(change)
    return places, changes


# --- the rule, by example -------------------------------------------------------------------------------


def test_a_set_is_stable_after_two_clean_reads_in_a_row_by_default() -> None:
    places, _ = run([read(1, A, B)])
    assert places.stable(SPOT) == frozenset()
    places, changes = run([read(1, A, B), read(2, A, B)])
    assert places.stable(SPOT) == {A, B}
    assert changes == [StableChange(SPOT, frozenset(), frozenset({A, B}), 2, 200)]
    assert changes[0].added == {A, B} and changes[0].removed == frozenset()


def test_a_read_that_misses_a_chip_once_breaks_the_run_and_takes_nothing_away() -> None:
    places, changes = run([read(1, A, B), read(2, A, B), read(3, A), read(4, A, B), read(5, A), read(6, A, B)])
    assert places.stable(SPOT) == {A, B} and len(changes) == 1


def test_a_chip_is_gone_once_missing_from_k_clean_reads_in_a_row() -> None:
    places, changes = run([read(1, A, B), read(2, A, B), read(3, A), read(4, A)])
    assert places.stable(SPOT) == {A}
    assert changes[-1] == StableChange(SPOT, frozenset({A, B}), frozenset({A}), 4, 400)
    assert changes[-1].removed == {B}


def test_collisions_and_incomplete_reads_never_lower_the_set_nor_count_toward_a_run() -> None:
    known = [read(1, A, B), read(2, A, B)]
    partial = [read(3, collisions=4), read(4, A, complete=False), read(5, A, collisions=1)]
    places, changes = run([*known, *partial])
    assert places.stable(SPOT) == {A, B} and len(changes) == 1
    places, changes = run([*known, read(3), *(read(4 + n.round, *n.uids, collisions=1) for n in partial)])
    assert places.stable(SPOT) == {A, B}  # one clean read of nothing, then only partial ones
    places, changes = run([*known, read(3), read(4, collisions=2), read(5)])
    assert places.stable(SPOT) == frozenset() and changes[-1].removed == {A, B}
    places, changes = run([*known, read(3), read(4, A, collisions=2), read(5)])
    assert places.stable(SPOT) == {A, B}  # A was read at 4: the run of nothing is broken


def test_a_partial_read_between_two_clean_ones_leaves_the_run_whole_unless_it_contradicts_it() -> None:
    places, _ = run([read(1, A), read(2, A, collisions=1), read(3, A)])
    assert places.stable(SPOT) == {A}  # a partial read of A alone: the run of {A} goes on
    places, _ = run([read(1, A), read(2, A, B, collisions=1), read(3, A)])
    assert places.stable(SPOT) == frozenset()  # B was there: the run of {A} is broken
    places, _ = run([read(1, A), read(2, A, B, collisions=1), read(3, A), read(4, A)])
    assert places.stable(SPOT) == {A}


def test_the_same_round_twice_is_a_repeat() -> None:
    places, _ = run([read(1, A), read(1, A)])
    assert places.stable(SPOT) == frozenset()
    track = PlaceTrack()
    once = track.observe(read(1, A), StableRule())
    assert once.observe(read(1, A, B), StableRule()) is once


def test_k_reads_is_configurable() -> None:
    assert run([read(1, A)], StableRule(reads=1))[0].stable(SPOT) == {A}
    assert run([read(1, A), read(2, A)], StableRule(reads=3))[0].stable(SPOT) == frozenset()
    assert run([read(1, A), read(2, A), read(3, A)], StableRule(reads=3))[0].stable(SPOT) == {A}


def test_the_default_rule_is_two_reads_or_a_second() -> None:
    assert StableRule() == StableRule(reads=2, hold_ms=1000)


def test_or_clean_reads_of_one_set_spanning_t_ms() -> None:
    rule = StableRule(reads=5, hold_ms=1000)
    slow = [read(1, A, at_ms=0), read(2, A, at_ms=600), read(3, A, at_ms=1000)]
    assert run(slow[:2], rule)[0].stable(SPOT) == frozenset()
    places, changes = run(slow, rule)
    assert places.stable(SPOT) == {A} and changes[0].at_ms == 1000 and changes[0].round == 3
    assert run([read(1, A, at_ms=0), read(2, B, at_ms=900), read(3, B, at_ms=1500)], rule)[0].stable(SPOT) == set()


def test_places_are_tracked_apart_and_listed_by_kind() -> None:
    tray, zone = ChipPlace.tray(), ChipPlace.payout("3")
    places, _ = run([read(1, A), read(1, B, place=tray), read(2, A), read(2, B, place=tray), read(1, place=zone),
                     read(2, place=zone)])
    assert places.stable_sets() == {SPOT: {A}, tray: {B}}
    assert places.stable_sets(PlaceKind.SPOT) == {SPOT: {A}}
    assert places.stable(zone) == frozenset() and places.stable(ChipPlace.spot("1", "tie")) == frozenset()


def test_in_continuous_mode_a_set_the_reader_keeps_reading_is_stable_after_t_ms_of_silence() -> None:
    # The reader reports an antenna only when its round differs from the one before: one report,
    # then silence while the chips lie still.
    places, _ = run([read(57, A, B, at_ms=10_000)])
    assert places.stable(SPOT) == frozenset()
    places, found = places.elapse(10_999)
    assert found == () and places.stable(SPOT) == frozenset()
    places, found = places.elapse(11_000)
    assert found == (StableChange(SPOT, frozenset(), frozenset({A, B}), 57, 11_000),)
    assert places.elapse(20_000) == (places, ())


def test_t_ms_count_only_while_the_latest_read_is_clean() -> None:
    places, _ = run([read(57, A, B, at_ms=10_000), read(65, A, collisions=1, at_ms=10_250)])
    assert places.elapse(11_000)[0].stable(SPOT) == frozenset()  # chips collide: the reader says nothing new
    places, change = places.observe(read(73, A, B, at_ms=11_100))  # the collision cleared: A and B since 10,000
    assert change == StableChange(SPOT, frozenset(), frozenset({A, B}), 73, 11_100)


def test_a_chip_missed_for_a_round_in_continuous_mode_is_not_taken_away() -> None:
    places, _ = run([read(1, A, B, at_ms=0), read(9, A, B, at_ms=250)])
    assert places.stable(SPOT) == {A, B}
    places, _ = places.observe(read(17, A, at_ms=500))  # B missed once...
    places, _ = places.observe(read(25, A, B, at_ms=750))  # ...and read again at the next pass
    assert places.elapse(5000)[0].stable(SPOT) == {A, B}
    places, _ = places.observe(read(33, A, at_ms=1000))  # B taken: the reader says so once
    assert places.elapse(1999)[0].stable(SPOT) == {A, B}
    places, found = places.elapse(2000)
    assert places.stable(SPOT) == {A} and found[0].removed == {B} and (found[0].round, found[0].at_ms) == (33, 2000)


def test_an_interruption_breaks_the_runs_and_keeps_the_stable_sets() -> None:
    tray = ChipPlace.tray()
    places, _ = run([read(1, A), read(2, A), read(3, B, at_ms=300), read(4, C, place=tray, at_ms=300)])
    interrupted = places.interrupt([SPOT])
    assert interrupted.stable(SPOT) == {A}
    assert interrupted.elapse(5000)[0].stable(SPOT) == {A}  # the antenna faulted: its silence says nothing
    assert interrupted.elapse(5000)[0].stable(tray) == {C}  # the tray's did not
    everything = places.interrupt()
    assert everything.elapse(5000) == (everything, ())
    again, _ = everything.observe(read(3, B, at_ms=6000))  # a restarted reader counts its rounds from 1 again
    assert again.tracks[SPOT].run == 1
    assert places.interrupt([ChipPlace.payout("9")]) == places


@pytest.mark.parametrize(("make", "message"), [
    (lambda: StableRule(reads=0), "from 1"),
    (lambda: StableRule(hold_ms=0), "from 1"),
    (lambda: read(1, "04a1b2c3d4e5f601"), "malformed UID"),
    (lambda: read(1, A, collisions=-1), "from 0"),
])
def test_what_cannot_be_a_rule_or_a_read_is_refused(make: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()  # type: ignore[operator]


# --- the properties --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """What was really on the spot, and what came of it: a read (never of a chip that is not
    there), time passing with no read (``read`` None), or an interruption (``interrupt``)."""

    truth: frozenset[str]
    read: PlaceRead | None
    at_ms: int
    interrupt: bool = False


@st.composite
def noisy_steps(draw: st.DrawFn, truths: st.SearchStrategy[frozenset[str]], first_round: int = 1,
                first_ms: int = 0, interrupts: bool = True) -> list[Step]:
    """Reads of a changing spot: each one misses any chips, may collide or be incomplete, now and
    then repeats the round before; between them time passes, and the reader may be interrupted."""
    steps, round_, at_ms = [], first_round, first_ms
    for truth in draw(st.lists(truths, max_size=25)):
        at_ms += draw(st.integers(0, 700))
        what = draw(st.sampled_from(("read",) * 6 + ("elapse",) * 2 + (("interrupt",) if interrupts else ())))
        if what != "read":
            steps.append(Step(truth, None, at_ms, what == "interrupt"))
            continue
        missed: bool = bool(truth) and draw(st.booleans())
        uids = draw(st.sets(st.sampled_from(sorted(truth)))) if missed else set(truth)
        if draw(st.integers(0, 9)) != 0:  # else a repeat of the round before
            round_ += 1
        steps.append(Step(truth, PlaceRead(SPOT, round_, frozenset(uids), draw(st.sampled_from((0, 0, 0, 1, 3))),
                                           draw(st.sampled_from((True, True, True, False))), at_ms), at_ms))
    return steps


def apply(places: StableReads, step: Step) -> tuple[StableReads, tuple[StableChange, ...]]:
    if step.interrupt:
        return places.interrupt(), ()
    if step.read is None:
        return places.elapse(step.at_ms)
    places, change = places.observe(step.read)
    return places, (change,) if change else ()


TRUTHS = st.frozensets(st.sampled_from(UIDS), max_size=4)
RULES = st.builds(StableRule, st.integers(1, 4), st.sampled_from((None, 500, 1000, 2000)))


@given(noisy_steps(TRUTHS), RULES)
def test_missed_reads_and_collisions_never_invent_a_chip_nor_a_bet(steps: list[Step], rule: StableRule) -> None:
    places, seen = StableReads(rule), []
    for step in steps:
        places, _ = apply(places, step)
        if step.read is not None:
            seen.append(step.truth)
        stable = places.stable(SPOT)
        # every stable chip was on the spot, all together, at one read
        assert any(stable <= truth for truth in seen) or not stable
        proposal = propose_bets(places.stable_sets(), REGISTRY)
        placed = [sum(REGISTRY.standing(uid).value for uid in truth) for truth in seen]
        assert all(bet.amount <= max(placed) for bet in proposal.bets)
        assert all(any(set(bet.counted) <= truth for truth in seen) for bet in proposal.bets)
        if not any(seen):  # nothing was ever bet on the spot: no bet appears
            assert proposal.bets == ()


@given(noisy_steps(TRUTHS), RULES)
def test_a_partial_read_never_changes_the_stable_set(steps: list[Step], rule: StableRule) -> None:
    places = StableReads(rule)
    for step in steps:
        before = places.stable(SPOT)
        places, changes = apply(places, step)
        if (step.read is not None and not step.read.clean) or step.interrupt:
            assert changes == () and places.stable(SPOT) == before


@given(noisy_steps(TRUTHS), RULES)
def test_a_chip_comes_or_goes_only_once_its_run_of_clean_reads_is_long_enough(steps: list[Step],
                                                                              rule: StableRule) -> None:
    """Checked against the history: going back from the change, the reads since the last
    interruption that agree with the new set (clean reads of it, partial reads within it) hold
    K clean reads, or the first of them is T ms before the change."""
    places, history, last_round = StableReads(rule), list[PlaceRead](), None
    for step in steps:
        places, changes = apply(places, step)
        if step.interrupt:
            history, last_round = [], None
        elif step.read is not None and step.read.round != last_round:
            history.append(step.read)
            last_round = step.read.round
        for change in changes:
            run = []
            for earlier in reversed(history):
                if (earlier.clean and earlier.uids != change.after) or not earlier.uids <= change.after:
                    break
                if earlier.clean:
                    run.append(earlier)
            assert run, "a stable set is a clean read's set"
            held = rule.hold_ms is not None and change.at_ms - run[-1].at_ms >= rule.hold_ms
            assert len(run) >= rule.reads or held
            assert change.round == history[-1].round if step.read is None else change.round == step.read.round
            if step.read is None:  # time alone: the latest read was a clean read of the set
                assert history[-1].clean and history[-1].uids == change.after


@given(noisy_steps(TRUTHS), TRUTHS, st.data(), RULES, st.booleans())
def test_a_steady_layout_converges_to_its_chips(prefix: list[Step], truth: frozenset[str], data: st.DataObject,
                                                rule: StableRule, by_time: bool) -> None:
    places = StableReads(rule)
    for step in prefix:
        places, _ = apply(places, step)
    reads = [step.read for step in prefix if step.read is not None]
    round_ = reads[-1].round if reads else 0
    at_ms = prefix[-1].at_ms if prefix else 0
    steady = data.draw(noisy_steps(st.just(truth), round_ + 1, at_ms, interrupts=False))
    for step in steady:
        places, _ = apply(places, step)
        if step.read is not None:
            round_ = step.read.round
        at_ms = step.at_ms
    if by_time and rule.hold_ms is not None:  # one clean read of every chip, then the reader says nothing
        places, _ = places.observe(PlaceRead(SPOT, round_ + 1, truth, at_ms=at_ms + 1))
        places, _ = places.elapse(at_ms + 1 + rule.hold_ms)
    else:  # K clean reads of every chip
        for n in range(1, rule.reads + 1):
            places, _ = places.observe(PlaceRead(SPOT, round_ + n, truth, at_ms=at_ms + n))
    assert places.stable(SPOT) == truth


def test_a_run_is_due_at_its_first_clean_read_plus_the_hold_time_and_only_while_it_waits() -> None:
    rule = StableRule(reads=5, hold_ms=100)  # the count never decides here: the clock does
    place = ChipPlace.spot("1", "banker")
    reads = StableReads(rule)
    assert reads.next_due_ms() is None
    reads, _ = reads.observe(PlaceRead(place, 1, frozenset({"E004010000000001"}), at_ms=1000))
    assert reads.next_due_ms() == 1100
    reads, _ = reads.observe(PlaceRead(place, 2, frozenset({"E004010000000001"}), at_ms=1050))
    assert reads.next_due_ms() == 1100  # the run's first clean read decides, not its latest
    reads, _ = reads.observe(PlaceRead(place, 3, frozenset(), collisions=1, at_ms=1060))
    assert reads.next_due_ms() is None  # the latest read is not clean: the clock alone decides nothing
    reads, _ = reads.observe(PlaceRead(place, 4, frozenset({"E004010000000001"}), at_ms=1070))
    assert reads.next_due_ms() == 1100  # a partial read that lacks no chip of the run keeps it
    assert reads.elapse(1099)[1] == ()
    reads, changes = reads.elapse(1100)
    assert [c.after for c in changes] == [frozenset({"E004010000000001"})]
    assert reads.next_due_ms() is None  # stable: nothing waits
    assert StableReads(StableRule(reads=2, hold_ms=None)).observe(
        PlaceRead(place, 1, frozenset({"E004010000000001"}), at_ms=5))[0].next_due_ms() is None
