"""``station roads RESULTS [--json]``: draw the scoreboard roads of a typed history.

For pit staff checking a display against a paper card, and for anyone learning how the derived
roads are built: ``station roads BPPTBBP`` draws every road as text with a legend; ``--json``
prints the same data the web scoreboard receives. Reading the typed history
(:func:`parse_results`) and drawing the roads as text are this command's; the roads
themselves are :mod:`station.roads`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Sequence

from station.cli.main import CliError
from station.roads.cells import DERIVED_ROADS, ROWS, Roads
from station.roads.results import BANKER, PLAYER, TIE, ResultRecord, RoadsInputError
from station.roads.rules import build_roads

ROAD_TITLES = {
    "big_eye_boy": "Big Eye Boy",
    "small_road": "Small Road",
    "cockroach_pig": "Cockroach Pig",
}

LEGEND = """\
Legend
  Bead Plate : B Banker, P Player, T Tie; then p = player pair, b = banker pair, n = natural
  Big Road   : B Banker, P Player; -N = N ties marked on that win
               (ties before the first win are counted on the first cell)
  Derived    : r red (the pattern repeats), u blue (the pattern breaks)"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "roads",
        help="draw the baccarat scoreboard roads of a result history",
        description=(
            "Draw the Bead Plate, Big Road, Big Eye Boy, Small Road and Cockroach Pig of a shoe "
            "typed as letters B (Banker), P (Player), T (Tie), e.g. 'station roads BPPTBBP'."
        ),
    )
    parser.add_argument("results", metavar="RESULTS", help="results in order, letters B, P, T (any case)")
    parser.add_argument("--json", action="store_true", help="print the roads as JSON instead of text")
    parser.set_defaults(handler=run)


def parse_results(text: str) -> list[ResultRecord]:
    """Read a history typed as letters, e.g. ``"BPPTBBP"`` (case and spaces ignored).

    Any other character is refused with its position, so a typo never becomes a result.
    """
    records: list[ResultRecord] = []
    for position, char in enumerate(text, start=1):
        if char.isspace() or char == ",":
            continue
        letter = char.upper()
        if letter not in (BANKER, PLAYER, TIE):
            raise RoadsInputError(
                f"unknown result {char!r} at position {position}: use B (Banker), P (Player) or T (Tie)"
            )
        records.append(ResultRecord(letter))
    return records


def run(args: argparse.Namespace) -> int:
    try:
        records = parse_results(args.results)
    except RoadsInputError as exc:
        raise CliError(str(exc), 2) from None
    roads = build_roads(records)
    if args.json:
        print(json.dumps(roads.to_dict(), indent=2))
    else:
        print(render_text(roads))
    return 0


def draw_grid(cells: Iterable[tuple[int, int, str]], width: int, rows: int = ROWS) -> list[str]:
    """Draw ``(col, row, text)`` cells as ``rows`` lines of fixed-width columns; empty is ``.``."""
    grid: dict[tuple[int, int], str] = {(col, row): text for col, row, text in cells}
    columns = max((col for col, _ in grid), default=-1) + 1
    lines = []
    for row in range(rows):
        line = "".join(grid.get((col, row), ".").ljust(width) for col in range(columns))
        lines.append(("  " + line).rstrip())
    return lines


def _section(title: str, lines: Sequence[str]) -> list[str]:
    return [title, *lines, ""]


def render_text(roads: Roads) -> str:
    """The roads as a person reads them: one grid per road, then predictions and statistics."""
    out: list[str] = []

    def bead_text(cell_result: str, pp: bool, bp: bool, nat: bool) -> str:
        return cell_result + ("p" if pp else "") + ("b" if bp else "") + ("n" if nat else "")

    out += _section("Bead Plate", draw_grid(
        ((c.col, c.row, bead_text(c.result, c.player_pair, c.banker_pair, c.natural)) for c in roads.bead_plate),
        width=5,
    ))

    big_cells = [(c.col, c.row, c.result + (f"-{c.ties}" if c.ties else "")) for c in roads.big_road]
    big_title = "Big Road"
    if not roads.big_road and roads.leading_ties:
        big_cells = [(0, 0, f"T-{roads.leading_ties}")]
        big_title += f" ({roads.leading_ties} ties before the first win)"
    out += _section(big_title, draw_grid(big_cells, width=5))

    letter: Callable[[str], str] = lambda colour: "r" if colour == "red" else "u"  # noqa: E731
    for name, _ in DERIVED_ROADS:
        cells = roads.derived(name)
        out += _section(ROAD_TITLES[name], draw_grid(((c.col, c.row, letter(c.colour)) for c in cells), width=2))

    out.append("Ask road (what each derived road adds if the next result is ...)")
    for side, word in ((BANKER, "Banker"), (PLAYER, "Player")):
        prediction = roads.predictions[side].to_dict()
        parts = [f"{ROAD_TITLES[name]} {prediction[name] or '-'}" for name, _ in DERIVED_ROADS]
        out.append(f"  {word}: " + ", ".join(parts))
    out.append("")

    s = roads.stats
    out.append("Statistics")
    out.append(f"  rounds {s.rounds}: Banker {s.banker}, Player {s.player}, Tie {s.tie}")
    out.append(f"  naturals {s.naturals}, player pairs {s.player_pairs}, banker pairs {s.banker_pairs}")
    out.append(f"  longest streak: Banker {s.longest_banker_streak}, Player {s.longest_player_streak}")
    if s.current_streak_side is not None:
        out.append(f"  current streak: {s.current_streak_side} x{s.current_streak_length}")
    out.append("")
    out.append(LEGEND)
    return "\n".join(out)
