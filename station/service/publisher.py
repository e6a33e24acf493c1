"""What the players see: the results display board and the web scoreboard, fed from the core.

The core loop hands every output to :meth:`Publisher.on_output` on its own thread; that call
only queues. A worker thread then talks to the display board (each command waits for the
board's ACK, and a board that has gone away must never stall the table) and publishes
snapshots to the web scoreboard.

Nothing is shown before the cards are turned: the core publishes cards and results only once
they may be shown under the dealing style in force, and this module shows only what the core
published. After a restart the roads are rebuilt from the current shoe's rounds in the
journal (``initial_results``), never from memory.

What a result shows depends on the game: baccarat's roads and last hands
(:class:`RoadsBoard`), or Casino War's results per box (:class:`BoxesBoard`). The publisher
picks one by the configured game (:data:`BOARDS`) and asks it; it never asks which game it is.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, Protocol, cast

import structlog

from drivers.codec.display import BeadCell as WireBead
from drivers.codec.display import BigRoadCell as WireBigRoad
from drivers.codec.display import Mark, WireOutcome
from drivers.codec.display import Prediction as WirePrediction
from drivers.devices import DeviceError, DisplayDriver
from station.core import outputs as out
from station.core import states as st
from station.core.queues import take_waiting
from station.games.baccarat.rules import BaccaratResult, RoundStateError, result_of
from station.roads.cells import Roads
from station.roads.results import ResultRecord
from station.roads.scoreboard import Scoreboard
from station.roads.war_board import WarBoard

log = structlog.get_logger(__name__)

_WIRE_OUTCOME = {"B": WireOutcome.BANKER, "P": WireOutcome.PLAYER, "T": WireOutcome.TIE}
_WIRE_MARK = {"red": Mark.RED, "blue": Mark.BLUE, None: Mark.NONE}
_STOP = object()
#: Least time between two whole-roads updates of the board and of the web page.
ROADS_INTERVAL_S = 0.05
#: Least time between two expectation lines on the board. A dealer reads a line in a second;
#: lines that would each stand for a few milliseconds (a dealer at full speed, a shoe emptying
#: its buffer) are skipped, and the latest always shows within this interval.
EXPECTED_INTERVAL_S = 0.05


#: The outputs that change what the board or the web page shows (see ``Publisher._handle``).
SHOWN_OUTPUTS = (
    out.ShoeStarted, out.RoundResult, out.ExpectationChanged, out.StateChanged, out.IrregularityRaised,
    out.DeviceFaulted, out.DeviceBack, out.ShoeEnded,
)


def record_of(result: Mapping[str, Any]) -> ResultRecord:
    """A scoreboard record from a round result as the core keeps it (``shoe_results``)."""
    letter = {"banker": "B", "player": "P", "tie": "T"}[result["outcome"]]
    return ResultRecord(
        letter, bool(result.get("player_pair")), bool(result.get("banker_pair")), bool(result.get("natural")),
        result.get("player_total"), result.get("banker_total"),
    )


def war_round_of(result: Mapping[str, Any]) -> dict[int, str]:
    """A War board round from a round result as the core keeps it (``shoe_results``)."""
    return {int(box): outcome for box, outcome in dict(result.get("boxes", {})).items()}


def wire_roads(roads: Roads) -> dict[str, Any]:
    """The roads in the display board's wire types (docs/protocols/display.md)."""
    bead = [WireBead(_WIRE_OUTCOME[c.result], c.player_pair, c.banker_pair, c.natural) for c in roads.bead_plate]
    big = [WireBigRoad(c.col, c.row, _WIRE_OUTCOME[c.result], min(c.ties, 255)) for c in roads.big_road]

    def marks(name: str) -> list[Mark]:
        return [_WIRE_MARK[c.colour] for c in roads.derived(name)]

    def prediction(side: str) -> WirePrediction:
        p = roads.predictions[side]
        return WirePrediction(_WIRE_MARK[p.big_eye_boy], _WIRE_MARK[p.small_road], _WIRE_MARK[p.cockroach_pig])

    return {
        "bead_plate": bead, "big_road": big, "big_eye_boy": marks("big_eye_boy"),
        "small_road": marks("small_road"), "cockroach_pig": marks("cockroach_pig"),
        "if_banker": prediction("B"), "if_player": prediction("P"),
    }


class ResultsBoard(Protocol):
    """What the players are shown of the shoe's results, for one game."""

    def reset(self) -> None:
        """A new shoe: nothing to show."""
        ...

    def add_record(self, result: Mapping[str, Any]) -> None:
        """A round as the core keeps it (``shoe_results``): rebuilding after a restart."""
        ...

    def add_output(self, output: out.RoundResult) -> BaccaratResult | None:
        """A round as the core publishes it; returns the round for the board to show, if any."""
        ...

    def display_roads(self) -> dict[str, Any] | None:
        """The roads for the display board (:func:`wire_roads`), or None when the game has none."""
        ...

    def snapshot_parts(self) -> dict[str, Any]:
        """The web snapshot's game-specific fields (``roads``, ``last_result``, ``war``)."""
        ...


