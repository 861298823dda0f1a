"""``RankedScheduler``: Scrapy's scheduler with a frontier that evidence re-orders while URLs wait.

The add-on makes it the ``SCHEDULER`` (a user's own ``SCHEDULER`` stays). Every URL not yet handed
out has one entry in a ``FrontierQueue`` whose score follows ``RANKCRAWL_FRONTIER``
(``crawler/frontier_scores.py``):

* a request for a URL already queued is no duplicate to drop: its in-link evidence (the
  ``rankcrawl_link`` meta the follow middleware sets: the linking page's value, the link's share of
  its vote and its topic boost from ``RANKCRAWL_TOPIC_TERMS``) raises the queued entry's score, and
  the request itself is discarded;
* a request for a URL handed out before is dropped by the ``DUPEFILTER_CLASS`` filter, as in
  Scrapy's scheduler (``dont_filter`` requests always get an entry of their own), its in-link counted
  for the URL's host and siblings; a link to a URL handed out under that exact URL is credited so
  without a request (``credit``) where the filter is Scrapy's own;
* with ``pagerank``, a ``RankFeed`` thread reads the published ranks of the queued URLs once per
  epoch and the reactor thread applies them at its next ``next_request``, never waiting on Redis.

``next_request`` pops the best entry whose download slot has a free place (its requests in the
downloader below the slot's concurrency), so a busy host never holds the others back; it returns
None while every queued slot is full, and the engine asks again when a download ends. A
re-scoring frontier also returns None while ``RANKCRAWL_ANALYSIS_BACKLOG`` fetched pages await
analysis (``awaiting_analysis``): the evidence those pages carry would come too late for the URLs
handed out meanwhile, and analysis, not fetching, sets the crawl's pace; the engine asks again as
each page's processing ends. The
handed-out request carries its entry's score in ``rankcrawl_value`` (the value its page hands on
to its links).

With ``JOBDIR`` the queue is written at close to ``JOBDIR/rankcrawl-frontier.jsonl`` (JSON, never
pickle: a line of the host counts, then one line per entry with its evidence and the request as
``Request.to_dict``) and read back at open, and the dupefilter keeps its ``requests.seen`` as in
Scrapy's scheduler: a resumed crawl continues with the same queue and scores.

Stats: ``scheduler/enqueued``, ``scheduler/dequeued``, ``rankcrawl/frontier/rescored`` (evidence
applied to a queued entry), ``rankcrawl/frontier/ranked`` (entries set from a published epoch),
``rankcrawl/frontier/epochs``, ``rankcrawl/frontier/unstorable`` (requests a JOBDIR cannot hold).
"""

from __future__ import annotations

import json
import logging
import math
from collections import Counter
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from scrapy import Request, Spider
from scrapy.core.scheduler import BaseScheduler
from scrapy.dupefilters import RFPDupeFilter
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.job import job_dir
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy.utils.request import RequestFingerprinter

from rankcrawl.crawler.frontier import FrontierEntryError, checked_request, dumps, loads
from rankcrawl.crawler.frontier_queue import FrontierQueue
from rankcrawl.crawler.frontier_scores import LINK_META, VALUE_META, HostTally, Strategy, epoch_evidence, strategy
from rankcrawl.crawler.rank_feed import RankFeed
from rankcrawl.crawler.sibling_urls import Group, SiblingTally, sibling_group
from rankcrawl.settings.config import RankcrawlConfig, per_crawler

logger = logging.getLogger(__name__)

STATE_FILE = "rankcrawl-frontier.jsonl"
HANDED_KEPT = 1_000_000
"""Handed-out URLs ``credit`` knows (one dict entry each); links to the later ones are requested, and
dropped by the dupefilter, as in Scrapy's scheduler."""


def link_evidence(request: Request) -> tuple[float, float, float] | None:
    """The (value, share, topic boost) of the in-link a request carries, or None (a start or spider
    request). The meta is removed: a queued request carries nothing more than Scrapy's own."""
    return link_evidence_of(request.meta.pop(LINK_META, None))


