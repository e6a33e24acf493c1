"""``station completion SHELL`` and ``station manpage``: what a shell and ``man`` know of the
command line, generated from the argument parser itself, so they never fall behind it.

The completion script comes from shtab (a static script: a tab costs no Python start), the
manual page from argparse-manpage (docs/dependencies.md says why these two). The Debian
package installs both (``/usr/share/bash-completion/completions/station``,
``/usr/share/man/man1/station.1``); from a checkout::

    station completion bash > ~/.local/share/bash-completion/completions/station
    station manpage > ~/.local/share/man/man1/station.1
"""

from __future__ import annotations

import argparse
from typing import Any

SHELLS = ("bash", "zsh", "tcsh")


def register(subparsers: Any) -> None:
    completion = subparsers.add_parser(
        "completion", help="print the shell completion script (bash, zsh or tcsh)",
        description="Print the completion script for SHELL, generated from the command line itself.")
    completion.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    completion.set_defaults(handler=run_completion)


def whole_parser() -> argparse.ArgumentParser:
    from station.cli.main import build_parser

    return build_parser()  # every command, not only the one being run


def run_completion(args: argparse.Namespace) -> int:
    import shtab

    print(shtab.complete(whole_parser(), shell=args.shell), end="")
    return 0
