"""``BatchedScheduler``: scrapy-redis's shared scheduler with one Redis round trip per batch, not per link.

scrapy-redis asks Redis synchronously, on the reactor thread, for every request: an ``SADD`` to the
dupefilter set for each link a page yields, then a ``ZADD`` to the frontier, and a ``MULTI`` of
``ZRANGE``/``ZREMRANGEBYRANK`` for each request the engine takes. In a distributed crawl those round
trips were a fifth of the crawl process's time. This scheduler keeps the same keys, wire format
(``rankcrawl.crawler.frontier``: JSON, checked before it becomes a request) and dupefilter set, but

* buffers enqueued requests and writes them in one Lua call per batch (``FLUSH_SIZE`` requests, or
  whenever the engine asks for the next request): for each request ``SADD`` its fingerprint and,
  only when it was new (or the request is ``dont_filter``), ``ZADD`` it — atomic, so two processes
  that find the same link never queue it twice;
* takes up to ``POP_SIZE`` requests per ``ZPOPMIN`` and hands them out one by one;
* while the frontier is empty, asks again every ``IDLE_POLL`` seconds (Scrapy's engine would ask
  only at its 5 s heartbeat, so work another process shares, or returns on closing, would wait);
* on close writes its buffer and puts the requests it took but did not hand out back in the
  frontier, so a stopped process loses nothing (a killed one loses at most ``POP_SIZE`` taken
  requests, as scrapy-redis loses the ones being downloaded).

Both keys carry the ``{crawl}`` hash tag, so the script also runs on a Redis Cluster.
Stats: scrapy-redis's ``scheduler/enqueued/redis`` and ``scheduler/dequeued/redis``, and
``rankcrawl/frontier/duplicates`` (requests the shared dupefilter had already seen).
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy import Request
from scrapy_redis.scheduler import Scheduler

logger = logging.getLogger(__name__)

FLUSH_SIZE = 256
"""Buffered requests that trigger a write (the engine's next ``next_request`` call writes fewer)."""
POP_SIZE = 8
"""Requests taken from the shared frontier per round trip."""
IDLE_POLL = 0.25
"""Seconds between looks at an empty shared frontier."""

ENQUEUE = """
local queued = 0
for i = 1, #ARGV, 3 do
    local fp = ARGV[i]
    if fp == '' or redis.call('SADD', KEYS[1], fp) == 1 then
        redis.call('ZADD', KEYS[2], ARGV[i + 1], ARGV[i + 2])
        queued = queued + 1
    end
end
return queued
"""


class BatchedScheduler(Scheduler):
    """scrapy-redis's ``Scheduler`` that writes and takes requests in batches."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outbox: dict[str, tuple[float, str]] = {}
        """Fingerprint (``""`` + a counter for dont_filter requests) → (score, encoded request)."""
        self.inbox: list[Request] = []
        self._unfiltered = 0
        self._enqueue: Any = None
        self._wake: Any = None

    def open(self, spider: Any) -> None:
        super().open(spider)
        self._enqueue = self.server.register_script(ENQUEUE)
        self.server.script_load(ENQUEUE)  # so the first batch is one EVALSHA (redis-py reloads it after a restart)

    def enqueue_request(self, request: Request) -> bool:
        """Buffer the request (JSON-encoded now, so an unstorable one is refused at once)."""
        try:
            data = self.queue._encode_request(request)
        except (TypeError, ValueError) as exc:
            self.queue._count("rankcrawl/frontier/unstorable")
            logger.warning("rankcrawl: request not queued, it cannot be stored as JSON (%s): %s", exc, request.url)
            return False
        if request.dont_filter:
            self._unfiltered += 1
            key = f"\0{self._unfiltered}"
        else:
            key = self.df.request_fingerprint(request)
            if key in self.outbox:
                return False
        self.outbox[key] = (-request.priority, data)
        if len(self.outbox) >= FLUSH_SIZE:
            self.flush_outbox()
        return True

    def flush_outbox(self) -> None:
        """Write the buffered requests: one Lua call (dupefilter check and frontier insert)."""
        if not self.outbox:
            return
        args: list[Any] = []
        for key, (score, data) in self.outbox.items():
            args += ["" if key.startswith("\0") else key, score, data]
        count = len(self.outbox)
        queued = int(self._enqueue(keys=[self.df.key, self.queue.key], args=args))
        self.outbox.clear()
        if self.stats:
            self.stats.inc_value("scheduler/enqueued/redis", queued)
            self.stats.inc_value("rankcrawl/frontier/duplicates", count - queued)

    def next_request(self) -> Request | None:
        self.flush_outbox()
        if not self.inbox:
            self.inbox = self._take(POP_SIZE)[::-1]
        if not self.inbox:
            self._poll_soon()
            return None
        if self.stats:
            self.stats.inc_value("scheduler/dequeued/redis")
        return self.inbox.pop()

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

    def _take(self, n: int) -> list[Request]:
        """Up to ``n`` best entries that decode to checked requests (bad ones dropped and counted)."""
        requests = []
        for data, _score in self.server.zpopmin(self.queue.key, n):
            try:
                requests.append(self.queue._decode_request(data))
            except Exception as exc:  # noqa: BLE001 - any failure to rebuild an entry means: skip it
                self.queue._count("rankcrawl/frontier/skipped")
                logger.warning("rankcrawl: skipped a frontier entry of %d bytes in %s: %s: %s",
                               len(data), self.queue.key, type(exc).__name__, str(exc)[:200])
        return requests

    def has_pending_requests(self) -> bool:
        return bool(self.inbox or self.outbox) or len(self.queue) > 0

    def __len__(self) -> int:
        return len(self.inbox) + len(self.outbox) + len(self.queue)

    def close(self, reason: str) -> None:
        """Write the buffer and return the requests taken but not handed out, then scrapy-redis's close."""
        if self._wake is not None and self._wake.active():
            self._wake.cancel()
        for request in self.inbox:
            self.queue.push(request)
        self.inbox.clear()
        self.flush_outbox()
        super().close(reason)
