"""``SharedFrontier``: the re-scoring frontier in Redis, one structure for every crawl process.

The in-process ``FrontierQueue`` laid out in Redis, every key under the ``{crawl}`` hash tag (one
Cluster slot) and every change one Lua script (atomic: two processes never take one entry):

* per host (download slot) a sorted set fingerprint → evidence (``Strategy.evidence``: in-link
  shares, cash, counts; ``static``: the priority), lowered by 1e-15 per insertion number so that
  equal evidence pops first-queued first;
* the frontier key itself: a sorted set host → the score of its best entry, which the strategy
  computes from that entry's evidence and the host's counts (``pagerank``: ``Strategy.estimate``
  of ``crawler/frontier_scores.py``, written out in Lua below and tested equal; the others: the
  evidence itself), recomputed whenever the host changes, so hosts compare exactly at every take;
* a hash fingerprint → the request as JSON (``crawler/frontier.py``: checked before it becomes a
  request, never unpickled), a hash of each host's counts — URLs queued (``q:``) and taken
  (``f:``), counted in-links (``l:``) and their summed shares (``s:``), the last two also over every
  host (``l:*``, ``s:*``) — and the insertion counter.

``enqueue`` writes a batch in one call: a fingerprint new to the dupefilter set is queued; one
already seen that still waits gets its in-link's evidence with ``ZINCRBY``. ``take`` pops the best
entries of hosts that are not busy in the calling process. ``add_evidence`` adds a published epoch's change to the
evidence of waiting entries (``ZINCRBY``, taken entries left out).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from scrapy import Request
from scrapy.utils.httpobj import urlparse_cached
from scrapy_redis.queue import Base

from rankcrawl.crawler.frontier import checked_request
from rankcrawl.crawler.frontier_scores import PRIOR_PAGES
from rankcrawl.settings.keys import FRONTIER_HOST, FRONTIER_HOSTS, FRONTIER_REQUESTS, FRONTIER_SEQ

logger = logging.getLogger(__name__)

COMMON = """
local heads, requests, counts = KEYS[1], KEYS[2], KEYS[3]
local strategy, alpha = ARGV[1], tonumber(ARGV[2])
local function host_key(host) return heads .. '@HOST@' .. host end
local function score(e, host)
    if strategy ~= 'pagerank' then return e end
    local c = redis.call('HMGET', counts, 'f:' .. host, 'q:' .. host, 'l:' .. host, 's:' .. host, 'l:*', 's:*')
    local f, q = math.max(tonumber(c[1]) or 0, 0), math.max(tonumber(c[2]) or 0, 0)
    local l, s, lc, sc = tonumber(c[3]) or 0, tonumber(c[4]) or 0, tonumber(c[5]) or 0, tonumber(c[6]) or 0
    local d = math.max(f + q, 1)
    local share = 1 / d
    if l > 0 and s > 0 then share = s / l elseif lc > 0 and sc > 0 then share = sc / lc end
    local prior = @PRIOR@ * math.min(1, 1 / (share * d))
    return (1 - alpha) + alpha * share * (d - f) * (e + prior) / (f + 1)
end
local function head(host)
    local top = redis.call('ZREVRANGE', host_key(host), 0, 0, 'WITHSCORES')
    if #top == 0 then
        redis.call('ZREM', heads, host)
    else
        redis.call('ZADD', heads, score(tonumber(top[2]), host), host)
    end
