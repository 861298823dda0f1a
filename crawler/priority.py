"""Rank-aware request priorities from the live published ranks (SPEC §5).

A link from page s to target t with weight w and anchor/block text T gets

    score = log2(1 + w · r(s)/r̄) + log2(1 + r(t)/r̄) + TOPIC_GAIN · topical(T)
    priority = round(PRIORITY_SCALE · score)

r(s) is the linking page's PageRank, r(t) the target's partial PageRank (linked-but-uncrawled pages
are dangling nodes of the ranked graph, so they already collect the votes of crawled pages), r̄
the mean cached rank, so 1 means "average" and the log keeps one hub from starving the frontier;
unknown pages count as average. topical(T) is the share of the topic terms occurring in T (0
without terms). Scrapy priorities are ints, higher first: with PRIORITY_SCALE = 100 an average
link scores 200, a fully topical one 400.

Follow ≠ count: a link that is followed but is no graph edge (navigation, template, boilerplate)
carries no vote of its page, so it scores log2(1 + r(t)/r̄) + TOPIC_GAIN · topical(T) −
FOLLOW_ONLY_OFFSET/PRIORITY_SCALE: below every content link unless its target's rank is more than
2^10 times the mean, so the crawl fetches content first and still reaches the whole site.

The target host's rank is not a term: it makes a crawl dig into the first-ranked hosts.

These priorities order the crawl under Scrapy's own scheduler (a user's ``SCHEDULER``) and under the
``static`` frontier; the other ``RANKCRAWL_FRONTIER`` strategies re-score queued URLs themselves
(``crawler/scheduler.py``) and this cache is then not started.

Ranks are read by a background thread (``RankQueries``) once per ``RANKCRAWL_RANK_REFRESH``
seconds and only when the published epoch changed; the reactor thread only reads the cached
dictionary, never Redis.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections.abc import Iterable

import redis

from rankcrawl.ranker.store.queries import RankQueries
from rankcrawl.settings.connection import RedisUnavailable, connect

logger = logging.getLogger(__name__)

PRIORITY_SCALE = 100
TOPIC_GAIN = 2.0
FOLLOW_ONLY_OFFSET = 10 * PRIORITY_SCALE
TOP_PAGES = 50_000
WORD = re.compile(r"\w+", re.UNICODE)


def topical(text: str, terms: frozenset[str]) -> float:
    """Share of the topic ``terms`` occurring (as lower-case words) in ``text``."""
    if not terms:
        return 0.0
    words = set(WORD.findall(text.lower()))
    return len(terms & words) / len(terms)


def score(page_rel: float, weight: float, target_rel: float, topic: float) -> int:
    """The integer priority of one link (the formula in the module docstring)."""
    s = math.log2(1.0 + max(weight, 0.0) * page_rel) + math.log2(1.0 + target_rel) + TOPIC_GAIN * topic
    return int(round(PRIORITY_SCALE * s))


class RankCache:
    """Per-epoch snapshot of the top pages' ranks, refreshed off the reactor."""

    def __init__(self, redis_url: str | None, prefix: str, refresh: float) -> None:
        self.redis_url, self.prefix, self.refresh = redis_url, prefix, refresh
        self.epoch: int | None = None
        self.pages: dict[str, float] = {}
        self.page_mean = 0.0
        self._queries: RankQueries | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rankcrawl-ranks", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Ask the (daemon) thread to stop; never waits on the reactor thread."""
        self._stop.set()

    def update(self) -> bool:
        """Read the published epoch once; reload the snapshot if it changed (blocking)."""
        self._queries = self._queries or RankQueries(connect(self.redis_url), self.prefix)
        epoch = self._queries.epoch()
        if epoch is None or epoch == self.epoch:
            return False
        pages = dict(self._queries.top(TOP_PAGES))
        self.pages, self.page_mean = pages, (sum(pages.values()) / len(pages) if pages else 0.0)
        self.epoch = epoch
        return True

    def _run(self) -> None:
        while not self._stop.wait(self.refresh):
            try:
                self.update()
            except (redis.RedisError, RedisUnavailable, OSError, RuntimeError) as exc:
                logger.debug("rankcrawl: ranks not refreshed: %s", exc)
            except Exception as exc:  # noqa: BLE001 - a corrupt value must not end the reader for the crawl
                logger.warning("rankcrawl: ranks not refreshed (%s: %s)", type(exc).__name__, str(exc)[:200])

    def page_rel(self, url: str) -> float:
        r = self.pages.get(url)
        return 1.0 if r is None or self.page_mean <= 0 else r / self.page_mean


class Prioritizer:
    """Priorities for a page's outgoing links from the cached ranks and the topic terms."""

    def __init__(self, cache: RankCache, topic_terms: Iterable[str] = ()) -> None:
        self.cache = cache
        self.terms = frozenset(t.lower() for t in topic_terms if t.strip())

    def priority(self, source_url: str, target_url: str, weight: float, text: str, counted: bool = True) -> int:
        """A link's priority; ``counted`` False (followed, no edge) drops the source's vote and
        subtracts FOLLOW_ONLY_OFFSET."""
        cache, topic = self.cache, topical(text, self.terms)
        if counted:
            return score(cache.page_rel(source_url), weight, cache.page_rel(target_url), topic)
        return score(0.0, 0.0, cache.page_rel(target_url), topic) - FOLLOW_ONLY_OFFSET
