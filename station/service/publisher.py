"""What the players see: the results display board and the web scoreboard, fed from the core.

The core loop hands every output to :meth:`Publisher.on_output` on its own thread; that call
only queues. A worker thread then talks to the display board (each command waits for the
board's ACK, and a board that has gone away must never stall the table) and publishes
snapshots to the web scoreboard.

Nothing is shown before the cards are turned: the core publishes cards and results only once
they may be shown under the dealing style in force, and this module shows only what the core
published. After a restart the roads are rebuilt from the current shoe's rounds in the
journal (``initial_results``), never from memory.

The display board's picture is state (:mod:`station.service.board`): the publisher keeps it
whole and sends what the board lacks; when the board's link comes back or the board reboots,
the board is cleared and painted again in full. Banners are raised and taken down by events.

What a result shows depends on the game: baccarat's roads and last hands, or Casino War's
rounds and results per box. The publisher asks the configured game for its board
(:meth:`station.games.interface.Game.board`, :mod:`station.games.board`) and tells it of each
settled round; it never asks which game it is, and imports none of a game's rules.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, cast

import structlog

from drivers.codec import Message
from drivers.codec import display as wire
from drivers.devices import DeviceError, DisplayDriver
from station.core import outputs as out
from station.core import states as st
from station.core.machine import TableMachine
from station.core.queues import take_waiting
from station.games.board import BoardRound
from station.games.registry import game_named
from station.service.board import ANNOUNCED_DEVICES, BLANK, Banners, BoardPicture, result_command, roads_command

if TYPE_CHECKING:
    from station.web.snapshot import Snapshot, TableInfo

log = structlog.get_logger(__name__)


class SnapshotSink(Protocol):
    """Where the web page's pictures go: the scoreboard's process (:mod:`station.web.feed`)."""

    def publish(self, snapshot: Snapshot) -> object: ...


_STOP = object()
#: Least time between two whole-roads updates of the board and of the web page.
ROADS_INTERVAL_S = 0.05
#: Least time between two pictures for the web page. Every picture goes to every screen of the
#: pit (about 15 KB each at the end of a shoe); at a dealer's pace changes are seconds apart
#: and each goes out at once, and in a burst (a dealer at full speed) the page gets at most
#: four pictures a second, the latest always within this interval.
WEB_INTERVAL_S = 0.25
#: Least time between two expectation lines on the board. A dealer reads a line in a second;
#: lines that would each stand for a few milliseconds (a dealer at full speed, a shoe emptying
#: its buffer) are skipped, and the latest always shows within this interval.
EXPECTED_INTERVAL_S = 0.05


#: The outputs that change what the board or the web page shows (see ``Publisher._handle``).
SHOWN_OUTPUTS = (
    out.ShoeStarted, out.RoundSettled, out.RoundVoided, out.ExpectationChanged,
    out.StateChanged, out.IrregularityRaised, out.IrregularityResolved, out.DeviceFaulted, out.DeviceBack,
    out.ShoeEnded, out.LimitsApplied, out.PayoutOptionApplied,
)
#: After a display command failed while the link stayed up, the next try waits this long.
RETRY_S = 1.0


#: Makes the board's limits sign and the page's table under limits in force and a payout option.
Signs = Callable[[Mapping[str, Any], str], tuple[wire.ShowLimits, "TableInfo"]]


@dataclass(frozen=True)
class TableView:
    """Where the table is, read on the core loop's thread when an output is handed over."""

    shoe: int = 0
    round_no: int = 0
    cards_left: int | None = None


def table_view(machine: TableMachine) -> TableView:
    """Where ``machine``'s table is (on the core loop's thread: CoreLoop.inspect)."""
    shoe, current = machine.shoe, machine.round
    composition = shoe.composition
    return TableView(shoe.number, current.round_id.number if current is not None else shoe.rounds,
                     len(composition) if composition is not None else None)


def board_round(output: out.RoundSettled) -> BoardRound:
    """What a game's board is told of a settled round (its number in the shoe, as typed)."""
    surrendered = tuple(dict.fromkeys(b.box for b in output.bets if b.outcome == "surrender"))
    return BoardRound(output.round_id.number, output.hands, output.totals, output.outcome, output.natural,
                      output.player_pair, output.banker_pair, surrendered)


