"""Entry point of the ``station`` console script."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from station.cli import commands


class CliError(Exception):
    """A user error: printed as one line on stderr, exit status ``status``."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def version_line() -> str:
    """``station --version``: the installed package's version and the journal schema version."""
    from station.journal.store import SCHEMA_VERSION
    from station.version import installed_version

    return f"dealing-station {installed_version()} (journal schema {SCHEMA_VERSION})"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``command`` (the first argument), only that command's module is
    imported, so ``station run`` does not pay for importing every other command (time to
    READY under systemd counts it)."""
    parser = argparse.ArgumentParser(
        prog="station",
        description="Dealing station: Baccarat and Casino War table controller.",
    )
    parser.add_argument("--version", action="version", version=version_line(),
                        help="the station's version and the journal schema it writes")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name)
    if command is not None and any(m.name == command for m in modules):
        modules = [m for m in modules if m.name == command]
    for info in modules:
        try:
            module = importlib.import_module(f"{commands.__name__}.{info.name}")
        except Exception as exc:  # one broken command must not take the others down
            _register_broken(sub, info.name, exc)
            continue
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def _register_broken(sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, exc: Exception) -> None:
    """A command whose module cannot be imported still appears, and says why it cannot run;
    a technician at the table can then use every other command (diag, journal, ctl)."""
    message = f"this command cannot run: {type(exc).__name__}: {exc}"
    parser = sub.add_parser(name, help=f"(unavailable: {type(exc).__name__})", add_help=False)
    parser.add_argument("rest", nargs=argparse.REMAINDER)

    def handler(_args: argparse.Namespace) -> int:
        raise CliError(message, status=1)

    parser.set_defaults(handler=handler)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments[0] if arguments and not arguments[0].startswith("-") else None)
    args = parser.parse_args(arguments)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except CliError as exc:
        print(f"station {args.command}: {exc}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a fault of the station: one line for the person, the rest saved
        from station.cli.exits import internal_error

        return internal_error(args.command, exc)


if __name__ == "__main__":
    sys.exit(main())
