"""Crawl-order simulator: replay each frontier strategy over a known web and score the order.

A ``SimWeb`` is a set of pages with, per page, the links a crawl follows (every link), the subset
that are content links (edges of the ranked graph, each with an equal share of its page's vote),
its host (the politeness slot) and its importance (PageRank of the gold content graph, summing to
1). ``simulate`` runs rankcrawl's own ``FrontierQueue`` and ``Strategy`` (the code the Scrapy
scheduler runs) with

* ``inflight`` pages fetched at once: a popped page's links become known only ``inflight`` pops
  later (Scrapy's concurrency: the scheduler hands out requests ahead of their responses);
* a ranker that publishes every ``epoch_pages`` fetched pages: PageRank (alpha 0.85, uniform
  teleport over the known nodes, dangling mass spread uniformly) of the content graph known so far,
  uncrawled targets included, warm-started from the previous epoch, as the live ranker does;

and returns the fetch order. ``mass_curve`` is the share of the total importance held by the first
k fetched pages. Yardsticks that are no rankcrawl strategy live here: the oracle (pages by
importance, whatever the links), the best of the discovered (each pop takes the queued URL of the
highest importance: the most a frontier can reach with the links it has seen) and
larger-sites-first (the host with the most queued URLs next, Baeza-Yates et al. 2005).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from rankcrawl.crawler.frontier_queue import FrontierQueue
from rankcrawl.crawler.frontier_scores import HostTally, Strategy, epoch_evidence, strategy
from rankcrawl.crawler.priority import FOLLOW_ONLY_OFFSET, score
from rankcrawl.crawler.sibling_urls import Group, SiblingTally, sibling_group

ALPHA = 0.85


@dataclass
class SimWeb:
    """Pages 0..n-1: followed links, content links (a subset), host and importance of each."""

    name: str
    follow: list[np.ndarray]
    content: list[np.ndarray]
    host: list[str]
    importance: np.ndarray
    seeds: list[int]
    groups: list[Group | None] | None = None
    """Per page its sibling group (``crawler/sibling_urls.py``), where the pages have URLs."""

    @property
    def n(self) -> int:
        return len(self.follow)


def pagerank_of(n: int, src: np.ndarray, dst: np.ndarray, alpha: float = ALPHA, x0: np.ndarray | None = None,
                tol: float = 1e-9, max_iter: int = 200) -> np.ndarray:
    """PageRank of n nodes with edges src→dst, each source's vote split equally (Eq. of Page et al.):
    uniform teleport, dangling mass spread uniformly; power iteration from ``x0``."""
    outdeg = np.bincount(src, minlength=n).astype(np.float64)
    w = 1.0 / outdeg[src] if len(src) else np.zeros(0)
    m = sp.csr_matrix((w, (dst, src)), shape=(n, n))
    dangling = outdeg == 0
    x = np.full(n, 1.0 / n) if x0 is None or len(x0) != n else x0 / x0.sum()
    for _ in range(max_iter):
        nxt = alpha * (m @ x) + (alpha * x[dangling].sum() + 1.0 - alpha) / n
        if np.abs(nxt - x).sum() < tol:
            return nxt
        x = nxt
    return x


@dataclass
class LiveRanks:
    """The simulated ranker: PageRank of the content graph known so far (fetched pages' edges)."""

    ids: dict[int, int] = field(default_factory=dict)  # page → index in the ranked graph
    src: list[int] = field(default_factory=list)
    dst: list[int] = field(default_factory=list)
    x: np.ndarray | None = None

    def add(self, page: int, targets: np.ndarray) -> None:
        s = self.ids.setdefault(page, len(self.ids))
        for t in targets.tolist():
            self.src.append(s)
            self.dst.append(self.ids.setdefault(t, len(self.ids)))

    def publish(self) -> dict[int, float]:
        n = len(self.ids)
        x0 = None
        if self.x is not None:
            x0 = np.concatenate([self.x, np.full(n - len(self.x), 1.0 / n)])
        self.x = pagerank_of(n, np.asarray(self.src, dtype=np.int64), np.asarray(self.dst, dtype=np.int64), x0=x0, tol=1e-6)
        return dict(zip(self.ids, self.x.tolist()))


@dataclass
class SimResult:
    order: list[int]
    seconds: float
    updates: int
    update_seconds: float
    epochs: int
    host_rescores: int = 0
    """Entries re-scored because their host's scale drifted or an epoch was published."""


def simulate(web: SimWeb, strat: Strategy, budget: int, inflight: int = 16, epoch_pages: int = 100,
             read_ranks: bool = True, per_host: int = 0) -> SimResult:
    """The first ``budget`` pages a crawl with ``strat`` fetches (see the module docstring).
    ``read_ranks`` False: epochs are never read (the ``static`` strategy then ties every content link).
    ``per_host`` > 0: at most that many pages of one host in flight (Scrapy's
    ``CONCURRENT_REQUESTS_PER_DOMAIN``: a busy host's entries wait, the others pop).

    The frontier keeps what the Scrapy scheduler keeps: per queued URL its evidence
    (``Strategy.evidence`` summed over its in-links), per host its queued and handed-out counts and
    the counted in-links to its URLs with their summed shares (``HostTally``). An entry is re-scored
    when an in-link reaches it and, for a strategy that ``uses_hosts``, with every entry of its host
    when the host's factor drifted (``Strategy.rescore_due``, checked once a fetched page's links
    are queued, for its host and the hosts they point to), and with every entry once per epoch."""
    t0 = time.perf_counter()
    queue = FrontierQueue()
    tally = HostTally()
    evidence: dict[int, float] = {}
    active: dict[str, int] = {}
    busy = (lambda slot: active.get(slot, 0) >= per_host) if per_host else None
    by_host: dict[str, set[int]] = {}
    seen: set[int] = set()
    rescored = 0
    siblings = SiblingTally() if strat.uses_siblings and web.groups is not None else None
    group = web.groups if siblings is not None and web.groups is not None else [None] * web.n

    def full(key: int) -> float:
        own = evidence[key]
        return own + siblings.evidence(group[key], own) if siblings is not None else own

    def rescore(key: int) -> None:
        entry = queue.entries[key]
        queue.rescore(key, strat.score(full(key), 0, tally.of(entry.slot)))

    def sibling_link(key: int, ev: float) -> None:
        if siblings is not None and group[key] is not None and ev > 0:
            siblings.linked(group[key], ev)
            for other in list(siblings.others(group[key], key)):
                rescore(int(other))

    def rescore_host(host: str) -> None:
        nonlocal rescored
        for key in by_host.get(host, ()):
            rescore(key)
        rescored += len(by_host.get(host, ()))
        tally.of(host).scale = strat.host_factor(tally.of(host))

    def push(key: int, prio: int) -> None:
        host = web.host[key]
        tally.queued(host)
        by_host.setdefault(host, set()).add(key)
        if siblings is not None:
            siblings.queued(group[key], key)
        queue.push(key, host, strat.score(full(key), prio, tally.of(host)), None)

    for s in web.seeds:
        seen.add(s)
        evidence[s] = strat.seed_evidence()
        push(s, 0)
    pending: deque[tuple[int, float]] = deque()
    order: list[int] = []
    ranker = LiveRanks()
    ranks: dict[int, float] = {}
    mean = 0.0
    updates, update_s, epochs = 0, 0.0, 0
    epoch_ranks = read_ranks and (strat.uses_ranks or strat.name == "static")
    while len(order) < budget:
        while len(pending) < inflight and len(order) + len(pending) < budget:
            entry = queue.pop(busy)
            if entry is None:
                break
            active[entry.slot] = active.get(entry.slot, 0) + 1
            tally.taken(entry.slot)
            evidence.pop(int(entry.key))
            by_host[entry.slot].discard(int(entry.key))
            if siblings is not None:
                siblings.taken(group[int(entry.key)], int(entry.key))
            pending.append((int(entry.key), entry.score))
        if not pending:
            break
        page, value = pending.popleft()
        active[web.host[page]] -= 1
        order.append(page)
        content = web.content[page]
        counted = set(content.tolist())
        share = 1.0 / len(counted) if counted else 0.0
        rel_page = ranks.get(page, mean) / mean if mean > 0 else 1.0
        t1 = time.perf_counter()
        touched = {web.host[page]}
        for t in web.follow[page].tolist():
            s = share if t in counted else 0.0
            tally.linked(web.host[t], s)
            if t in queue:
                if strat.rescores:
                    evidence[t] += strat.evidence(value, s)
                    sibling_link(t, strat.evidence(value, s))
                    rescore(t)
                    updates += 1
            elif t in seen:
                sibling_link(t, strat.evidence(value, s))
            else:
                seen.add(t)
                prio = 0
                if strat.name == "static":
                    rel_t = ranks.get(t, mean) / mean if mean > 0 else 1.0
                    prio = score(rel_page, 1.0, rel_t, 0.0) if s else score(0.0, 0.0, rel_t, 0.0) - FOLLOW_ONLY_OFFSET
                evidence[t] = strat.evidence(value, s)
                sibling_link(t, evidence[t])
                push(t, prio)
                touched.add(web.host[t])
                updates += 1
        for host in touched:
            if strat.rescore_due(tally.of(host)):
                rescore_host(host)
        update_s += time.perf_counter() - t1
        ranker.add(page, content)
        if (epoch_ranks or strat.uses_hosts) and len(order) % epoch_pages == 0:
            epochs += 1
            if epoch_ranks:
                ranks = ranker.publish()
                mean = float(np.mean(list(ranks.values()))) if ranks else 0.0
            if epoch_ranks and strat.uses_ranks:
                evidence.update(epoch_evidence((key, queue.entries[key].slot, r, evidence[key])
                                               for key, r in ranks.items() if key in queue))
            if strat.uses_hosts:
                for host in list(by_host):
                    rescore_host(host)
    return SimResult(order, time.perf_counter() - t0, updates, update_s, epochs, rescored)


def larger_sites_first(web: SimWeb, budget: int) -> list[int]:
    """Baeza-Yates et al.'s yardstick: next, the host with the most queued URLs; FIFO within a host."""
    queues: dict[str, deque[int]] = {}
    seen = set(web.seeds)
    for s in web.seeds:
        queues.setdefault(web.host[s], deque()).append(s)
    order: list[int] = []
    while len(order) < budget and queues:
        host = max(queues, key=lambda h: len(queues[h]))
        page = queues[host].popleft()
        if not queues[host]:
            del queues[host]
        order.append(page)
        for t in web.follow[page].tolist():
            if t not in seen:
                seen.add(t)
                queues.setdefault(web.host[t], deque()).append(t)
    return order


def best_discovered(web: SimWeb, budget: int, inflight: int = 16) -> list[int]:
    """What a crawl can reach at best: each pop takes the queued URL of the highest importance (a
    frontier that knows every discovered URL's final rank), with ``inflight`` pages in flight."""
    queue = FrontierQueue()
    seen = set(web.seeds)
    for s in web.seeds:
        queue.push(s, web.host[s], float(web.importance[s]), None)
    pending: deque[int] = deque()
    order: list[int] = []
    while len(order) < budget:
        while len(pending) < inflight and len(order) + len(pending) < budget:
            entry = queue.pop()
            if entry is None:
                break
            pending.append(int(entry.key))
        if not pending:
            break
        page = pending.popleft()
        order.append(page)
        for t in web.follow[page].tolist():
            if t not in seen:
                seen.add(t)
                queue.push(t, web.host[t], float(web.importance[t]), None)
    return order


def oracle(web: SimWeb, budget: int) -> list[int]:
    """The best possible order: pages by importance."""
    return np.argsort(-web.importance, kind="stable")[:budget].tolist()


def mass_curve(web: SimWeb, order: Sequence[int], ks: Sequence[int]) -> list[float]:
    """Share of the total importance held by the first k pages of ``order``, for each k."""
    cum = np.cumsum(web.importance[np.asarray(order, dtype=np.int64)]) if len(order) else np.zeros(1)
    return [float(cum[min(k, len(order)) - 1]) if len(order) else 0.0 for k in ks]


def run_all(web: SimWeb, fractions: Sequence[float], names: Sequence[str], inflight: int = 16,
            epoch_pages: int = 100, per_host: int = 0) -> dict[str, dict]:
    """Every strategy and yardstick on ``web``: mass at each fraction of the pages, and timings
    (``per_host``: see ``simulate``; the yardsticks outside rankcrawl's frontier ignore it)."""
    ks = [max(1, int(round(f * web.n))) for f in fractions]
    budget = max(ks)
    out: dict[str, dict] = {"oracle": {"mass": mass_curve(web, oracle(web, budget), ks)},
                            "best of the discovered": {"mass": mass_curve(web, best_discovered(web, budget, inflight), ks)},
                            "larger-sites-first": {"mass": mass_curve(web, larger_sites_first(web, budget), ks)}}
    for name in names:
        res = simulate(web, strategy(name), budget, inflight, epoch_pages, per_host=per_host)
        out[name] = {"mass": mass_curve(web, res.order, ks), "seconds": res.seconds, "updates": res.updates,
                     "us_per_update": 1e6 * res.update_seconds / max(res.updates, 1), "epochs": res.epochs,
                     "rescored_per_page": res.host_rescores / max(len(res.order), 1)}
    res = simulate(web, strategy("static"), budget, inflight, epoch_pages, read_ranks=False, per_host=per_host)
    out["static, ranks never read"] = {"mass": mass_curve(web, res.order, ks)}
    if "pagerank" in names:
        res = simulate(web, strategy("pagerank"), budget, inflight, epoch_pages, read_ranks=False, per_host=per_host)
        out["pagerank, ranks never read"] = {"mass": mass_curve(web, res.order, ks)}
    return out


def real_web(sites: Sequence, max_pages: int = 0, with_urls: bool = False) -> Any:
    """The gold graphs of bench/realsites.py's sites as one SimWeb (importance: PageRank of the gold
    content graph over the reachable pages, their content links to the frontier counted as in
    bench/realcrawl.py, restricted to the reachable pages and renormalised)."""
    import argparse
    from urllib.parse import urlsplit

    from bench import realmetrics as M
    from bench.realcrawl import load_gold
    from rankcrawl.settings.urls import normalize_url

    _web, gold, _cut = load_gold(argparse.Namespace(sites=list(sites), max_pages=max_pages))
    urls = list(gold.reachable)
    index = {u: i for i, u in enumerate(urls)}
    pr = M.restrict(M.pagerank(urls, gold.content_edges, frontier=gold.content_frontier), urls)

    def ids(targets: set[str]) -> np.ndarray:
        return np.array(sorted(index[t] for t in targets if t in index), dtype=np.int64)

    seeds = [index[u] for u in (normalize_url(s.seed) for s in sites) if u in index]
    hosts = [urlsplit(u).netloc for u in urls]
    web = SimWeb("+".join(s.name for s in sites), [ids(gold.all_edges[u]) for u in urls],
                 [ids(gold.content_edges[u]) for u in urls], hosts,
                 np.array([pr[u] for u in urls]), seeds or [0], [sibling_group(h, u) for h, u in zip(hosts, urls)])
    return (web, urls) if with_urls else web
