"""The deadline of one page's analysis: steps call ``check(step)``; ``budget.analyze_within`` sets it.

Budgets count ``clock()``: the CPU time of the analysing thread, so a page gets the same budget on
an idle machine and on a loaded one (on the wall clock, a shared 2-core box at load 8 cut 26 of
2,728 real documentation pages to their prefix, 3 when idle); a hostile page still spends its
budget as CPU time, and a sandboxed child is also bounded by wall time (``crawler/cli/sandbox.py``)."""

from __future__ import annotations

import time

CHECK_EVERY = 1024
"""Elements (or tags) a step handles between two deadline checks."""


clock = time.thread_time
"""Seconds of CPU time of the calling thread (the clock of every analysis budget)."""


class AnalysisTimeout(Exception):
    """The analysis of one page passed its deadline (``str(exc)`` names the step)."""


class Deadline:
    """A point on ``clock()``, ``seconds`` from its creation."""

    __slots__ = ("seconds", "at")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = clock() + seconds

    def check(self, step: str) -> None:
        """AnalysisTimeout once the deadline has passed."""
        if clock() > self.at:
            raise AnalysisTimeout(step)
