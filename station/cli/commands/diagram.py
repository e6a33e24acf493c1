"""``station diagram``: the shoe and round state machine, drawn from the code."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from station.cli.main import CliError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diagram",
        help="write the state machine's diagram (Mermaid or dot)",
        description="Write the shoe and round state machine's diagram, generated from the code "
        "(docs/state-machine.mmd is this command's output).",
    )
    parser.add_argument("--format", choices=("mermaid", "dot"), default="mermaid")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from station.core.diagram import DiagramError, render

    try:
        text = render(args.format)
    except DiagramError as exc:
        raise CliError(str(exc)) from None
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {args.output}: {exc.strerror}") from None
    else:
        print(text, end="")
    return 0