end
""".replace("@HOST@", FRONTIER_HOST).replace("@PRIOR@", repr(PRIOR_PAGES))
"""KEYS[1..3]: host heads, requests, host counts. ARGV[1..2]: strategy, alpha (the score of ``frontier_scores``)."""

ENQUEUE = COMMON + """
local n = (#ARGV - 2) / 7
local base = redis.call('INCRBY', KEYS[4], n) - n
local queued, rescored, new, dirty = 0, 0, {}, {}
for j = 0, n - 1 do
    local i = 3 + 7 * j
    local fp, host = ARGV[i], ARGV[i + 1]
    if tonumber(ARGV[i + 6]) > 0 then
        for _, h in ipairs({host, '*'}) do
            redis.call('HINCRBY', counts, 'l:' .. h, ARGV[i + 6])
            redis.call('HINCRBYFLOAT', counts, 's:' .. h, ARGV[i + 5])
        end
        dirty[host] = true
    end
    if string.sub(fp, 1, 1) == '!' or redis.call('SADD', KEYS[5], fp) == 1 then
        redis.call('ZADD', host_key(host), tonumber(ARGV[i + 2]) - (base + j + 1) * 1e-15, fp)
        redis.call('HSET', requests, fp, ARGV[i + 4])
        redis.call('HINCRBY', counts, 'q:' .. host, 1)
        queued = queued + 1
        new[#new + 1] = fp
        dirty[host] = true
    elseif tonumber(ARGV[i + 3]) ~= 0 and redis.call('ZSCORE', host_key(host), fp) then
        redis.call('ZINCRBY', host_key(host), ARGV[i + 3], fp)
        rescored = rescored + 1
        dirty[host] = true
    end
end
for host in pairs(dirty) do head(host) end
return {queued, rescored, unpack(new)}
"""
"""KEYS[4..5]: insertion counter, dupefilter. ARGV[3..]: (fingerprint, host, evidence, vote, JSON request,
summed shares and number of the counted in-links)*. Returns the counts queued and re-scored, then the
fingerprints queued."""

TAKE = COMMON + """
local busy, nbusy = {}, #ARGV - 3
for i = 4, #ARGV do busy[ARGV[i]] = true end
local out = {}
for _ = 1, tonumber(ARGV[3]) do
    local host = nil
    for _, h in ipairs(redis.call('ZREVRANGE', heads, 0, nbusy)) do
        if not busy[h] then host = h break end
    end
    if host == nil then break end
    local popped = redis.call('ZPOPMAX', host_key(host))
    if #popped == 0 then
        redis.call('ZREM', heads, host)
    else
        local fp, e = popped[1], tonumber(popped[2])
        local value = score(e, host)
        redis.call('HINCRBY', counts, 'q:' .. host, -1)
        redis.call('HINCRBY', counts, 'f:' .. host, 1)
        head(host)
        local data = redis.call('HGET', requests, fp)
        if data then
            redis.call('HDEL', requests, fp)
            out[#out + 1] = fp
            out[#out + 1] = tostring(value)
            out[#out + 1] = tostring(e)
            out[#out + 1] = host
            out[#out + 1] = data
        end
    end
end
return out
"""
"""ARGV[3]: how many; ARGV[4..]: hosts busy in the caller. Returns (fingerprint, score, evidence, host, JSON)*."""

RESCORE = COMMON + """
local dirty = {}
for i = 3, #ARGV, 3 do
    local key = host_key(ARGV[i + 1])
    if redis.call('ZSCORE', key, ARGV[i]) then
        redis.call('ZINCRBY', key, ARGV[i + 2], ARGV[i])
        dirty[ARGV[i + 1]] = true
    end
end
for host in pairs(dirty) do head(host) end
return 0
"""
"""ARGV[3..]: (fingerprint, host, change of evidence)*: waiting entries only (taken ones stay out)."""

PUT_BACK = COMMON + """
local dirty = {}
for i = 3, #ARGV, 4 do
    local fp, host = ARGV[i], ARGV[i + 1]
    redis.call('ZADD', host_key(host), ARGV[i + 2], fp)
    redis.call('HSET', requests, fp, ARGV[i + 3])
    redis.call('HINCRBY', counts, 'q:' .. host, 1)
    redis.call('HINCRBY', counts, 'f:' .. host, -1)
    dirty[host] = true
end
for host in pairs(dirty) do head(host) end
return 0
"""
"""ARGV[3..]: (fingerprint, host, evidence, JSON request)* taken and not handed out."""


class SharedFrontier(Base):
    """The shared frontier (module docstring); ``strategy``/``alpha`` are set by the scheduler."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.requests_key = self.key + FRONTIER_REQUESTS
        self.counts_key = self.key + FRONTIER_HOSTS
        self.seq_key = self.key + FRONTIER_SEQ
        self.strategy, self.alpha = "breadth-first", 0.85
        self.skipped = 0
        """Entries taken and dropped because they did not decode to checked requests."""
        self._scripts = {name: self.server.register_script(src) for name, src in
                         (("enqueue", ENQUEUE), ("take", TAKE), ("rescore", RESCORE), ("put_back", PUT_BACK))}
        for src in (ENQUEUE, TAKE, RESCORE, PUT_BACK):
            self.server.script_load(src)  # so each call is one EVALSHA (redis-py reloads them after a restart)

    def _run(self, name: str, keys: list[str], args: list[Any]) -> Any:
        return self._scripts[name](keys=[self.key, self.requests_key, self.counts_key, *keys],
                                   args=[self.strategy, self.alpha, *args])

    def _count(self, stat: str, n: int = 1) -> None:
        stats = getattr(getattr(self.spider, "crawler", None), "stats", None)
        if stats is not None and n:
            stats.inc_value(stat, n)

    def _decode_request(self, encoded_request: bytes) -> Request:
        return checked_request(self.serializer.loads(encoded_request), self.spider)

    def __len__(self) -> int:
        return int(self.server.hlen(self.requests_key))

    def clear(self) -> None:
        hosts = [k.decode() if isinstance(k, bytes) else k for k in self.server.zrange(self.key, 0, -1)]
        self.server.delete(self.key, self.requests_key, self.counts_key, self.seq_key,
                           *(self.key + FRONTIER_HOST + h for h in hosts))

    def enqueue(self, dupefilter_key: str,
                entries: Iterable[tuple[str, str, float, float, str, float, int]]) -> tuple[int, int, list[str]]:
        """Queue (fingerprint, host, evidence, vote, JSON request, summed shares and number of counted
        in-links) entries: new ones queued,
        waiting ones re-scored by their vote; every counted in-link counts for its host. Returns (queued,
        re-scored, fingerprints queued)."""
        args = [v for entry in entries for v in entry]
        if not args:
            return 0, 0, []
        out = self._run("enqueue", [self.seq_key, dupefilter_key], args)
        return int(out[0]), int(out[1]), [f.decode() if isinstance(f, bytes) else str(f) for f in out[2:]]

    def take(self, n: int, busy: Iterable[str] = ()) -> list[tuple[str, float, float, str, Request]]:
        """Up to ``n`` best entries of hosts not in ``busy``, atomically removed, as (fingerprint, score,
        evidence, host, request); entries that do not decode to checked requests are dropped and counted."""
        raw = self._run("take", [], [n, *busy])
        out = []
        for i in range(0, len(raw), 5):
            fp, value, e, host, data = raw[i:i + 5]
            try:
                out.append((fp.decode(), float(value), float(e), host.decode(), self._decode_request(data)))
            except Exception as exc:  # noqa: BLE001 - any failure to rebuild an entry means: skip it
                self.skipped += 1
                self._count("rankcrawl/frontier/skipped")
                logger.warning("rankcrawl: skipped a frontier entry of %d bytes in %s: %s: %s",
                               len(data), self.requests_key, type(exc).__name__, str(exc)[:200])
        return out

    def evidence_of(self, entries: list[tuple[str, str]]) -> dict[str, float]:
        """The current evidence of (fingerprint, host) entries that still wait (taken ones are left out)."""
        out: dict[str, float] = {}
        for i in range(0, len(entries), 1000):
            chunk = entries[i:i + 1000]
            pipe = self.server.pipeline(transaction=False)
            for fp, host in chunk:
                pipe.zscore(self.key + FRONTIER_HOST + host, fp)
            for (fp, _host), value in zip(chunk, pipe.execute()):
                if value is not None:
                    out[fp] = float(value)
        return out

    def add_evidence(self, entries: list[tuple[str, str, float]]) -> None:
        """Add to the evidence of waiting (fingerprint, host, change) entries (``ZINCRBY``: votes written
        meanwhile stay)."""
        for i in range(0, len(entries), 1000):
            self._run("rescore", [], [v for entry in entries[i:i + 1000] for v in entry])

    def put_back(self, entries: list[tuple[str, str, float, str]]) -> None:
        """Return (fingerprint, host, evidence, JSON request) entries taken but not handed out."""
        if entries:
            self._run("put_back", [], [v for entry in entries for v in entry])

    def push(self, request: Request, score: float = 0.0) -> None:
        """Queue one request (scrapy-redis's queue interface; no dupefilter: the fingerprint starts with ``!``)."""
        try:
            data = self._encode_request(request)
        except (TypeError, ValueError) as exc:
            self._count("rankcrawl/frontier/unstorable")
            logger.warning("rankcrawl: request not queued, it cannot be stored as JSON (%s): %s", exc, request.url)
            return
        fp = "!" + self.spider.crawler.request_fingerprinter.fingerprint(request).hex()
        host = urlparse_cached(request).hostname or ""
        self.enqueue(self.key, [(fp, host, score, 0.0, data, 0.0, 0)])

    def pop(self, timeout: int = 0) -> Request | None:
        """The best entry as a request; None when the frontier is empty or that entry was bad (dropped)."""
        taken = self.take(1)
        return taken[0][4] if taken else None
