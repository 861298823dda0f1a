"""The deadline of one page's analysis: steps call ``check(step)``; ``budget.analyze_within`` sets it."""

from __future__ import annotations

import time

CHECK_EVERY = 1024
"""Elements (or tags) a step handles between two deadline checks."""


class AnalysisTimeout(Exception):
    """The analysis of one page passed its deadline (``str(exc)`` names the step)."""


class Deadline:
    """A point in time on the monotonic clock, ``seconds`` from its creation."""

    __slots__ = ("seconds", "at")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def check(self, step: str) -> None:
        """AnalysisTimeout once the deadline has passed."""
        if time.monotonic() > self.at:
            raise AnalysisTimeout(step)
