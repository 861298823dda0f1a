"""The in-crawl ranker's reports: DEBUG log lines inside Scrapy's log, and the last epoch for the progress line."""

from __future__ import annotations

import logging
import time
from typing import Any

from rankcrawl.ranker.progress import Progress

log = logging.getLogger("rankcrawl.ranker")


class EpochLog(Progress):
    """``Progress`` for a ranker inside a crawl: every step at DEBUG, never a terminal spinner (the
    crawl's periodic line, ``ProgressLog``, shows the last epoch instead)."""

    def __init__(self) -> None:  # no Progress.__init__: it would open a rich console on a terminal
        self.console = None
        self.last: Any = None
        self.at = 0.0

    def _say(self, text: str) -> None:
        log.debug(text)

    def published(self, report: Any) -> None:
        self.last, self.at = report, time.monotonic()
        super().published(report)
