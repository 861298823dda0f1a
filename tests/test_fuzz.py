"""Seeded fuzz: a few hundred small hostile files through ``rankcrawl extract``'s per-file step.

The full-size run (>= 10,000 cases, gzip bombs inflating to GBs) is ``python -m bench.fuzz``; here
every generator runs at 2 % of its size with a 200 kB page cap, so the suite stays fast.
"""

from __future__ import annotations

from bench.fuzz import fuzz
from bench.hostile import KINDS
from rankcrawl.crawler.cli.sandbox import HARD_FACTOR


def test_hostile_files_never_crash_fail_or_hang() -> None:
    result = fuzz(300, seed=20261123, timeout=5.0, scale=0.02, max_bytes=200_000)
    outcomes = result["outcomes"]
    assert set(KINDS) <= set(outcomes)
    assert result["problems"] == []  # no crash, no unexpected analysis error, no hang
    total = sum(sum(c.values()) for c in outcomes.values())
    assert total == 300
    assert outcomes["random bytes"]["refused"] > 0  # binary content is still refused
    for kind in ("regex bomb", "bogus charset", "hostile hrefs", "NUL bytes", "UTF-16/32"):
        assert outcomes[kind]["refused"] == 0, (kind, outcomes[kind])  # pages, however odd, are analysed
    assert outcomes["FIFO"]["refused"] == 1
    slowest = max(t for ts in result["times"].values() for t in ts)
    assert slowest < HARD_FACTOR * 5.0 + 1.0  # the sandbox's kill bounds every file, however loaded the machine
