"""The integrity monitor: every analysis, fed with the core's outputs, in order. Pure.

:class:`IntegrityMonitor` hears the core's outputs (:meth:`IntegrityMonitor.feed`): the account
of the cards out of the shoe after each shoe start, round and shoe end
(:class:`~station.core.outputs.CardsAccounted`), the rounds' results, the payout option. From
them alone it keeps, per shoe, the cards in the order they were read, the results, the exact
edges of the offered wagers after each round, and runs the tests; it returns its findings
(:class:`IntegrityFinding`), each with a key that names it, so the same finding is raised once however
often the monitor sees the same history (after a restart it is fed the journal again). It does
no I/O, reads no clock and starts no thread: :mod:`station.integrity.service` runs it in the
station, :mod:`station.integrity.report` over a journal.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from station.cards import Card
from station.core import outputs as out
from station.core.options import CoreOptions
from station.integrity import order as order_tests
from station.integrity import repeat as repeat_tests
from station.integrity import stats
from station.integrity.edges import (
    composition_of,
    composition_words,
    house_edges,
    offered_wagers,
    outcome_probabilities,
)
from station.integrity.sizing import note_round, rising, rising_words
from station.money import Money


@dataclass(frozen=True)
class IntegritySettings:
    """What the monitor is asked to watch for (``[integrity]`` in the configuration)."""

    repeat_depth: int = 20
    """Earlier shoes of the table a new shoe is compared with (the repeated-shoe test)."""
    advantage_percent: float = 1.0
    """An advantage situation: a wager's edge for the players above this, in percent."""
    significance: float = 0.001
    """Result statistics alert below this p-value."""
    window_rounds: int = 400
    """Rounds in the rolling window of the result statistics (about five shoes)."""
    block_rounds: int = 80
    """A continuous shuffler has no shoe end: its results are tested every so many rounds."""
    tray_variance: int = 0
    """An alarm when a reconciled chip tray's variance exceeds this, in minor units (docs/tray.md)."""


@dataclass(frozen=True)
class IntegrityFinding:
    """Something the table's supervisor must hear: an alarm (``stop``: the round should stop)
    or an alert. ``key`` names it; the same finding always has the same key."""

    key: str
    code: str
    severity: str
    detail: str
    shoe: int
    round_id: str = ""
    stop: bool = False
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class ShoeRecord:
    """What the monitor knows of one shoe (the offline report prints these).

    A station's monitor keeps what its tests still need and no more: under a continuous
    shuffler (whose session never ends) no cards, and the results of the last block only;
    the report's monitor (``keep_shoes``) keeps everything."""

    shoe: int
    decks: int
    set_colour: str = ""
    cards: list[Card] = field(default_factory=list)
    cards_read: int = 0
    start_probabilities: dict[str, float] | None = None
    results: list[str] = field(default_factory=list)  # per settled round, "" for a void
    results_count: int = 0
    edges: list[dict[str, Any]] = field(default_factory=list)  # per account: round, cards left, edges
    order: dict[str, Any] | None = None
    repeat: dict[str, Any] | None = None
    tests: list[dict[str, Any]] = field(default_factory=list)
    left_at_end: int | None = None
    emptied: bool = False
    ended: bool = False
    advantage: dict[str, str] = field(default_factory=dict)  # wager -> round its episode began
    #: Each player's stakes against each wager's edge, round by round (station/integrity/sizing.py).
    sizing: dict[str, list[list[float]]] = field(default_factory=dict)
    findings: list[str] = field(default_factory=list)

    def account(self) -> dict[str, Any]:
        """The shoe's composition account: cards read against the decks."""
        seen: dict[str, int] = {}
        for card in self.cards:
            seen[card.code] = seen.get(card.code, 0) + 1
        beyond = {code: n for code, n in seen.items() if n > self.decks}
        return {"expected": 52 * self.decks, "read": self.cards_read, "left_unread": self.left_at_end,
                "emptied": self.emptied, "beyond_decks": beyond}

    def to_json(self) -> dict[str, Any]:
        return {"shoe": self.shoe, "set_colour": self.set_colour, "decks": self.decks,
                "account": self.account(), "first_cards": [c.code for c in self.cards[:order_tests.FIRST_CARDS]],
                "start_probabilities": self.start_probabilities, "results": self.results,
                "edges": self.edges, "order": self.order, "repeat": self.repeat, "tests": self.tests,
                "ended": self.ended, "findings": self.findings}


