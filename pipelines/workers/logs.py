"""Log records of rankcrawl's worker processes, handled by the crawl process's own loggers.

A worker process (``forkserver``: the analysis workers) has no logging
configuration of its own, so its records would reach stderr through Python's last-resort handler,
past Scrapy's ``LOG_LEVEL``, ``LOG_FILE`` and format. ``capture(level)``, called by the worker's
initializer, keeps its records and ``warnings`` in a bounded buffer; ``traced(fn, *args)`` returns
``fn``'s result with the records logged since the previous call, and the crawl process passes them
to ``replay``. The records travel with the results, so no queue, thread or lock is shared between
processes and a killed worker cannot block the others (its last page's records are lost with it).
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable
from logging.handlers import QueueHandler
from typing import Any, TypeVar

from rankcrawl.settings.log_levels import quiet_noisy_loggers

T = TypeVar("T")

MAX_RECORDS = 100
"""Records a worker keeps between two results; later ones are counted and reported as dropped."""


class RecordBuffer(QueueHandler):
    """A worker's records, made ready to pickle (``QueueHandler.prepare``: message and traceback as text)."""

    def __init__(self) -> None:
        self.records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
        super().__init__(self.records)
        self.dropped = 0

    def enqueue(self, record: logging.LogRecord) -> None:
        if self.records.qsize() < MAX_RECORDS:
            self.records.put_nowait(record)
        else:
            self.dropped += 1

    def take(self) -> list[logging.LogRecord]:
        """The records kept so far (and a note of those dropped), oldest first; empties the buffer."""
        out = []
        while True:
            try:
                out.append(self.records.get_nowait())
            except queue.Empty:
                break
        if self.dropped:
            out.append(logging.makeLogRecord({
                "name": __name__, "levelno": logging.WARNING, "levelname": "WARNING",
                "msg": f"rankcrawl: {self.dropped} log records of a worker process dropped ({MAX_RECORDS} kept per page)"}))
            self.dropped = 0
        return out


_buffer: RecordBuffer | None = None


def capture(level: int) -> None:
    """In a worker process: keep its records at ``level`` and above, ``warnings`` included, for ``traced``."""
    global _buffer
    _buffer = RecordBuffer()
    root = logging.getLogger()
    root.handlers[:] = [_buffer]
    root.setLevel(level)
    quiet_noisy_loggers()
    logging.captureWarnings(True)


def traced(fn: Callable[..., T], *args: Any) -> tuple[T, list[logging.LogRecord]]:
    """``fn(*args)`` and the records logged in this process since the last ``traced`` call."""
    result = fn(*args)
    return result, _buffer.take() if _buffer is not None else []


def replay(records: list[logging.LogRecord]) -> None:
    """Hand a worker's records to this process's loggers of the same names (their levels and handlers decide)."""
    for record in records:
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)


def level() -> int:
    """The level worker processes capture at: that of this process's ``rankcrawl`` loggers."""
    return logging.getLogger("rankcrawl").getEffectiveLevel()
