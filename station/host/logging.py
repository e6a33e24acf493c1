"""structlog set-up: JSON lines for journald, readable lines on a terminal.

Under systemd, stdout goes to journald, one JSON object per line, so a technician can filter
with ``journalctl -u dealing-station -o cat | jq 'select(.round == "S3-R41")'``. On a terminal
the same events are printed as aligned, coloured key=value lines, stamped in the table's local
time (``[table] timezone``); the JSON lines keep UTC, as journald and the tools reading them
do. Context such as the shoe and round ids is bound with :func:`bind_table_context` and
appears on every line until rebound.

When the output really is journald's stream (``$JOURNAL_STREAM`` names it), each line starts
with its syslog priority (``<4>`` for a warning, the sd-daemon convention), so that
``journalctl -u dealing-station -p warning`` shows the warnings and errors alone. Libraries
and modules that log through the standard ``logging`` module go through the same renderer,
so every line of the process has one format and one priority rule.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any, Literal, TextIO, cast

import structlog

LogFormat = Literal["auto", "json", "console"]


def _use_json(fmt: LogFormat, stream: TextIO) -> bool:
    if fmt == "json":
        return True
    if fmt == "console":
        return False
    # journald sets JOURNAL_STREAM for services whose stdout it captures.
    return bool(os.environ.get("JOURNAL_STREAM")) or not stream.isatty()


#: syslog priorities (sd-daemon(3)) of the levels the station logs at.
PRIORITY = {"debug": 7, "info": 6, "warning": 4, "warn": 4, "error": 3, "exception": 3, "critical": 2}


def writes_to_journald(stream: TextIO) -> bool:
    """True when ``stream`` is the journald stream systemd connected (``$JOURNAL_STREAM`` is
    ``device:inode`` of it); a pipe the station's output was redirected to is not."""
    expected = os.environ.get("JOURNAL_STREAM", "")
    try:
        info = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):  # not a file at all
        return False
    return expected == f"{info.st_dev}:{info.st_ino}"


class _PriorityPrefixed:
    """Renders with ``renderer`` and puts the line's syslog priority in front of it."""

    def __init__(self, renderer: structlog.typing.Processor) -> None:
        self._renderer = renderer

    def __call__(self, logger: Any, name: str, event: MutableMapping[str, Any]) -> str:
        priority = PRIORITY.get(str(event.get("level", name)).lower(), 6)
        # cast: both renderers configure_logging wraps (JSONRenderer on json.dumps, ConsoleRenderer) return str
        line = cast(str, self._renderer(logger, name, event))
        return f"<{priority}>{line}"


@dataclass(frozen=True)
class LogSettings:
    """How the process logs, in a form another process can be started with.

    A child started by spawning (a fresh interpreter) inherits nothing of its parent's
    logging; without these its lines would go through structlog's default, to stdout, which
    for ``station demo --json`` is the stream of JSON records."""

    fmt: LogFormat = "auto"
    level: str = "info"
    to_stderr: bool = False
    timezone: str = ""

    def apply(self) -> None:
        """Configure this process as the one that took these settings was configured."""
        configure_logging(self.fmt, self.level, stream=sys.stderr if self.to_stderr else sys.stdout,
                          timezone=self.timezone)


_settings = LogSettings()


def current_settings() -> LogSettings:
    """The settings of the last :func:`configure_logging` of this process (defaults before)."""
    return _settings


class _LocalTimeStamper:
    """The time of a line read by a person: the table's local time with its zone's name
    (``2026-12-01 21:04:12 CET``); the JSON lines for journald keep UTC."""

    def __init__(self, timezone: str) -> None:
        from zoneinfo import ZoneInfo

        self._zone = ZoneInfo(timezone)

    def __call__(self, logger: Any, name: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        from datetime import datetime

        event["timestamp"] = datetime.now(self._zone).strftime("%Y-%m-%d %H:%M:%S %Z")
        return event


def configure_logging(fmt: LogFormat = "auto", level: str = "info", stream: TextIO | None = None, *,
                      timezone: str = "") -> None:
    """Configure structlog, and route the standard ``logging`` module through it, once for
    the process. ``timezone``: the table's (``[table] timezone``), in which the lines for a
    person are stamped; UTC when not given."""
    global _settings  # noqa: PLW0603 - the one record of how this process was configured
    out = stream or sys.stdout
    _settings = LogSettings(fmt, level, to_stderr=out is sys.stderr, timezone=timezone)
    numeric = logging.getLevelName(level.upper())
    json_lines = _use_json(fmt, out)
    stamp: structlog.typing.Processor = structlog.processors.TimeStamper(fmt="iso", utc=True)
    if not json_lines and timezone:
        # Not a zone (the configuration's check says so at start): UTC, as without one.
        with contextlib.suppress(ValueError, OSError):
            stamp = _LocalTimeStamper(timezone)
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        stamp,
    ]
    renderer: structlog.typing.Processor
    if json_lines:
        shared.append(structlog.processors.format_exc_info)
        renderer = structlog.processors.JSONRenderer()
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=out.isatty())
    if writes_to_journald(out):
        renderer = _PriorityPrefixed(renderer)
    structlog.configure(
        processors=[*shared, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        # One write per line (message and newline together): the simulated table's process
        # shares the stream, and two processes' lines must not interleave mid-line.
        logger_factory=structlog.WriteLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(out)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *shared],
    ))
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(numeric)
    # The state machine library narrates every transition at info: the station logs what
    # matters itself (state, expectation), so only its warnings are wanted.
    logging.getLogger("transitions").setLevel(logging.WARNING)


def bind_table_context(**ids: str | int | None) -> None:
    """Bind ids (``shoe``, ``round``) to every following log line; ``None`` unbinds."""
    keep = {k: v for k, v in ids.items() if v is not None}
    drop = [k for k, v in ids.items() if v is None]
    if drop:
        structlog.contextvars.unbind_contextvars(*drop)
    if keep:
        structlog.contextvars.bind_contextvars(**keep)