def _percent(value: Fraction) -> float:
    return round(float(value) * 100, 4)


class IntegrityMonitor:
    """Every integrity analysis over the core's outputs; :meth:`feed` returns the findings."""

    KINDS: tuple[type[out.Output], ...] = (out.CardsAccounted, out.RoundSettled, out.PayoutOptionApplied,
                                           out.TrayReconciled)

    def __init__(self, options: CoreOptions, settings: IntegritySettings | None = None, *,
                 keep_shoes: bool = False) -> None:
        self.options = options
        self.settings = settings or IntegritySettings()
        self.game = options.game
        self.table = options.table
        self.regions = options.rules.regions_of(options.table)
        self.payout_option = options.rules.payout_option(options.table)
        self.wagers = offered_wagers(self.game, self.regions, self.table, self.payout_option)
        self.continuous = options.equipment == "continuous"
        self.shoe: ShoeRecord | None = None
        self.earlier: deque[repeat_tests.ShoeSequence] = deque(maxlen=max(1, self.settings.repeat_depth))
        self.window: deque[tuple[str, dict[str, float]]] = deque(maxlen=max(1, self.settings.window_rounds))
        self.window_rounds = 0  # rounds ever added to the window
        self.keep_shoes = keep_shoes
        self.shoes: list[ShoeRecord] = []  # finished shoes, when keep_shoes
        self._results: dict[str, str] = {}  # round id -> result, until its account arrives
        self.last_edges: dict[str, Any] = {}

    # --- input ---------------------------------------------------------------------------------

    def feed(self, output: out.Output) -> list[IntegrityFinding]:
        if isinstance(output, out.CardsAccounted):
            return self._accounted(output)
        if isinstance(output, out.RoundSettled):
            self._results[output.round_id] = self._result_of(output)
            self._note_sizes(output)
        elif isinstance(output, out.PayoutOptionApplied):
            self.payout_option = output.option
            self.wagers = offered_wagers(self.game, self.regions, self.table, self.payout_option)
        elif isinstance(output, out.TrayReconciled):
            return self._tray(output)
        return []

    def _note_sizes(self, o: out.RoundSettled) -> None:
        """What each player staked on each wager, against the edge it had for this round."""
        record, edges = self.shoe, self.last_edges
        if record is None or edges.get("shoe") != record.shoe or not edges.get("house_edge_percent"):
            return
        note_round(record.sizing, edges["house_edge_percent"], ((b.box, b.player, b.region, b.stake) for b in o.bets),
                   {w.key: w.region for w in self.wagers})

    def _tray(self, o: out.TrayReconciled) -> list[IntegrityFinding]:
        """A chip tray whose win by inventory is not what the rounds say the house won (docs/tray.md)."""
        if abs(o.variance) <= self.settings.tray_variance:
            return []
        money = self.table.money if self.table is not None else Money()
        return [IntegrityFinding(
            f"tray_variance:{o.ledger}:{o.variance}", "tray_variance", "alarm",
            f"the chip tray of opening {o.ledger} is {money.signed(o.variance)} from the rounds: win by inventory "
            f"{money(o.win)} (closer {money(o.closer)} - opener {money(o.opener)} + credits {money(o.credits)} - "
            f"fills {money(o.fills)} + drop {money(o.drop)}), house result of the rounds {money(o.house)}",
            0, "", False, {"ledger": o.ledger, "win": o.win, "house": o.house, "variance": o.variance},
        )]

    def finish(self) -> list[IntegrityFinding]:
        """No more outputs (the end of a journal): nothing more to test, the shoe in play stays open."""
        return []

    # --- per account ---------------------------------------------------------------------------

    def _result_of(self, output: out.RoundSettled) -> str:
        if self.game == "war":
            first = output.outcome.split(" ", 2)[:2]
            return first[1].split(":", 1)[1] if len(first) > 1 and ":" in first[1] else ""
        return output.outcome

    def _accounted(self, o: out.CardsAccounted) -> list[IntegrityFinding]:
        findings: list[IntegrityFinding] = []
        record = self.shoe
        if record is None or record.shoe != o.shoe:
            if record is not None and not record.ended:
                findings += self._end_of_shoe(record, None)
            record = self.shoe = ShoeRecord(o.shoe, o.decks, o.set_colour)
        bounded = self.continuous and not self.keep_shoes
        if not bounded:  # a continuous session's cards are tested by no test (and never end)
            record.cards.extend(o.cards)
        record.cards_read += len(o.cards)
        comp = composition_of(o.left, o.decks) if o.left else None
        if o.stage == "start" and comp is not None:
            record.start_probabilities = outcome_probabilities(self.game, comp)
        if o.stage == "round":
            result = self._results.pop(o.round_id, "")
            record.results.append(result)
            record.results_count += 1
            if result and record.start_probabilities is not None:
                self.window.append((result, record.start_probabilities))
                self.window_rounds += 1
            block = self.settings.block_rounds
            if bounded and len(record.results) > block:
                del record.results[:-block]
            if self.continuous and record.results_count % block == 0:
                findings += self._result_tests(record, record.results[-block:],
                                               f"rounds {record.results_count - block + 1}-{record.results_count}",
                                               o.round_id)
        if not self.continuous and record.order is None and len(record.cards) >= order_tests.FIRST_CARDS:
            findings += self._first_cards(record, o.round_id)
        if comp is not None and o.stage in ("start", "round"):
            findings += self._edges(record, o, comp)
        if o.stage == "end":
            record.emptied = o.emptied
            record.left_at_end = sum(o.left) if o.left else 0
            findings += self._end_of_shoe(record, o.round_id)
        if self.keep_shoes:
            record.findings.extend(f.key for f in findings)
        return findings

    def _edges(self, record: ShoeRecord, o: out.CardsAccounted, comp: Any) -> list[IntegrityFinding]:
        edges = house_edges(self.game, comp, self.wagers, self.table)
        if not edges:
            return []
        point = {"round_id": o.round_id, "cards_left": len(comp),
                 "house_edge_percent": {key: _percent(edge) for key, edge in edges.items()}}
        if self.keep_shoes:
            record.edges.append(point)
        self.last_edges = {"shoe": record.shoe, **point}
        if o.shoe_over:
            return []
        findings = []
        limit = Fraction(self.settings.advantage_percent).limit_denominator(10**6) / 100
        names = {w.key: w.name for w in self.wagers}
        for key, edge in edges.items():
            favourable = -edge > limit
            if not favourable:
                record.advantage.pop(key, None)
                continue
            if key in record.advantage:
                continue  # the same situation goes on: raised when it began
            began = o.round_id or "start"
            record.advantage[key] = began
            player_edge = -_percent(edge)
            sizes = rising(record.sizing, key)
            findings.append(IntegrityFinding(
                f"advantage:{record.shoe}:{key}:{began}", "advantage_situation", "alert",
                f"{names.get(key, key)}: the players' edge is {player_edge:+.2f}% on the next round of shoe "
                f"{record.shoe} ({len(comp)} cards left: {_ranks_text(comp)}){rising_words(sizes)}",
                record.shoe, o.round_id, False,
                {"wager": key, "player_edge_percent": player_edge, "cards_left": len(comp),
                 "ranks": composition_words(comp), "house_edge_percent": point["house_edge_percent"],
                 "rising": sizes},
            ))
        return findings

    def _first_cards(self, record: ShoeRecord, round_id: str) -> list[IntegrityFinding]:
        first = record.cards[:order_tests.FIRST_CARDS]
        result = order_tests.order_statistics(first)
        record.order = result.to_json()
        findings: list[IntegrityFinding] = []
        codes = " ".join(c.code for c in first)
        if result.found:
            findings.append(IntegrityFinding(
                f"unshuffled:{record.shoe}", "shoe_unshuffled", "alarm",
                f"shoe {record.shoe} is in an ordered arrangement: {'; '.join(result.found)} (first cards {codes})",
                record.shoe, round_id, True,
                {"order": record.order, "false_alarm_bound": order_tests.false_alarm_bounds(record.decks)["total"]},
            ))
        best: repeat_tests.CommonRun | None = None
        for earlier in self.earlier:
            run = repeat_tests.longest_common_run(first, earlier)
            if run is not None and (best is None or run.length > best.length):
                best = run
        if best is not None:
            record.repeat = {"shoe": best.shoe, "length": best.length, "at": best.at, "earlier_at": best.earlier_at}
            findings.append(IntegrityFinding(
                f"repeated:{record.shoe}", "shoe_repeated", "alarm",
                f"shoe {record.shoe} repeats shoe {best.shoe}: {best.length} cards in the same order (card "
                f"{best.at + 1} on here, card {best.earlier_at + 1} on there; first cards {codes})",
                record.shoe, round_id, True,
                {**record.repeat, "false_alarm_bound": repeat_tests.false_alarm_bound(record.decks, len(self.earlier))},
            ))
        return findings

    def _end_of_shoe(self, record: ShoeRecord, round_id: str | None) -> list[IntegrityFinding]:
        record.ended = True
        findings: list[IntegrityFinding] = []
        if not self.continuous:
            if record.cards:
                self.earlier.append(repeat_tests.ShoeSequence.of(record.shoe, record.cards))
            findings += self._result_tests(record, record.results, f"shoe {record.shoe}", round_id or "")
            if self.window_rounds and len(self.window) >= self.settings.window_rounds:
                findings += self._window_tests(record, round_id or "")
        if self.keep_shoes:
            self.shoes.append(record)
        return findings

    # --- result statistics ---------------------------------------------------------------------

    def _categories(self) -> tuple[str, str, str]:
        return ("win", "lose", "tie") if self.game == "war" else ("banker", "player", "tie")

    def _result_tests(self, record: ShoeRecord, results: Sequence[str], scope: str,
                      round_id: str) -> list[IntegrityFinding]:
        probs = record.start_probabilities
        settled = [r for r in results if r]
        if probs is None or not settled:
            return []
        expected = {k: probs[k] * len(settled) for k in self._categories()}
        return self._run_tests(record, settled, expected, probs, scope, f"stats:{record.shoe}:{scope}", round_id)

    def _window_tests(self, record: ShoeRecord, round_id: str) -> list[IntegrityFinding]:
        results = [r for r, _ in self.window]
        expected = {k: sum(p[k] for _, p in self.window) for k in self._categories()}
        n = len(results)
        probs = {k: v / n for k, v in expected.items()}
        scope = f"last {n} rounds"
        return self._run_tests(record, results, expected, probs, scope, f"stats:window:{self.window_rounds}", round_id)

    def _run_tests(self, record: ShoeRecord, results: Sequence[str], expected: dict[str, float],
                   probs: dict[str, float], scope: str, key: str, round_id: str) -> list[IntegrityFinding]:
        cats = self._categories()
        observed = [sum(1 for r in results if r == k) for k in cats]
        a, b = cats[0], cats[1]
        decided = [r for r in results if r in (a, b)]
        p_first = probs[a] / (probs[a] + probs[b])
        tests = [
            stats.chi_squared(f"outcomes ({scope})", observed, [expected[k] for k in cats]),
            stats.longest_streak_test(f"longest streak ({scope})", decided, p_first),
            stats.runs_test(f"streaks ({scope})", decided, a),
        ]
        findings = []
        for test in tests:
            if self.keep_shoes:
                record.tests.append({**test.to_json(), "observed": dict(zip(cats, observed, strict=True)),
                                     "expected": {k: round(expected[k], 3) for k in cats}})
            if test.p_value is not None and test.p_value < self.settings.significance:
                findings.append(IntegrityFinding(
                    f"{key}:{test.name.split(' (')[0]}", "results_unlikely", "alert",
                    f"{test.name}: statistic {test.statistic:.3f}, p = {test.p_value:.2g} below "
                    f"{self.settings.significance:g} ({test.note}; observed "
                    f"{', '.join(f'{k} {o}' for k, o in zip(cats, observed, strict=True))})",
                    record.shoe, round_id, False, {"test": test.to_json(), "observed": observed},
                ))
        return findings

    # --- for ctl status ------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        record = self.shoe
        if record is None:
            return {"shoe": None}
        return {"shoe": record.shoe, "cards_read": record.cards_read, "results": record.results_count,
                "first_cards_tested": record.order is not None, "edges": self.last_edges,
                "advantage": dict(record.advantage)}


def _ranks_text(comp: Any) -> str:
    return " ".join(f"{rank}:{n}" for rank, n in composition_words(comp).items() if n)