def link_evidence_of(raw: object) -> tuple[float, float, float] | None:
    """A ``rankcrawl_link`` meta value as (value, share, topic boost), or None where it is malformed."""
    if not isinstance(raw, (list, tuple)) or len(raw) not in (2, 3):
        return None
    try:
        value, share, boost = float(raw[0]), float(raw[1]), float(raw[2]) if len(raw) == 3 else 1.0
    except (TypeError, ValueError):
        return None
    if not (0.0 <= value < math.inf and 0.0 <= share <= 1.0 and 1.0 <= boost < math.inf):
        return None
    return value, share, boost


def link_score(strat: Strategy, evidence: tuple[float, float, float]) -> float:
    """The evidence one in-link adds, raised by its topic boost (``RANKCRAWL_TOPIC_TERMS``)."""
    value, share, boost = evidence
    return strat.evidence(value, share) * boost


def first_evidence(strat: Strategy, request: Request, evidence: tuple[float, float, float] | None) -> float:
    """The evidence of a URL when it is queued: its in-link's, a start request's (no depth yet: it
    left no response), else none (a spider's own request without evidence)."""
    if evidence is not None:
        return link_score(strat, evidence)
    return strat.seed_evidence() if "depth" not in request.meta else 0.0


def queued_score(strat: Strategy, evidence: float, priority: int) -> float:
    """What a frontier orders an entry by within its slot: its score, or its evidence (``uses_hosts``:
    the host's counts turn it into the score hosts are compared by)."""
    return evidence if strat.uses_hosts else strat.score(evidence, priority)


def download_slot(request: Request, downloader: Any) -> str:
    """The request's download slot: the downloader's key for it, else (no engine) its host name."""
    if downloader is not None:
        return str(downloader.get_slot_key(request))
    return str(request.meta.get("download_slot") or urlparse_cached(request).hostname or "")


def awaiting_analysis(crawler: Any, backlog: int) -> bool:
    """Whether ``backlog`` (0: never) or more responses are held by the engine's scraper: waiting for the
    spider, or in it and its middlewares, where ``FollowMiddleware`` awaits their analysis."""
    if not backlog:
        return False
    try:
        slot = crawler.engine.scraper.slot
    except (AttributeError, RuntimeError):  # no engine (yet), or another Scrapy's internals
        return False
    return slot is not None and len(slot.queue) + len(slot.active) >= backlog


def busy_slots(downloader: Any) -> Callable[[str], bool]:
    """A predicate: whether a slot's downloads fill its concurrency (a request for it would only wait
    there). Counted over the downloader's ``active`` requests, which a request joins as soon as the engine
    takes it (a slot's own ``active`` only after the downloader middlewares ran)."""
    if downloader is None:
        return lambda slot: False
    load = Counter(download_slot(r, downloader) for r in downloader.active)
    default = getattr(downloader, "ip_concurrency", 0) or getattr(downloader, "domain_concurrency", 0)

    def busy(slot: str) -> bool:
        s = downloader.slots.get(slot)
        return load[slot] >= (s.concurrency if s is not None else default) > 0

    return busy


