"""What the ``station diag`` sub-commands share: device options, driver logs on stderr, the
configuration, the target device, the refusal while the service holds it, and output."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from typing import Any

from station.cli.main import CliError

DEVICE_KINDS = ("shoe", "shuffler", "display", "buttonbox", "pedals", "sign", "chipreader")


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def device_options(parser: argparse.ArgumentParser, *, required: bool = False, default: str | None = None) -> None:
    help_text = "configured device name" + (f" (default: {default})" if default else "")
    if required:
        help_text += " (or give --url)"
    parser.add_argument("device", nargs="?", metavar="DEVICE", help=help_text)
    parser.add_argument("--url", help="talk to this port or locator instead of the configured one")
    parser.add_argument("--kind", choices=DEVICE_KINDS, help="what the device at --url is")
    parser.add_argument("--baudrate", type=positive_int, help="serial speed (default: configured, else 115200)")
    parser.add_argument(
        "--wait", type=positive_float, default=5.0, help="seconds to wait for the device to answer (default 5)"
    )
    parser.set_defaults(default_kind=default)


class _Stderr:
    """Whatever ``sys.stderr`` is at the moment of writing (it may be replaced after set-up)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return sys.stderr.isatty()


def talks_to_devices(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Driver log lines go to stderr while the command runs, so stdout stays the report (and
    valid JSON with --json); the process's previous logging set-up is put back afterwards."""

    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> int:
        import structlog

        from station.host.logging import configure_logging

        previous = structlog.get_config()
        configure_logging(
            "console", args.log_level, stream=_Stderr()  # type: ignore[arg-type]  # has the TextIO methods used
        )
        try:
            return handler(args)
        finally:
            structlog.configure(**previous)

    return run


def configuration(args: argparse.Namespace, *, needed: bool) -> Any:
    """The configuration (a ``StationConfig``), or ``None`` when it is not needed and not there."""
    from station.cli.configuration import load_station_config
    from station.config.errors import ConfigError
    from station.service.paths import default_config_path

    path = args.config or default_config_path()
    try:
        return load_station_config(path).config
    except ConfigError as exc:
        if needed or args.config:
            raise CliError(str(exc), 2) from None
        return None


def resolve(args: argparse.Namespace) -> tuple[Any, Any]:
    """The :class:`~station.diag.target.Target` and the configuration (``None`` if there is none)."""
    from station.diag.target import DiagError, resolve_target

    config = configuration(args, needed=not args.url)
    try:
        return resolve_target(
            config.devices if config is not None else None, args.device, args.url, args.kind,
            args.default_kind, args.baudrate,
        ), config
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None


def table_journal(config: Any) -> Any:
    """The journal of the table the diagnostic is for (a ``Path``): the one its configuration
    (``None``: none found) names, by the rule every command shares. A live round refuses the
    diagnostic only on the station writing it."""
    from station.journal.location import journal_path

    return journal_path(None, (config.station.journal or None) if config is not None else None)


def refuse_if_busy(device: Any, config: Any) -> None:
    """Exit 1 with the holder's message if a running service holds ``device`` (a ``Target``)
    or a round is live on the table of ``config`` (a ``StationConfig`` or ``None``)."""
    from station.diag.target import check_free
    from station.service.holder import DeviceBusy

    try:
        check_free(device, journal=table_journal(config))
    except DeviceBusy as exc:
        raise CliError(str(exc), 1) from None


def out(text: str) -> None:
    print(text, flush=True)


def need_kind(device: Any, *kinds: str) -> None:
    """Exit 2 unless ``device`` (a ``Target``) is of one of ``kinds``."""
    if device.kind not in kinds:
        raise CliError(f"{device.name} is a {device.kind}; this test needs a {' or '.join(kinds)}", 2)
