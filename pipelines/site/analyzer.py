"""SiteAnalyzer: the per-host step between page analysis and the edge pipeline (SPEC §2.4–2.7).

``process(facts)`` makes one round trip to the host's state in Redis (``site.sketch.SiteState``):
the page's keys are counted (once per page) and their counts come back with the host's page count,
the near-duplicate verdict and, for ``lexical``, document frequencies; ``site.decide.decide`` then
applies the host's evidence. Before a host has ``min_pages`` pages the per-page classifier's
decisions stand.

Re-weighting earlier pages: the process remembers the last ``remember`` pages of each host (``site.recent_pages``); when a reply
changes a key's template status, or makes a host warm, the remembered pages holding it are
re-decided and those whose edges changed are queued in ``repush`` as (url, edges) for the edge
pipeline. In ``lexical`` mode a page that weighed a link with the target's stand-in is re-weighed
when the target arrives.

Outage (Redis stopped, restarting, read-only, out of memory): the page is decided with what the
process already knows of its host (its remembered key statuses; the per-page decision otherwise),
flagged ``fallback``, and kept in a bounded backlog (``buffer`` pages). Later pages retry with
exponential backoff (``settings.connection.outage_delay``); once Redis answers, the backlog is replayed
— each page's contribution applied, its decision redone, its edges re-pushed if they differ.
``close`` keeps replaying up to a timeout; ``unwritten`` counts pages whose contribution never
reached Redis (backlog left, or dropped when the backlog overflowed).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import Any

import numpy as np
import redis

from rankcrawl.pipelines.site.decide import (
    REGION_SHARE,
    Decision,
    candidate_counts,
    candidate_keys,
    candidates,
    decide,
    main_region,
    page_keys,
    recurrence_floor,
    vote_keys,
)
from rankcrawl.pipelines.site.facts import FactOptions, PageFacts, label_key
from rankcrawl.pipelines.site.linkweights import LexicalWeights, block_link_weights, check, class_keys
from rankcrawl.pipelines.site.recent_pages import RecentPages, Remembered
from rankcrawl.pipelines.site.sketch import SiteState, page_key, typed_keys
from rankcrawl.settings.connection import outage_delay
from rankcrawl.settings.urls import split_url

logger = logging.getLogger(__name__)

REDIS_AWAY = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.ReadOnlyError,
              redis.exceptions.OutOfMemoryError, redis.exceptions.TryAgainError,
              redis.exceptions.ClusterDownError, redis.exceptions.MasterDownError, OSError)
Edges = list[tuple[str, float]]


def declared_alternates(f: PageFacts) -> set[bytes]:
    """``page_key`` of every page ``f`` links as an alternate version of itself (``rel="alternate"``,
    ``hreflang``: its translations). A site's declared language versions are distinct pages, never
    near-duplicates of each other, whichever of them the crawl fetched first (an untranslated copy's
    text equals the original's)."""
    return {page_key(url) for url, alternate in zip(f.links, f.link_alternate or ()) if alternate}


def holds(link_regions: list[int], outer: int, inner: int) -> bool:
    """Whether candidate region ``outer`` (1-based, 0 = none) holds every link that ``inner`` holds."""
    if inner == 0 or outer == inner:
        return True
    if outer == 0:
        return False
    masks = np.asarray(link_regions, dtype=np.int64)
    return not np.any((masks >> (inner - 1)) & 1 & ~(masks >> (outer - 1)))


class SiteAnalyzer:
    """Site-level templates, near-duplicates and link weights over shared, bounded Redis state."""

    def __init__(self, client: redis.Redis, prefix: str = "rc:", min_pages: int = 3, weighting: str = "uniform",
                 scope: str = "content", share: float = 0.4, alpha: float = 0.0, sum_repeated: bool = False,
                 text: bool = False, remember: int = 1000, buffer: int = 10_000) -> None:
        check(weighting, scope)
        self.state = SiteState(client, prefix)
        self.recent = RecentPages(remember)
        self.lexical = LexicalWeights(alpha) if weighting == "lexical" else None
        self.min_pages, self.weighting, self.scope, self.share = min_pages, weighting, scope, share
        self.sum_repeated, self.text, self.buffer = sum_repeated, text, buffer
        self.backlog: deque[PageFacts] = deque()
        self.repush: list[tuple[str, Edges]] = []
        self.failures, self.next_try = 0, 0.0
        self.round_trips = self.fallbacks = self.replayed = self.dropped = self.repushed = 0

    @property
    def options(self) -> FactOptions:
        """What the per-page analysis must compute for this analyzer."""
        return FactOptions(site=True, weighting=self.weighting, text=self.text)

    @property
    def unwritten(self) -> int:
        """Pages whose contribution has not reached Redis (backlog + dropped on overflow)."""
        return len(self.backlog) + self.dropped

    def process(self, f: PageFacts) -> Decision:
        """Count the page in its host's state and decide its links (``fallback`` while Redis is away)."""
        if not f.url:
            raise ValueError("site-level analysis needs the page URL")
        if self.backlog:
            self.replay()
        if not self.backlog:
            try:
                return self._process(f)
            except REDIS_AWAY as exc:
                self._away(exc)
        return self._fallback(f)

    def take_repush(self) -> list[tuple[str, Edges]]:
        """Earlier pages whose edges changed since the last call: (url, edges) to re-push."""
        out, self.repush = self.repush, []
        return out

    def replay(self) -> None:
        """Apply the backlog's contributions if Redis answers again (no-op before the next try)."""
        if time.monotonic() < self.next_try:
            return
        while self.backlog:
            try:
                self._process(self.backlog[0], replay=True)
            except REDIS_AWAY as exc:
                self._away(exc)
                return
            self.backlog.popleft()
            self.replayed += 1

    def close(self, timeout: float) -> int:
        """Replay the backlog for at most ``timeout`` seconds (blocking); the pages left unwritten."""
        deadline = time.monotonic() + timeout
        while self.backlog and time.monotonic() < deadline:
            self.replay()
            if self.backlog:
                time.sleep(max(0.0, min(self.next_try, deadline) - time.monotonic()))
        if self.unwritten:
            logger.error("rankcrawl: %d pages' site-level state could not be written to Redis", self.unwritten)
        return self.unwritten

    # -- internals ----------------------------------------------------------------------------
    def _away(self, exc: BaseException) -> None:
        self.failures += 1
        delay = outage_delay(self.failures)
        self.next_try = time.monotonic() + delay
        logger.warning("rankcrawl: site-level state unavailable (%s); per-page decisions, retry in %.1fs", exc, delay)

    def _fallback(self, f: PageFacts) -> Decision:
        self.fallbacks += 1
        host = split_url(f.url)[0]
        keys = page_keys(f, self.text)
        warm = host in self.recent.warm
        weights: list[float | None] = [1.0] * len(f.links)
        d = decide(f, keys, self.recent.templates(host), warm, False, weights, self.scope,
                   self.sum_repeated, f.region_own)
        d.fallback = True
        self.recent.add(Remembered(host, f, keys, weights, d.edges, False, not warm, f.region_own,
                                   candidate_keys(f)), {})
        if len(self.backlog) >= self.buffer:
            self.backlog.popleft()
            self.dropped += 1
        self.backlog.append(f)
        return d

    def _process(self, f: PageFacts, replay: bool = False) -> Decision:
        host = split_url(f.url)[0]
        keys = page_keys(f, self.text)
        counted = keys.distinct()
        cand = candidates(f, self.scope)
        title_terms = sorted(f.lexical["title"]) if self.lexical and f.lexical else []
        title_keys = typed_keys("tt", [label_key(t) for t in title_terms])
        block_keys, amounts, per_block = (class_keys(f) if self.weighting == "block"
                                          else (None, None, {}))
        targets, waiting, df_read = {}, [], []
        if self.lexical and f.lexical:
            targets = self.lexical.targets(f, cand)
            waiting = [p for p in self.recent.pages.values() if f.url in p.pending and p.vector]
            df_read = sorted(LexicalWeights.terms_of(f.lexical, *(q for q, _ in targets.values()),
                                                     *(p.vector for p in waiting if p.vector)))
        regions = candidate_keys(f)
        vote = vote_keys(f)
        cold = self.recent.cold_keys(host, counted)
        cold = np.concatenate([cold, self.recent.stale_keys(host, np.concatenate([counted, cold]))])
        due, due_keys = self.recent.unsettled(host, np.concatenate([regions, cold]))
        cold = np.concatenate([cold, due_keys])
        reply = self.state.update(
            host, f.url, np.concatenate([counted, vote, title_keys]), np.concatenate([regions, cold]),
            block_keys, amounts, f.neardup, sorted(LexicalWeights.terms_of(f.lexical)) if f.lexical else None,
            df_read)
        self.round_trips += 1
        self.failures, self.next_try = 0, 0.0
        warm = reply.n >= self.min_pages
        floor = recurrence_floor(reply.n, self.share)
        page_counts = reply.counts[: len(counted)]
        statuses = {int(k): c >= floor for k, c in zip(counted, page_counts)}
        cold_counts = {int(k): c for k, c in zip(cold, reply.query[len(regions):])}
        statuses.update({k: c >= floor for k, c in cold_counts.items()})
        region_floor = recurrence_floor(reply.n, REGION_SHARE)
        region, _ = main_region(f, candidate_counts(f, reply.query[: len(regions)]), region_floor, warm)
        dirty = self.recent.learn(host, statuses, warm, reply.n)
        region_counts = {int(k): c for k, c in zip(regions, reply.query[: len(regions)])} | cold_counts
        dirty |= {url for url in due if self._rechoose(url, region_counts, region_floor)}
        duplicate = reply.canonical is not None and reply.canonical not in declared_alternates(f)
        canonical_links = self.recent.links_of(reply.canonical) if duplicate else None
        vector = None
        if self.lexical and f.lexical:
            site_name = {t for t, c in zip(title_terms, reply.counts[len(counted) + len(vote):]) if warm and c >= floor}
            vector = LexicalWeights.title_filtered(f.lexical, site_name)
            weights = self.lexical.weights(vector, targets, len(f.links), reply.df, reply.df_n)
            self.lexical.keep(f.url, vector)
        elif self.weighting == "block" and block_keys is not None:
            counts = {int(k): c for k, c in zip(block_keys, reply.block_counts)}
            weights = block_link_weights(f, counts, per_block, warm)
        else:
            weights = [1.0] * len(f.links)
        d = decide(f, keys, statuses.get, warm, duplicate, weights, self.scope, self.sum_repeated,
                   region, canonical_links)
        before = self.recent.get(f.url)
        if replay and before is not None and before.edges != d.edges:
            self._queue(f.url, d.edges)
        pending = {f.links[j] for j, (_, stand) in targets.items() if stand}
        self.recent.add(Remembered(host, f, keys, weights, d.edges, duplicate, not warm, region, regions, vector,
                                   pending, canonical_links, reply.n if warm else None), statuses)
        reweighed = self._reweigh(waiting, f.url, vector, reply.df, reply.df_n) if waiting else set()
        for url in sorted((dirty | reweighed) - {f.url}):
            self._redecide(url, region_counts, region_floor)
        return d

    def _reweigh(self, waiting: list[Remembered], target: str, vector: Any, df: dict[str, int],
                 n_docs: int) -> set[str]:
        """Re-weigh the ``waiting`` pages' links to ``target`` with the target's own vector (lexical);
        the pages whose weights changed (to be re-decided)."""
        changed: set[str] = set()
        if self.lexical is None:
            return changed
        vectored = [(p, p.vector) for p in waiting if p.vector]
        keeps = self.lexical.weights_to([v for _, v in vectored], vector, df, n_docs)
        for (p, _), keep in zip(vectored, keeps):
            for j, (url, ok) in enumerate(zip(p.facts.links, candidates(p.facts, self.scope))):
                if url == target and ok and p.weights[j] != keep:
                    p.weights[j] = keep
                    changed.add(p.facts.url)
            p.pending.discard(target)
        return changed

    def _rechoose(self, url: str, counts: dict[int, int], floor: float) -> bool:
        """Choose the main region of the remembered page ``url`` again from the ``counts`` of its region
        keys (``RecentPages.settle`` records the host size it was chosen at); whether it moved. A page
        decided cold takes the choice; a warm one only a region holding every link of its current one
        (a sitemap's section that its language copies confirmed while the host was small gives way to
        the host's main element; a region a host's package summaries confirmed stays theirs when other
        pages outnumber them)."""
        p = self.recent.pages[url]
        region, _ = main_region(p.facts, candidate_counts(p.facts, [counts.get(int(k), 0) for k in p.regions]), floor, True)
        self.recent.settle(url, self.recent.host_n.get(p.host, 0.0))
        if not p.cold and not holds(p.facts.link_regions, region, p.region):
            return False
        moved, p.region = region != p.region, region
        return moved

    def _redecide(self, url: str, counts: dict[int, int] | None = None, region_floor: float = 0.0) -> None:
        """Decide a remembered page again; a page decided cold gets its main region from ``counts``."""
        p = self.recent.get(url)
        if p is None:
            return
        warm = p.host in self.recent.warm
        if p.cold and warm and counts is not None:
            self._rechoose(url, counts, region_floor)
        d = decide(p.facts, p.keys, self.recent.templates(p.host), warm, p.duplicate, p.weights,
                   self.scope, self.sum_repeated, p.region, p.canonical_links)
        p.cold = not warm
        if d.edges != p.edges:
            p.edges = d.edges
            self.recent.touch(url)
            self._queue(url, d.edges)

    def _queue(self, url: str, edges: Edges) -> None:
        self.repush = [(u, e) for u, e in self.repush if u != url] + [(url, edges)]
        self.repushed += 1
