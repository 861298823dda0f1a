"""Levels of third-party loggers that flood a crawl's log at Scrapy's default ``LOG_LEVEL`` (DEBUG).

numba logs every step of every JIT compilation at DEBUG (tens of thousands of lines in a first
crawl). ``quiet_noisy_loggers`` raises such loggers to INFO when the add-on, a rankcrawl component or
a worker process starts; a level the user set on one of them (anything but NOTSET) stays.
"""

from __future__ import annotations

import logging

NOISY = ("numba",)
"""Loggers (with their children) whose DEBUG records say nothing about the crawl."""


def quiet_noisy_loggers() -> None:
    """Set each ``NOISY`` logger left at NOTSET to INFO."""
    for name in NOISY:
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.INFO)
