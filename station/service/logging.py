"""structlog set-up: JSON lines for journald, readable lines on a terminal.

Under systemd, stdout goes to journald, one JSON object per line, so a technician can filter
with ``journalctl -u dealing-station -o cat | jq 'select(.round == "S3-R41")'``. On a terminal
the same events are printed as aligned, coloured key=value lines. Context such as the shoe and
round ids is bound with :func:`bind_table_context` and appears on every line until rebound.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Literal, TextIO

import structlog

LogFormat = Literal["auto", "json", "console"]


def _use_json(fmt: LogFormat, stream: TextIO) -> bool:
    if fmt == "json":
        return True
    if fmt == "console":
        return False
    # journald sets JOURNAL_STREAM for services whose stdout it captures.
    return bool(os.environ.get("JOURNAL_STREAM")) or not stream.isatty()


def configure_logging(fmt: LogFormat = "auto", level: str = "info", stream: TextIO | None = None) -> None:
    """Configure structlog once for the process."""
    out = stream or sys.stdout
    numeric = logging.getLevelName(level.upper())
    processors: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if _use_json(fmt, out):
        processors += [structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]
    else:
        processors.append(structlog.dev.ConsoleRenderer(colors=out.isatty()))
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )


def bind_table_context(**ids: str | int | None) -> None:
    """Bind ids (``shoe``, ``round``) to every following log line; ``None`` unbinds."""
    keep = {k: v for k, v in ids.items() if v is not None}
    drop = [k for k, v in ids.items() if v is None]
    if drop:
        structlog.contextvars.unbind_contextvars(*drop)
    if keep:
        structlog.contextvars.bind_contextvars(**keep)
