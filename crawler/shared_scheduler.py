"""``BatchedScheduler``: the re-scoring frontier shared through Redis by every crawl process.

``RANKCRAWL_DISTRIBUTED`` makes it the ``SCHEDULER``. It keeps scrapy-redis's settings, dupefilter
set and idle handling, and stores the frontier as ``SharedFrontier`` (``crawler/frontier.py``): a
sorted set of fingerprints scored as the in-process ``RankedScheduler`` scores its entries
(``RANKCRAWL_FRONTIER``, ``crawler/frontier_scores.py``) and a hash of their JSON requests.

* Enqueued requests are buffered and written in one Lua call per batch (``FLUSH_SIZE`` requests,
  or whenever the engine asks for the next request): for each, ``SADD`` its fingerprint to the
  dupefilter; a new one is ``ZADD``-ed with its first score and its request stored; one already
  seen that still waits in the frontier gets its in-link vote with ``ZINCRBY`` (the same round trip
  as the dupefilter check) — atomic, so two processes that find one link queue it once and both
  votes count.
* Scores use this process's view of the hosts (the URLs it queued and took) and, with ``pagerank``,
  its ``RankFeed`` thread re-scores the entries this process queued from each published epoch with
  ``ZADD XX`` (only entries still waiting change). Unlike the in-process frontier, entries are not
  re-scored as their host's counts move between epochs.
* Requests are taken ``POP_SIZE`` at a time by one Lua call (``ZPOPMAX`` and the request's
  ``HGET``/``HDEL``): no entry is handed to two processes. Taken entries wait in a local
  ``FrontierQueue`` so that a busy download slot does not block the others.
* While the frontier is empty, it asks again every ``IDLE_POLL`` seconds; on close it writes its
  buffer and puts the entries it took but did not hand out back (a killed process loses at most
  ``POP_SIZE`` taken requests, as scrapy-redis loses the ones being downloaded).

Every key carries the ``{crawl}`` hash tag, so the scripts also run on a Redis Cluster.
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
from rankcrawl.crawler.frontier_scores import VALUE_META, HostTally, Strategy, epoch_evidence, strategy
from rankcrawl.crawler.rank_feed import RankFeed
from rankcrawl.crawler.scheduler import link_evidence
from rankcrawl.settings.config import RankcrawlConfig

logger = logging.getLogger(__name__)

FLUSH_SIZE = 256
"""Buffered requests that trigger a write (the engine's next ``next_request`` call writes fewer)."""
POP_SIZE = 8
"""Requests taken from the shared frontier per round trip."""
HELD_MAX = 4 * POP_SIZE
"""Taken requests a process holds at most while their slots are busy."""
IDLE_POLL = 0.25
"""Seconds between looks at an empty shared frontier."""
UNFILTERED = "!"
"""Prefix of the fingerprint-like ids of ``dont_filter`` requests (never in the dupefilter)."""

ENQUEUE = """
local queued, rescored = 0, 0
local new = {}
local n = #ARGV / 4
local base = redis.call('INCRBY', KEYS[4], n) - n
for i = 1, #ARGV, 4 do
    local fp = ARGV[i]
    if string.sub(fp, 1, 1) == '!' or redis.call('SADD', KEYS[1], fp) == 1 then
        redis.call('ZADD', KEYS[2], tonumber(ARGV[i + 1]) - (base + (i + 3) / 4) * 1e-15, fp)
        redis.call('HSET', KEYS[3], fp, ARGV[i + 3])
        queued = queued + 1
        new[#new + 1] = fp
    elseif tonumber(ARGV[i + 2]) ~= 0 and redis.call('ZSCORE', KEYS[2], fp) then
        redis.call('ZINCRBY', KEYS[2], ARGV[i + 2], fp)
        rescored = rescored + 1
    end
end
return {queued, rescored, unpack(new)}
"""
"""KEYS: dupefilter, frontier, its requests, its insertion counter. ARGV: (fingerprint, first score, vote,
JSON request)*. Returns the counts, then the fingerprints queued. A new entry's score is lowered by 1e-15 per insertion number, so equal scores pop
first-inserted first (breadth-first), far below any vote."""


class BatchedScheduler(Scheduler):
    """scrapy-redis's ``Scheduler`` with the re-scoring shared frontier, written and taken in batches."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outbox: dict[str, list[Any]] = {}
        """Fingerprint → [first score, summed vote, JSON request, URL]."""
        self.held = FrontierQueue()
        self.tally = HostTally()
        """This process's view of the hosts: URLs it queued, URLs it took."""
        self.mine: dict[str, tuple[str, float]] = {}
        """Fingerprint → (slot, evidence) of the entries this process queued (its epoch updates)."""
        self.strategy: Strategy = strategy("breadth-first")
        self.feed: RankFeed | None = None
        self._enqueue: Any = None
        self._wake: Any = None
        self._downloader: Any = None

    def open(self, spider: Any) -> None:
        super().open(spider)
        crawler = spider.crawler
        config = RankcrawlConfig.of(crawler)
        self.strategy = strategy(config.frontier, config.alpha)
        self._enqueue = self.server.register_script(ENQUEUE)
        self.server.script_load(ENQUEUE)  # so the first batch is one EVALSHA (redis-py reloads it after a restart)
        try:
            self._downloader = crawler.engine.downloader
        except (AttributeError, RuntimeError):
            self._downloader = None
        if self.strategy.uses_ranks:
            self.feed = RankFeed(config.redis_url, config.key_prefix, config.rank_refresh, sink=self._write_ranks)
            self.feed.start()

    def _write_ranks(self, epoch: int, ranks: list[tuple[Hashable, float]]) -> None:
        """Feed thread: re-score the waiting entries this process queued from the epoch (``ZADD XX``:
        entries taken meanwhile stay out)."""
        mine = self.mine
        items = [(k, row[0], r, row[1]) for k, r in ranks if (row := mine.get(str(k))) is not None]
        new = epoch_evidence(items)
        scores = {str(k): self.strategy.score(ev, 0, self.tally.of(mine[str(k)][0])) for k, ev in new.items()}
        pairs = list(scores.items())
        for i in range(0, len(pairs), 1000):
            self.server.zadd(self.queue.key, dict(pairs[i:i + 1000]), xx=True)

    def enqueue_request(self, request: Request) -> bool:
        """Buffer the request (JSON-encoded now, so an unstorable one is refused at once)."""
        evidence = link_evidence(request)
        strat, slot = self.strategy, self._slot(request)
        if evidence is not None:
            ev = strat.evidence(*evidence)
        else:  # a start request, else a spider's request without evidence
            ev = strat.seed_evidence() if "depth" not in request.meta else 0.0
        hosts = self.tally.of(slot)
        first = strat.score(ev, request.priority, hosts)
        vote = strat.score(ev, request.priority, hosts) - strat.score(0.0, request.priority, hosts) if strat.rescores else 0.0
        if request.dont_filter:
            key = UNFILTERED + uuid.uuid4().hex
        else:
            key = self.df.request_fingerprint(request)
            if key in self.outbox:
                held = self.outbox[key]
                held[0] += vote
                held[1] += vote
                return False
        try:
            data = self.queue._encode_request(request)
        except (TypeError, ValueError) as exc:
            self.queue._count("rankcrawl/frontier/unstorable")
            logger.warning("rankcrawl: request not queued, it cannot be stored as JSON (%s): %s", exc, request.url)
            return False
        self.outbox[key] = [first, vote, data, request.url, slot, ev]
        if len(self.outbox) >= FLUSH_SIZE:
            self.flush_outbox()
        return True

    def flush_outbox(self) -> None:
        """Write the buffered requests: one Lua call (dupefilter check, insert or vote)."""
        if not self.outbox:
            return
        args: list[Any] = []
        for key, (first, vote, data, *_) in self.outbox.items():
            args += [key, first, vote, data]
        keys = [self.df.key, self.queue.key, self.queue.requests_key, self.queue.seq_key]
        new = self._enqueue(keys=keys, args=args)
        queued, rescored = int(new[0]), int(new[1])
        for key in new[2:]:
            key = key.decode() if isinstance(key, bytes) else str(key)
            _f, _v, _d, url, slot, ev = self.outbox[key]
            self.tally.queued(slot)
            if self.feed is not None:
                self.mine[key] = (slot, ev)
                self.feed.queued.append((key, url))
        count = len(self.outbox)
        self.outbox.clear()
        if self.stats:
            self.stats.inc_value("scheduler/enqueued/redis", queued)
            self.stats.inc_value("rankcrawl/frontier/duplicates", count - queued)
            self.stats.inc_value("rankcrawl/frontier/rescored", rescored)

    def _busy(self, slot: str) -> bool:
        slots = getattr(self._downloader, "slots", None)
        s = slots.get(slot) if slots else None
        return s is not None and len(s.active) >= s.concurrency

    def _slot(self, request: Request) -> str:
        if self._downloader is not None:
            return str(self._downloader.get_slot_key(request))
        return str(request.meta.get("download_slot") or request.url.split("/", 3)[2:3] or [""])

    def next_request(self) -> Request | None:
        self.flush_outbox()
        entry = self.held.pop(self._busy)
        if entry is None and len(self.held) < HELD_MAX:
            for fp, score, taken in self.queue.take(POP_SIZE):
                if fp not in self.held:
                    self.held.push(fp, self._slot(taken), score, taken)
            entry = self.held.pop(self._busy)
        if entry is None:
            if not self.held:
                self._poll_soon()
            return None
        self.tally.taken(entry.slot)
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
                back.append((str(entry.key), entry.score, self.queue._encode_request(entry.payload)))
            except (TypeError, ValueError):
                self.queue._count("rankcrawl/frontier/unstorable")
        self.queue.put_back(back)
        self.held = FrontierQueue()
        self.flush_outbox()
        super().close(reason)