class RoadsBoard:
    """Baccarat: the roads of the shoe and the last round's hands."""

    def __init__(self) -> None:
        self.scoreboard = Scoreboard()
        self.last_result: BaccaratResult | None = None

    def reset(self) -> None:
        self.scoreboard.reset()  # the last round's hands stay shown until the next round

    def add_record(self, result: Mapping[str, Any]) -> None:
        self.scoreboard.add(record_of(result))

    def add_output(self, output: out.RoundResult) -> BaccaratResult | None:
        hands = dict(output.hands)
        totals = dict(output.totals)
        self.add_record({
            "outcome": output.outcome, "player_total": totals.get("player"), "banker_total": totals.get("banker"),
            "natural": output.natural, "player_pair": output.player_pair, "banker_pair": output.banker_pair,
        })
        try:
            self.last_result = result_of(list(hands.get("player", ())), list(hands.get("banker", ())))
        except RoundStateError:
            self.last_result = None
        return self.last_result

    def display_roads(self) -> dict[str, Any] | None:
        return wire_roads(self.scoreboard.roads())

    def snapshot_parts(self) -> dict[str, Any]:
        return {"roads": self.scoreboard.roads(), "last_result": self.last_result}


class BoxesBoard:
    """Casino War: the latest results of each box (the display board has no roads for it)."""

    def __init__(self) -> None:
        self.war_board = WarBoard()

    def reset(self) -> None:
        self.war_board.reset()

    def add_record(self, result: Mapping[str, Any]) -> None:
        self.war_board.add(war_round_of(result))

    def add_output(self, output: out.RoundResult) -> BaccaratResult | None:
        totals = dict(output.totals)
        dealer = totals.get("dealer")
        boxes: dict[str, str] = {}
        for position, value in totals.items():
            if position.startswith("box ") and dealer is not None:
                boxes[position[4:]] = "win" if value > dealer else "lose" if value < dealer else "tie"
        self.add_record({"boxes": boxes})
        return None

    def display_roads(self) -> dict[str, Any] | None:
        return None

    def snapshot_parts(self) -> dict[str, Any]:
        return {"war": self.war_board}


#: The board each game shows, by the game's configured name.
BOARDS: Mapping[str, Callable[[], ResultsBoard]] = MappingProxyType({"baccarat": RoadsBoard, "war": BoxesBoard})


