"""structlog, configured once for the whole process.

Console rendering by default (coloured when stderr is a terminal), JSON lines when ``ARENA_LOG_JSON=1``
(deployments). Logs go to stderr so that command output on stdout stays machine-readable; a command that knows
better configures again with `log_to` (`--log.json`; the demo's log file, its terminal kept for its own lines).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TextIO

import structlog

_configured = False


def configure_logging(level: str | None = None) -> None:
    """Configure structlog and the stdlib root logger. Safe to call more than once; only the first call acts."""
    global _configured
    if _configured:
        return
    _configured = True
    _configure(sys.stderr, json=os.environ.get("ARENA_LOG_JSON") == "1", level=level, replace=False)


def log_to(stream: TextIO, *, json: bool, level: str | None = None) -> None:
    """Send every log line (structlog's and the stdlib's, the stdlib's handlers replaced) to `stream`, as JSON lines
    or console lines (coloured only on a terminal); call it before the loggers it should reach are first used (they
    are cached then)."""
    global _configured
    _configured = True
    _configure(stream, json=json, level=level, replace=True)


def _configure(stream: TextIO, *, json: bool, level: str | None, replace: bool) -> None:
    level_name = (level or os.environ.get("ARENA_LOG_LEVEL", "INFO")).upper()
    numeric = logging.getLevelName(level_name)
    if not isinstance(numeric, int):
        numeric = logging.INFO
    processors: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]
    if json:
        processors += [structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]
    else:
        processors += [structlog.dev.ConsoleRenderer(colors=stream.isatty())]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(level=numeric, stream=stream, format="%(levelname)s %(name)s: %(message)s", force=replace)


def get_logger(name: str | None = None, **bound: object) -> structlog.stdlib.BoundLogger:
    """A structlog logger bound with ``logger=name`` and any context given."""
    log = structlog.get_logger(name)
    return log.bind(**bound) if bound else log


class _Tee:
    """stderr and a log file another process may rotate (rename away): the file is opened again whenever its path
    names another file, or none, so a rotated log is never written to after the rotation."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._fh: TextIO | None = None
        self._inode: int | None = None

    def write(self, text: str) -> int:
        sys.stderr.write(text)
        return self._file().write(text)

    def flush(self) -> None:
        sys.stderr.flush()
        if self._fh is not None:
            self._fh.flush()

    def _file(self) -> TextIO:
        try:
            inode: int | None = os.stat(self.path).st_ino
        except OSError:
            inode = None
        if self._fh is None or inode != self._inode:
            if self._fh is not None:
                self._fh.close()
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - kept open, reopened above
            self._inode = os.fstat(self._fh.fileno()).st_ino
        return self._fh


def log_to_file(path: str | os.PathLike[str]) -> None:
    """Also write the log to `path` (appended; reopened when it is rotated away). Call before the first log line."""
    configure_logging()
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(file=_Tee(path)))  # type: ignore[arg-type]
