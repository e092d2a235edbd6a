"""structlog, configured once for the whole process.

Console rendering by default (coloured when stderr is a terminal), JSON lines when ``ARENA_LOG_JSON=1``
(deployments). Logs go to stderr so that command output on stdout stays machine-readable.
"""

from __future__ import annotations

import logging
import os
import sys

import structlog

_configured = False


def configure_logging(level: str | None = None) -> None:
    """Configure structlog and the stdlib root logger. Safe to call more than once; only the first call acts."""
    global _configured
    if _configured:
        return
    _configured = True
    level_name = (level or os.environ.get("ARENA_LOG_LEVEL", "INFO")).upper()
    numeric = logging.getLevelName(level_name)
    if not isinstance(numeric, int):
        numeric = logging.INFO
    want_json = os.environ.get("ARENA_LOG_JSON") == "1"
    processors: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]
    if want_json:
        processors += [structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]
    else:
        processors += [structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(level=numeric, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")


def get_logger(name: str | None = None, **bound: object) -> structlog.stdlib.BoundLogger:
    """A structlog logger bound with ``logger=name`` and any context given."""
    log = structlog.get_logger(name)
    return log.bind(**bound) if bound else log
