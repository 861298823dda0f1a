"""``BatchedScheduler``: the re-scoring frontier shared through Redis by every crawl process.

``RANKCRAWL_DISTRIBUTED`` makes it the ``SCHEDULER``. It keeps scrapy-redis's settings, dupefilter
set and idle handling; the frontier is ``SharedFrontier`` (``crawler/shared_frontier.py``): per
host a sorted set of queued URLs by evidence and one sorted set of hosts by the score of their best
URL, scored as the in-process ``RankedScheduler`` scores (``RANKCRAWL_FRONTIER``).

* Enqueued requests are buffered and written in one Lua call per batch (``FLUSH_SIZE`` requests,
  or whenever the engine asks for the next request): the dupefilter check, the insert of new URLs
  and the in-link evidence of URLs still waiting (``ZINCRBY``), atomic, so two processes that find
  one link queue it once and both votes count.
* With ``pagerank``, the process's ``RankFeed`` thread re-scores the waiting entries this process
  queued from each published epoch: it reads their current evidence and adds the epoch's change
  (``ZINCRBY`` of waiting entries only), so in-link votes written meanwhile by any process stay.
* With ``pagerank``, an in-link also raises the sibling evidence (``crawler/sibling_urls.py``) of the
  URLs of its target's group that this process queued and that still wait (a vote in the same
  write); each process counts the in-links it finds, so with several processes a URL's sibling
  evidence is that of the links its own process found.
* A re-scoring frontier takes nothing while ``RANKCRAWL_ANALYSIS_BACKLOG`` of this process's
  fetched pages await analysis (as ``RankedScheduler``).
* Requests are taken ``POP_SIZE`` at a time from hosts that are not busy here, by one Lua call:
  no entry is handed to two processes. Taken entries wait in a local ``FrontierQueue`` until their
  download slot has room.
* While the frontier is empty, it asks again every ``IDLE_POLL`` seconds; on close it writes its
  buffer and puts the entries it took but did not hand out back (a killed process loses at most
  ``HELD_MAX`` taken requests, as scrapy-redis loses the ones being downloaded).

Stats: ``scheduler/enqueued/redis``, ``scheduler/dequeued/redis``, ``rankcrawl/frontier/duplicates``
(requests the shared dupefilter had seen), ``rankcrawl/frontier/rescored``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Hashable
from typing import Any

from scrapy import Request
from scrapy_redis.scheduler import Scheduler

from rankcrawl.crawler.frontier_queue import FrontierQueue
from rankcrawl.crawler.frontier_scores import VALUE_META, Strategy, epoch_evidence, strategy
from rankcrawl.crawler.rank_feed import RankFeed
from rankcrawl.crawler.scheduler import awaiting_analysis, busy_slots, download_slot, first_evidence, link_evidence, link_score, queued_score
from rankcrawl.crawler.shared_frontier import SharedFrontier
from rankcrawl.crawler.sibling_urls import Group, SiblingTally, sibling_group
from rankcrawl.settings.config import RankcrawlConfig

logger = logging.getLogger(__name__)

FLUSH_SIZE = 256
"""Buffered requests that trigger a write (the engine's next ``next_request`` call writes fewer)."""
POP_SIZE = 1
"""Requests taken from the shared frontier per round trip."""
TAKE_TRIES = 8
"""Takes per request at most while the entries taken are bad ones (dropped): then the engine asks later."""
HELD_MAX = 4 * POP_SIZE
"""Taken requests a process holds at most while their slots are busy."""
IDLE_POLL = 0.25
"""Seconds between looks at an empty shared frontier."""
UNFILTERED = "!"
"""Prefix of the fingerprint-like ids of ``dont_filter`` requests (never in the dupefilter)."""

class BatchedScheduler(Scheduler):
    """scrapy-redis's ``Scheduler`` with the re-scoring shared frontier, written and taken in batches."""

    queue: SharedFrontier

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outbox: dict[str, list[Any]] = {}
        """Fingerprint → [evidence, vote, JSON request, URL, host, summed shares and number of counted in-links]."""
        self.held = FrontierQueue()
        self.held_evidence: dict[str, float] = {}
        self.mine: dict[str, str] = {}
        """Fingerprint → host of the entries this process queued (its epoch updates)."""
        self.siblings: SiblingTally | None = None
        """The sibling groups of the URLs this process queued and the in-links it found (its own view)."""
        self.strategy: Strategy = strategy("breadth-first")
        self.backlog = 0
        """Pages awaiting analysis at which ``next_request`` waits (``RankedScheduler.backlog``)."""
        self.feed: RankFeed | None = None
        self._wake: Any = None
        self._downloader: Any = None

    def open(self, spider: Any) -> None:
        super().open(spider)
        crawler = spider.crawler
        config = RankcrawlConfig.of(crawler)
        self.strategy = strategy(config.frontier, config.alpha)
        self.queue.strategy, self.queue.alpha = self.strategy.name, self.strategy.alpha
        self.siblings = SiblingTally() if self.strategy.uses_siblings else None
        self.backlog = config.backlog if self.strategy.rescores else 0
        try:
            self._downloader = crawler.engine.downloader
        except (AttributeError, RuntimeError):
            self._downloader = None
        if self.strategy.uses_ranks:
            self.feed = RankFeed(config.redis_url, config.key_prefix, config.rank_refresh, sink=self._write_ranks)
            self.feed.start()

    def _write_ranks(self, epoch: int, ranks: list[tuple[Hashable, float]]) -> None:
        """Feed thread: the epoch's evidence for the waiting entries this process queued."""
        mine = self.mine
        ranked = [(str(k), host, r) for k, r in ranks if (host := mine.get(str(k))) is not None]
        current = self.queue.evidence_of([(k, host) for k, host, _ in ranked])
        items = [(k, host, r, current[k]) for k, host, r in ranked if k in current]
        new = epoch_evidence(items)
        self.queue.add_evidence([(k, host, new[k] - ev) for k, host, _, ev in items if new[k] != ev])

    def enqueue_request(self, request: Request) -> bool:
        """Buffer the request (JSON-encoded now, so an unstorable one is refused at once)."""
        evidence = link_evidence(request)
        strat = self.strategy
        ev = first_evidence(strat, request, evidence)
        vote = ev if strat.rescores else 0.0
        stored = queued_score(strat, ev, request.priority)
        share = evidence[1] if evidence is not None and strat.uses_hosts else 0.0
        slot = download_slot(request, self._downloader)
        if request.dont_filter:
            key = UNFILTERED + uuid.uuid4().hex
        else:
            key = self.df.request_fingerprint(request)
            if self.siblings is not None:
                stored += self._sibling_votes(slot, sibling_group(slot, request.url), key,
                                              link_score(strat, evidence) if evidence is not None else 0.0, ev)
            if key in self.outbox:
                held = self.outbox[key]
                held[0] += vote
                held[1] += vote
                held[5] += share
                held[6] += share > 0
                return False
        try:
            data = self.queue._encode_request(request)
        except (TypeError, ValueError) as exc:
            self.queue._count("rankcrawl/frontier/unstorable")
            logger.warning("rankcrawl: request not queued, it cannot be stored as JSON (%s): %s", exc, request.url)
            return False
        self.outbox[key] = [stored, vote, data, request.url, slot, share, int(share > 0)]
        if len(self.outbox) >= FLUSH_SIZE:
            self.flush_outbox()
        return True

    def _sibling_votes(self, slot: str, group: Group | None, key: str, added: float, own: float) -> float:
        """Count an in-link of evidence ``added`` to ``key``'s group, vote its gain to the siblings this process
        queued and that still wait (``ZINCRBY`` in the next write), and return ``key``'s own sibling evidence
        (what it starts with if it is new)."""
        assert self.siblings is not None
        if group is None:
            return 0.0
        if added > 0:
            self.siblings.linked(group, added)
            gain = self.siblings.gain(group, added)
            for other in self.siblings.others(group, key):
                held = self.outbox.setdefault(str(other), [0.0, 0.0, "", "", slot, 0.0, 0])
                held[0] += gain
                held[1] += gain
        return self.siblings.evidence(group, own) if key not in self.outbox else 0.0

    def flush_outbox(self) -> None:
        """Write the buffered requests: one Lua call (dupefilter check, insert or vote)."""
        if not self.outbox:
            return
        entries = [(key, host, stored, vote, data, share, links)
                   for key, (stored, vote, data, _url, host, share, links) in self.outbox.items()]
        queued, rescored, new = self.queue.enqueue(self.df.key, entries)
        for key in new:
            stored, _vote, _data, url, host, _share, _links = self.outbox[key]
            if self.siblings is not None:
                self.siblings.queued(sibling_group(host, url), key)
            if self.feed is not None:
                self.mine[key] = host
                self.feed.queued.append((key, url))
        count = len(self.outbox)
        self.outbox.clear()
        if self.stats:
            self.stats.inc_value("scheduler/enqueued/redis", queued)
            self.stats.inc_value("rankcrawl/frontier/duplicates", count - queued)
            self.stats.inc_value("rankcrawl/frontier/rescored", rescored)

    def next_request(self) -> Request | None:
        self.flush_outbox()
        if awaiting_analysis(self.spider.crawler, self.backlog):
            return None
        busy = busy_slots(self._downloader)
        entry = self.held.pop(busy)
        if entry is None and len(self.held) < HELD_MAX:
            full = [slot for slot in getattr(self._downloader, "slots", {}) if busy(slot)]
            for _ in range(TAKE_TRIES):
                skipped = self.queue.skipped
                for fp, value, ev, host, taken in self.queue.take(POP_SIZE, full):
                    if fp not in self.held:
                        self.held.push(fp, host, value, taken)
                        self.held_evidence[fp] = ev
                if self.held or self.queue.skipped == skipped:
                    break
            entry = self.held.pop(busy)
        if entry is None:
            if not self.held:
                self._poll_soon()
            return None
        self.held_evidence.pop(str(entry.key), None)
        if self.siblings is not None:
            self.siblings.taken(sibling_group(entry.slot, entry.payload.url), str(entry.key))
        if self.feed is not None:
            self.mine.pop(str(entry.key), None)
            self.feed.taken.append(entry.key)
        if self.stats:
            self.stats.inc_value("scheduler/dequeued/redis")
        request: Request = entry.payload
        request.meta[VALUE_META] = entry.score
        return request

    def _poll_soon(self) -> None:
        """Wake the engine's request loop in ``IDLE_POLL`` s (its ``nextcall``: Scrapy has no public call
        for it; without one, as on another Scrapy, the engine's own heartbeat still polls)."""
        from twisted.internet import reactor as installed

        reactor: Any = installed
        try:
            schedule = self.spider.crawler.engine._slot.nextcall.schedule
        except (AttributeError, RuntimeError):  # no running engine (or another Scrapy's internals)
            return
        if self._wake is None or not self._wake.active():
            self._wake = reactor.callLater(IDLE_POLL, schedule)

    def has_pending_requests(self) -> bool:
        return bool(self.held or self.outbox) or len(self.queue) > 0

    def __len__(self) -> int:
        return len(self.held) + len(self.outbox) + len(self.queue)

    def close(self, reason: str) -> None:
        """Write the buffer and return the entries taken but not handed out, then scrapy-redis's close."""
        if self._wake is not None and self._wake.active():
            self._wake.cancel()
        if self.feed is not None:
            self.feed.stop()
        back = []
        for entry in list(self.held):
            try:
                back.append((str(entry.key), entry.slot, self.held_evidence.get(str(entry.key), 0.0),
                             self.queue._encode_request(entry.payload)))
            except (TypeError, ValueError):
                self.queue._count("rankcrawl/frontier/unstorable")
        self.queue.put_back(back)
        self.held = FrontierQueue()
        self.flush_outbox()
        super().close(reason)