class RankedScheduler(BaseScheduler):
    """A scheduler whose queued URLs are re-scored by in-links and published ranks (module docstring)."""

    def __init__(self, crawler: Any, dupefilter: Any, strat: Strategy, feed: RankFeed | None, jobdir: str | None,
                 backlog: int = 0) -> None:
        self.crawler, self.df, self.strategy, self.feed = crawler, dupefilter, strat, feed
        self.backlog = backlog if strat.rescores else 0
        """Pages awaiting analysis at which ``next_request`` waits (0: never)."""
        self.stats = crawler.stats
        self.jobdir = jobdir
        self.evidence: dict[Hashable, float] = {}
        """Per queued key, its evidence (``Strategy.evidence`` of its in-links, or of an epoch)."""
        self.tally = HostTally()
        self.siblings = SiblingTally() if strat.uses_siblings else None
        self.groups: dict[Hashable, Group] = {}
        """Per queued key with a sibling group, the group (computed once, when the key is queued)."""
        self.queued_urls: dict[str, Hashable] = {}
        """The URL of every queued request (not ``dont_filter``) → its key (``credit``)."""
        self.handed: dict[str, tuple[str, Group | None, Hashable]] = {}
        """The URL of every handed-out request that a link's request would duplicate exactly → (its slot,
        sibling group, key) (``credit``): Scrapy's dupefilter and fingerprinter hold it, and it was a plain
        GET (no body, no ``dont_filter``, no ``download_slot`` of its own)."""
        self._exact = type(dupefilter) is RFPDupeFilter and type(getattr(crawler, "request_fingerprinter", None)) is RequestFingerprinter
        self._dropped = 0
        """Links credited to a handed-out URL since the dupefilter's stat was last updated."""
        self._rescored = 0
        """Entries re-scored by an in-link since the stat was last updated (``next_request``)."""
        self.queue = FrontierQueue(self._host_score if strat.uses_hosts else None)
        """Entries hold their score, or (``uses_hosts``) their evidence, which the host's counts turn
        into the score the queue compares across hosts (exact at every pop: ``refresh``)."""
        self._linked_slots: set[str] = set()
        """Slots whose host counts an in-link changed since the last pop: refreshed once, before the
        next pop (a page's links to one host would refresh it once per link)."""
        self.spider: Spider | None = None
        self._downloader: Any = None
        self._unfiltered = 0

    @classmethod
    def from_crawler(cls, crawler: Any) -> RankedScheduler:
        config = RankcrawlConfig.of(crawler)
        strat = strategy(config.frontier, config.alpha)
        feed = RankFeed(config.redis_url, config.key_prefix, config.rank_refresh) if strat.uses_ranks else None
        dupefilter = build_from_crawler(load_object(crawler.settings["DUPEFILTER_CLASS"]), crawler)
        return cls(crawler, dupefilter, strat, feed, job_dir(crawler.settings), config.backlog)

    # -- lifecycle -------------------------------------------------------------------------
    def open(self, spider: Spider) -> Any:
        self.spider = spider
        per_crawler(self.crawler, RankedScheduler, lambda: self)  # found by the follow middleware (``credit``)
        try:
            self._downloader = self.crawler.engine.downloader
        except (AttributeError, RuntimeError):  # no running engine (a scheduler used on its own)
            self._downloader = None
        if self.jobdir:
            self._load(Path(self.jobdir, STATE_FILE))
        if self.feed is not None:
            self.feed.start()
        return self.df.open()

    def close(self, reason: str) -> Any:
        self._count_rescored()
        if self.feed is not None:
            self.feed.stop()
        if self.jobdir:
            self._save(Path(self.jobdir, STATE_FILE))
        return self.df.close(reason)

    def has_pending_requests(self) -> bool:
        return len(self.queue) > 0

    def __len__(self) -> int:
        return len(self.queue)

    # -- queue -----------------------------------------------------------------------------
    def _slot(self, request: Request) -> str:
        return download_slot(request, self._downloader)

    def _host_score(self, slot: str, evidence: float) -> float:
        return self.strategy.score(evidence, 0, self.tally.of(slot))

    def _group(self, slot: str, request: Request) -> Group | None:
        return sibling_group(slot, request.url) if self.siblings is not None else None

    def _evidence(self, key: Hashable, group: Group | None) -> float:
        """The entry's evidence with its sibling evidence."""
        own = self.evidence[key]
        return own + self.siblings.evidence(group, own) if self.siblings is not None else own

    def _score(self, key: Hashable, priority: int, group: Group | None = None) -> float:
        return queued_score(self.strategy, self._evidence(key, group), priority)

    def _sibling_link(self, group: Group | None, key: Hashable, evidence: float) -> None:
        """Count an in-link's evidence for its URL's group and re-score the URL's queued siblings."""
        if self.siblings is None or group is None or evidence <= 0:
            return
        self.siblings.linked(group, evidence)
        entries = self.queue.entries
        for other in list(self.siblings.others(group, key)):
            self.queue.rescore(other, self._score(other, entries[other].payload.priority, group))

    def enqueue_request(self, request: Request) -> bool:
        evidence = link_evidence(request)
        strat = self.strategy
        slot = self._slot(request)
        if request.dont_filter:
            self._unfiltered += 1
            key: Hashable = ("unfiltered", self._unfiltered)
        else:
            key = self.crawler.request_fingerprinter.fingerprint(request)
            if key in self.queue:
                self._credit_queued(key, evidence)
                return False
            if self.df.request_seen(request):
                self._credit_handed(slot, self._group(slot, request), key, evidence)
                self.df.log(request, self.spider)
                return False
        self._host_link(slot, evidence)
        group = self._group(slot, request)
        self.evidence[key] = first_evidence(strat, request, evidence)
        self._sibling_link(group, key, link_score(strat, evidence) if evidence is not None else 0.0)
        self._push(key, request, slot, group)
        self.stats.inc_value("scheduler/enqueued")
        return True

    def _host_link(self, slot: str, evidence: tuple[float, float, float] | None) -> None:
        """Count an in-link to a URL of ``slot`` in the host's counts (every counted in-link of the
        host, to a new, queued or fetched URL alike)."""
        if evidence is not None and self.strategy.uses_hosts:
            self.tally.linked(slot, evidence[1])
            self._linked_slots.add(slot)

    def _credit_handed(self, slot: str, group: Group | None, key: Hashable,
                       evidence: tuple[float, float, float] | None) -> None:
        """An in-link to the handed-out ``key`` (of ``slot`` and sibling ``group``): its host's counts and
        its siblings' evidence (the URL itself is not queued again)."""
        self._host_link(slot, evidence)
        added = link_score(self.strategy, evidence) if evidence is not None else 0.0
        if added > 0:
            self._sibling_link(group, key, added)

    def _credit_queued(self, key: Hashable, evidence: tuple[float, float, float] | None) -> None:
        """An in-link to the queued ``key``: its host's counts, and (re-scoring strategies) its evidence,
        its siblings' and its score."""
        entry = self.queue.entries[key]
        self._host_link(entry.slot, evidence)
        if evidence is not None and self.strategy.rescores:
            added = link_score(self.strategy, evidence)
            group = self.groups.get(key)
            self.evidence[key] += added
            self._sibling_link(group, key, added)
            self.queue.rescore(key, self._score(key, entry.payload.priority, group))
            self._rescored += 1

    def credit(self, url: str, link: object) -> bool:
        """The in-link ``link`` (a ``rankcrawl_link`` meta value) to ``url``, if ``url`` is queued or was
        handed out (``handed``) under that exact URL: applied as a request for it would be, without the
        request (which the frontier, or its dupefilter, would drop; counted in ``dupefilter/filtered`` as
        that would). False otherwise: the caller yields the request."""
        key = self.queued_urls.get(url)
        if key is not None:
            self._credit_queued(key, link_evidence_of(link))
            return True
        handed = self.handed.get(url)
        if handed is None:
            return False
        self._credit_handed(*handed, link_evidence_of(link))
        self._dropped += 1
        return True

    def _push(self, key: Hashable, request: Request, slot: str, group: Group | None) -> None:
        self.tally.queued(slot)
        if self.siblings is not None:
            self.siblings.queued(group, key)
            if group is not None:
                self.groups[key] = group
        self.queue.push(key, slot, self._score(key, request.priority, group), request)
        if not request.dont_filter:
            self.queued_urls[request.url] = key
        if self.feed is not None:
            self.feed.queued.append((key, request.url))

    def _count_rescored(self) -> None:
        """Add the in-link re-scorings and the links credited to handed-out URLs to their stats (once per
        ``next_request``: a stats call per in-link would cost more than the update)."""
        if self._rescored:
            self.stats.inc_value("rankcrawl/frontier/rescored", self._rescored)
            self._rescored = 0
        if self._dropped:
            self.stats.inc_value("dupefilter/filtered", self._dropped)
            self._dropped = 0

    def next_request(self) -> Request | None:
        self._count_rescored()
        if self.feed is not None:
            self._apply_ranks()
        if awaiting_analysis(self.crawler, self.backlog):
            return None
        for slot in self._linked_slots:
            self.queue.refresh(slot)
        self._linked_slots.clear()
        entry = self.queue.pop(busy_slots(self._downloader))
        if entry is None:
            return None
        request: Request = entry.payload
        group = self.groups.pop(entry.key, None)
        if self.queued_urls.get(request.url) == entry.key:
            del self.queued_urls[request.url]
        if (self._exact and not request.dont_filter and request.method == "GET" and not request.body
                and "download_slot" not in request.meta and len(self.handed) < HANDED_KEPT):
            self.handed[request.url] = (entry.slot, group, entry.key)
        request.meta[VALUE_META] = self.strategy.score(self._evidence(entry.key, group), request.priority,
                                                       self.tally.of(entry.slot))
        del self.evidence[entry.key]
        if self.siblings is not None:
            self.siblings.taken(group, entry.key)
        self.tally.taken(entry.slot)
        if self.strategy.uses_hosts:
            self.queue.refresh(entry.slot)
        if self.feed is not None:
            self.feed.taken.append(entry.key)
        self.stats.inc_value("scheduler/dequeued")
        return request

    def _apply_ranks(self) -> None:
        assert self.feed is not None
        for _epoch, ranks in self.feed.drain():
            queued = self.queue.entries
            items = [(key, queued[key].slot, rank, self.evidence[key]) for key, rank in ranks if key in queued]
            evidence = epoch_evidence(items)
            self.evidence.update(evidence)
            self.queue.rescore_many((key, self._score(key, queued[key].payload.priority, self.groups.get(key)))
                                    for key in evidence)
            self.stats.inc_value("rankcrawl/frontier/epochs")
            self.stats.inc_value("rankcrawl/frontier/ranked", len(items))

    # -- JOBDIR ----------------------------------------------------------------------------
    def _save(self, path: Path) -> None:
        tmp = path.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as f:
            hosts = {h: [c.fetched, c.links, c.shares] for h, c in self.tally.hosts.items() if c.fetched or c.links}
            groups = self.siblings.saved() if self.siblings is not None else []
            f.write(json.dumps({"hosts": hosts, "siblings": groups}) + "\n")
            for entry in sorted(self.queue, key=lambda e: e.seq):
                try:
                    line = dumps({"evidence": self.evidence[entry.key], "request": entry.payload.to_dict(spider=self.spider)})
                except (TypeError, ValueError) as exc:
                    self.stats.inc_value("rankcrawl/frontier/unstorable")
                    logger.warning("rankcrawl: a queued request cannot be stored in JOBDIR (%s): %s", exc, entry.payload.url)
                    continue
                f.write(line + "\n")
        tmp.replace(path)

    def _load(self, path: Path) -> None:
        if not path.exists() or self.spider is None:
            return
        skipped = 0
        with path.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    obj = json.loads(line)
                    if isinstance(obj, dict) and isinstance(obj.get("hosts"), dict):
                        self._load_hosts(obj["hosts"])
                        if self.siblings is not None and isinstance(obj.get("siblings"), list):
                            self.siblings.load(obj["siblings"])
                        continue
                    evidence = float(obj["evidence"])
                    request = checked_request(loads(json.dumps(obj["request"])), self.spider)
                except (FrontierEntryError, ValueError, KeyError, TypeError, AttributeError):
                    skipped += 1
                    continue
                if not math.isfinite(evidence) or evidence < 0:
                    skipped += 1
                    continue
                key: Hashable = (self.crawler.request_fingerprinter.fingerprint(request) if not request.dont_filter
                                 else ("unfiltered", self._next_unfiltered()))
                if key not in self.queue:
                    self.evidence[key] = evidence
                    slot = self._slot(request)
                    self._push(key, request, slot, self._group(slot, request))
        if skipped:
            logger.warning("rankcrawl: %d unreadable frontier entries in %s skipped", skipped, path)
        logger.info("rankcrawl: resuming crawl (%d requests queued)", len(self.queue))

    def _load_hosts(self, hosts: dict[str, Any]) -> None:
        """The saved host counts (fetched, counted in-links, their summed shares); bad rows skipped."""
        for host, row in hosts.items():
            try:
                fetched, links, shares = int(row[0]), int(row[1]), float(row[2])
            except (TypeError, ValueError, IndexError, KeyError):
                continue
            if fetched >= 0 and links >= 0 and 0.0 <= shares <= links:
                counts = self.tally.of(str(host))
                counts.fetched, counts.links, counts.shares = fetched, links, shares

    def _next_unfiltered(self) -> int:
        self._unfiltered += 1
        return self._unfiltered