class Publisher:
    """Feeds the display board and the web scoreboard from the core's outputs.

    The board's picture (:class:`~station.service.board.BoardPicture`) is kept whole; what
    differs from what the board shows is sent, result first. Whenever the board's link comes
    back or the board reports a Boot, it is cleared and painted again in full."""

    def __init__(
        self,
        game: str,
        display: DisplayDriver | None,
        web: SnapshotSink | None = None,
        table_info: TableInfo | None = None,
        initial_results: Iterable[Mapping[str, Any]] = (),
        limits: wire.ShowLimits | tuple[int, int] | None = None,
        view: Callable[[], TableView] | None = None,
        signs: Signs | None = None,
        limits_in_force: tuple[Mapping[str, Any], str] = (MappingProxyType({}), ""),
    ) -> None:
        self.game = game
        self.display = display
        self.web = web
        self.table_info = table_info
        #: The signs (board and page) under new limits or a new payout option; and those in force.
        self._signs = signs
        self._limits, self._payout_option = limits_in_force
        if isinstance(limits, tuple):
            limits = wire.ShowLimits(*limits)
        self.board = game_named(game).board()
        for result in initial_results:  # the shoe's results as the table's state keeps them
            self.board.add_record(result["round_id"].number, result)
        self._view = view
        self.table = view() if view is not None else TableView()
        self.state = "shuffling"
        self.last_round = False  # bets are being taken for the shoe's last round
        self.shoe_over = False  # the shoe ended and the table has not moved on yet
        self.banners = Banners()
        self.display_failures = 0
        self.repaints = 0
        shown = self.board.last_shown()
        self.picture = BoardPicture(limits=limits, result=result_command(shown) if shown is not None else None)
        #: What the board shows, as far as the station knows (after a Clear: nothing).
        self.shown = BLANK
        self._repaint = True  # the board's picture is unknown at start: clear it and paint it all
        self._roads_dirty = False
        self._web_dirty = False
        self._last_roads = 0.0
        self._last_web = float("-inf")
        self._last_expected = float("-inf")
        self._retry_at = 0.0
        self._board_failing = False
        self._queue: queue.Queue[object] = queue.Queue()  # not SimpleQueue: see station.core.queues
        self._thread = threading.Thread(target=self._work, name="publisher", daemon=True)

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        if self.display is not None:
            self.display.on_needs_repaint(self.repaint)
        self._thread.start()
        self._queue.put(("announce", None))

    def stop(self, timeout: float = 5.0) -> None:
        if self.display is not None:
            self.display.on_needs_repaint(None)
        self._queue.put(_STOP)
        self._thread.join(timeout)

    def on_output(self, output: out.Output) -> None:
        """Core-loop side: queue only, never block. Subscribed for ``SHOWN_OUTPUTS``: other
        outputs (a card revealed, a bet accepted) change nothing on the board or the page.
        Where the table stands (shoe, round, cards left) is read here, on the loop's thread."""
        view = self._view() if self._view is not None else None
        self._queue.put(("output", (output, view)))

    def repaint(self, reason: str = "") -> None:
        """The board must be painted again in full (its link came back, it rebooted). Any
        thread; only queues."""
        self._queue.put(("repaint", reason))

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Until everything queued so far has been shown (tests, orderly shutdown)."""
        marker = threading.Event()
        self._queue.put(("mark", marker))
        return marker.wait(timeout)

    # --- worker ----------------------------------------------------------------------------

    def _work(self) -> None:
        """Take everything queued, then show the outcome once.

        The result goes first; the roads, the expectation line and the web snapshot are sent
        once per batch with their latest content. At a dealer's pace a batch is one output;
        when outputs come faster than the board can acknowledge them, the board skips
        intermediate expectation lines instead of falling behind the table."""
        while True:
            try:
                batch = [self._queue.get(timeout=self._until_due())]
            except queue.Empty:
                self._flush_safely()
                continue
            take_waiting(self._queue, batch)
            for item in batch:
                if item is _STOP:
                    self._flush_safely(force=True)
                    return
                kind, value = cast(tuple[str, Any], item)
                try:
                    if kind == "output":
                        self._handle(*value)
                    elif kind == "announce":
                        self._announce()
                    elif kind == "repaint":
                        log.info("display_repaint", reason=value)
                        self._repaint = True
                    elif kind == "mark":
                        self._flush_safely(force=True)
                        value.set()
                except Exception:  # a display problem must never stop the publishing of the rest
                    log.exception("publisher_failed", item=kind)
            self._flush_safely()

    def _flush_safely(self, force: bool = False) -> None:
        try:
            self._flush(force)
        except Exception:
            log.exception("publisher_failed", item="flush")

    def _until_due(self) -> float | None:
        """How long the worker may sleep: until a held-back update or a retry is due."""
        due: list[float] = []
        if self._roads_dirty and self.display is not None:  # without a board nothing takes the roads:
            due.append(self._last_roads + ROADS_INTERVAL_S)  # counted due, they kept the worker spinning
        if self._web_dirty:
            due.append(self._last_web + WEB_INTERVAL_S)
        if self.display is not None and self.display.connected and self._unpainted():
            due.append(max(self._retry_at, self._last_expected + EXPECTED_INTERVAL_S))
        if not due:
            return None
        return max(0.0, min(due) - time.monotonic())

    def _unpainted(self) -> bool:
        """Whether :meth:`_paint` has something to send (throttles and retries aside)."""
        picture, shown = self.picture, self.shown
        return (self._repaint
                or (picture.result is not None and picture.result != shown.result)
                or picture.message != shown.message
                or (bool(picture.expected) and picture.expected != shown.expected)
                or (picture.limits is not None and picture.limits != shown.limits)
                or (picture.roads is not None and picture.roads is not shown.roads))

    def _flush(self, force: bool = False) -> None:
        """Bring the board and the page up to the picture. Roads and web snapshots are whole
        pictures, costly to encode and to draw; at most one goes to the board per
        ``ROADS_INTERVAL_S`` and to the page per ``WEB_INTERVAL_S`` (a person cannot read
        faster), and the latest always follows once the interval has passed. The board's
        result goes first; but while the board is not answering (each command then waits
        for its retransmissions) the page goes first, so a silent board never holds it up."""
        now = time.monotonic()
        roads_due = force or now - self._last_roads >= ROADS_INTERVAL_S
        web_due = force or now - self._last_web >= WEB_INTERVAL_S
        if web_due and self._web_dirty and self._board_failing:
            self._publish_web_now()
        if (roads_due or self._repaint) and self._roads_dirty and self.display is not None:
            # (a repaint sends the newest roads.) The result goes out before the roads are
            # built: players wait for it, not for them.
            if not self._repaint:
                self._paint(force)
            self._roads_dirty = False
            self._last_roads = time.monotonic()
            roads = self.board.display_roads()
            self.picture = replace(self.picture, roads=roads_command(roads) if roads is not None else None)
        self._paint(force)
        if web_due and self._web_dirty:
            self._publish_web_now()

    def _publish_web_now(self) -> None:
        self._web_dirty = False
        self._last_web = time.monotonic()
        self._publish_web()

    def _paint(self, force: bool) -> None:
        """Send the picture's differences from what the board shows (all of it after a Clear)."""
        if self.display is None:
            return
        now = time.monotonic()
        if not force and now < self._retry_at:
            return
        if self._repaint:
            if not self._send(wire.Clear()):
                return
            self._repaint = False
            self.repaints += 1
            self.shown = BLANK
            self._last_expected = float("-inf")
        picture, shown = self.picture, self.shown
        if picture.result is not None and picture.result != shown.result:
            if not self._send(picture.result):
                return
            self.shown = shown = replace(shown, result=picture.result)
        if picture.message != shown.message:
            if not self._send(wire.ShowMessage(picture.message)):
                return
            self.shown = shown = replace(shown, message=picture.message)
        expected_due = force or now - self._last_expected >= EXPECTED_INTERVAL_S
        if expected_due and picture.expected and picture.expected != shown.expected:
            if not self._send(wire.ShowExpected(picture.expected)):
                return
            self._last_expected = time.monotonic()
            self.shown = shown = replace(shown, expected=picture.expected)
        if picture.limits is not None and picture.limits != shown.limits:
            if not self._send(picture.limits):
                return
            self.shown = shown = replace(shown, limits=picture.limits)
        if picture.roads is not None and picture.roads is not shown.roads:
            if not self._send(picture.roads):
                return
            self._last_roads = time.monotonic()
            self.shown = replace(shown, roads=picture.roads)

    def _send(self, message: Message) -> bool:
        assert self.display is not None
        try:
            self.display.send(message)
        except (DeviceError, OSError) as exc:
            self.display_failures += 1
            self._board_failing = True
            self._retry_at = time.monotonic() + RETRY_S
            log.warning("display_command_failed", command=message.WIRE_NAME, error=str(exc))
            return False
        self._board_failing = False
        return True

    def _handle(self, output: out.Output, view: TableView | None) -> None:
        if view is not None:
            self.table = view
        banners = self.banners
        if isinstance(output, out.ShoeStarted):
            self.board.reset()
            self.last_round = False
            banners.voided = False
            self.picture = replace(self.picture, result=None)
            self._repaint = True  # a new shoe starts on a clean board
            self._roads_dirty = True
        elif isinstance(output, out.RoundSettled):
            shown = self.board.add_round(board_round(output))
            if shown is not None:
                self.picture = replace(self.picture, result=result_command(shown))
            self._roads_dirty = True
        elif isinstance(output, out.ExpectationChanged):
            self.last_round = output.last_round
            self.picture = replace(self.picture, expected=output.text)
        elif isinstance(output, out.StateChanged):
            self.state = output.state
            self.shoe_over = False
            if output.state != st.IRREGULARITY:
                banners.paused = False
            banners.table_paused = output.state == st.PAUSED  # a supervisor's pause, until resumed
            if output.state in (st.BETTING, st.SHUFFLING):
                banners.voided = False  # the next round (or shoe) ends the void round's notice
        elif isinstance(output, out.IrregularityRaised):
            # Players see that the round is paused; the detail is for the supervisor (logs, ctl).
            banners.paused = True
        elif isinstance(output, out.IrregularityResolved):
            banners.paused = False
        elif isinstance(output, out.RoundVoided):
            banners.paused = False
            banners.voided = True
        elif isinstance(output, out.DeviceFaulted):
            if output.device in ANNOUNCED_DEVICES:
                banners.offline.add(output.device)
        elif isinstance(output, out.DeviceBack):
            banners.offline.discard(output.device)
        elif isinstance(output, out.ShoeEnded):
            self.shoe_over = True
        elif isinstance(output, (out.LimitsApplied, out.PayoutOptionApplied)):
            self._new_signs(output)
        else:
            return
        self.picture = replace(self.picture, message=banners.text())
        self._web_dirty = True

    def _new_signs(self, output: out.LimitsApplied | out.PayoutOptionApplied) -> None:
        """New limits (or a payout option that changes the smallest Banker bet) from this round:
        the board's limits sign and the page's table say so."""
        if isinstance(output, out.LimitsApplied):
            self._limits = output.limits
        else:
            self._payout_option = output.option
        if self._signs is None or not self._limits:
            return
        sign, self.table_info = self._signs(self._limits, self._payout_option)
        self.picture = replace(self.picture, limits=sign)

    def _announce(self) -> None:
        self._repaint = True
        self._roads_dirty = True
        self._web_dirty = True

    # --- web ---------------------------------------------------------------------------------

    def web_state(self) -> str:
        if self.state == st.PAUSED:
            return "paused"
        if self.shoe_over:
            return "shoe end"
        if self.state in (st.SHUFFLING, st.CUTTING, st.BURNING):
            return "shuffling"
        if self.last_round:
            return "last round"
        if self.state == st.BETTING:
            return "betting"
        return "dealing"

    def _publish_web(self) -> None:
        if self.web is None or self.table_info is None:
            return
        from station.web.snapshot import Snapshot

        snapshot = Snapshot(
            table=self.table_info, state=self.web_state(), shoe=self.table.shoe, round_no=self.table.round_no,
            cards_left=self.table.cards_left, message=self.banners.text(),
            message_kind="alert" if self.banners.urgent else ("notice" if self.banners.text() else ""),
            **self.board.snapshot_parts(),
        )
        self.web.publish(snapshot)