class Publisher:
    """Feeds the display board and the web scoreboard from the core's outputs."""

    def __init__(
        self,
        game: str,
        display: DisplayDriver | None,
        web: Any | None = None,
        table_info: Any | None = None,
        initial_results: Iterable[Mapping[str, Any]] = (),
        limits: tuple[int, int] | None = None,
    ) -> None:
        self.game = game
        self.display = display
        self.web = web
        self.table_info = table_info
        self.limits = limits
        self.board = BOARDS[game]()
        for result in initial_results:
            self.board.add_record(result)
        self.state = "shuffling"
        self.last_round = False
        self.fault = ""
        self.display_failures = 0
        self._roads_dirty = False
        self._web_dirty = False
        self._last_roads = 0.0
        self._expected: str | None = None
        self._expected_shown: str | None = None
        self._last_expected = float("-inf")
        self._queue: queue.Queue[object] = queue.Queue()  # not SimpleQueue: see station.core.queues
        self._thread = threading.Thread(target=self._work, name="publisher", daemon=True)

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()
        self._queue.put(("announce", None))

    def stop(self, timeout: float = 5.0) -> None:
        self._queue.put(_STOP)
        self._thread.join(timeout)

    def on_output(self, output: out.Output) -> None:
        """Core-loop side: queue only, never block. Subscribed for ``SHOWN_OUTPUTS``: other
        outputs (a card revealed, a bet accepted) change nothing on the board or the page."""
        self._queue.put(("output", output))

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Until everything queued so far has been shown (tests, orderly shutdown)."""
        marker = threading.Event()
        self._queue.put(("mark", marker))
        return marker.wait(timeout)

    # --- worker ----------------------------------------------------------------------------

    def _work(self) -> None:
        """Take everything queued, then show the outcome once.

        Results, clears and messages go to the board in order; the roads, the expectation
        line and the web snapshot are sent once per batch with their latest content. At a
        dealer's pace a batch is one output; when outputs come faster than the board can
        acknowledge them, the board skips intermediate expectation lines instead of falling
        behind the table."""
        while True:
            try:
                batch = [self._queue.get(timeout=self._until_due())]
            except queue.Empty:
                self._flush()
                continue
            take_waiting(self._queue, batch)
            for item in batch:
                if item is _STOP:
                    self._flush(force=True)
                    return
                kind, value = cast(tuple[str, Any], item)
                try:
                    if kind == "output":
                        self._handle(value)
                    elif kind == "announce":
                        self._announce()
                    elif kind == "mark":
                        self._flush(force=True)
                        value.set()
                except Exception:  # a display problem must never stop the publishing of the rest
                    log.exception("publisher_failed", item=kind)
            try:
                self._flush()
            except Exception:
                log.exception("publisher_failed", item="flush")

    def _until_due(self) -> float | None:
        """How long the worker may sleep: until a held-back roads, web or expectation update is due."""
        due: list[float] = []
        if self._roads_dirty or self._web_dirty:
            due.append(self._last_roads + ROADS_INTERVAL_S)
        if self._expected is not None and self._expected != self._expected_shown:
            due.append(self._last_expected + EXPECTED_INTERVAL_S)
        if not due:
            return None
        return max(0.0, min(due) - time.monotonic())

    def _flush(self, force: bool = False) -> None:
        """Send what changed. Roads and web snapshots are whole pictures, costly to encode and
        to draw; at most one goes out per ``ROADS_INTERVAL_S`` (a person cannot read faster),
        and the latest is always sent once the interval has passed."""
        roads_due = force or time.monotonic() - self._last_roads >= ROADS_INTERVAL_S
        if roads_due and (self._roads_dirty or self._web_dirty):
            self._last_roads = time.monotonic()
            if self._roads_dirty:
                self._roads_dirty = False
                roads = self.board.display_roads()
                if roads is not None:
                    self._to_display("show_roads_wire", roads)
            if self._web_dirty:
                self._web_dirty = False
                self._publish_web()
        expected_due = force or time.monotonic() - self._last_expected >= EXPECTED_INTERVAL_S
        if expected_due and self._expected is not None and self._expected != self._expected_shown:
            self._expected_shown = self._expected
            self._last_expected = time.monotonic()
            self._to_display("show_expected", self._expected)

    def _handle(self, output: out.Output) -> None:
        if isinstance(output, out.ShoeStarted):
            self.board.reset()
            self.last_round = False
            self._to_display("clear")
            self._expected_shown = None  # the board was cleared: show the line again
            self._roads_dirty = True
        elif isinstance(output, out.RoundResult):
            self._on_result(output)
        elif isinstance(output, out.ExpectationChanged):
            self.last_round = "last round" in output.text
            self._expected = output.text
        elif isinstance(output, out.StateChanged):
            self.state = output.state
            if output.state != st.IRREGULARITY:
                self.fault = ""
        elif isinstance(output, out.IrregularityRaised):
            # Players see that the round is stopped; the detail is for the supervisor (logs, ctl).
            self.fault = "supervisor called"
            self._to_display("show_message", "ROUND STOPPED - SUPERVISOR CALLED")
        elif isinstance(output, out.DeviceFaulted):
            self.fault = f"{output.device} offline"
        elif isinstance(output, out.DeviceBack):
            self.fault = ""
        elif isinstance(output, out.ShoeEnded):
            self.state = "shoe end"
        else:
            return
        self._web_dirty = True

    def _on_result(self, output: out.RoundResult) -> None:
        shown = self.board.add_output(output)
        if shown is not None:
            self._to_display("show_round", shown)
        self._roads_dirty = True

    def _announce(self) -> None:
        if self.limits is not None:
            self._to_display("show_limits", *self.limits)
        self._roads_dirty = True
        self._web_dirty = True

    def _to_display(self, command: str, *args: Any) -> None:
        if self.display is None:
            return
        try:
            if command == "show_roads_wire":
                self.display.show_roads(**args[0])
            else:
                getattr(self.display, command)(*args)
        except (DeviceError, OSError) as exc:
            self.display_failures += 1
            log.warning("display_command_failed", command=command, error=str(exc))

    # --- web ---------------------------------------------------------------------------------

    def web_state(self) -> str:
        if self.fault:
            return f"fault: {self.fault}"
        if self.state in (st.SHUFFLING, st.CUTTING, st.BURNING):
            return "shuffling"
        if self.state == "shoe end":
            return "shoe end"
        if self.last_round:
            return "last round"
        if self.state == st.BETTING:
            return "betting"
        return "dealing"

    def _publish_web(self) -> None:
        if self.web is None or self.table_info is None:
            return
        from station.web.snapshot import Snapshot

        snapshot = Snapshot(table=self.table_info, state=self.web_state(), **self.board.snapshot_parts())
        self.web.publish(snapshot)
