"""The recently decided pages of this process, so a later discovery can re-decide them (bounded).

Re-weighting earlier pages (SPEC §2.4): a page decided before its host was warm, or while one of
its keys was not yet template, pushed edges that the host's evidence later contradicts. Instead of
keeping every page's record in Redis, each crawler process remembers the last ``capacity`` pages
it decided (their ``PageFacts`` without texts, their keys, link weights and pushed edges) and the
last known template status of every key they hold. A reply from the site state that changes a
key's status, or makes a host warm, marks the remembered pages holding it for re-decision; the
ones whose edges change are re-pushed. A key found template while its host was small (on 2 of 4
pages, say: two index pages sharing a table of contents) may stop recurring as the host grows
while no later page holds it to say so: a template status last confirmed at host size n is asked
again with the next page once the host has ``RECHECK_GROWTH``·n pages (``stale_keys``); a page whose
edges a re-decision changed counts as just decided (``touch``), as its status may flip back. A page's
main region, chosen at host size n — its own when no region of its host is confirmed yet, or one its
host's first few pages confirmed (a manual's sitemaps in eight languages among its first ten pages
share a region no other page has) — is asked again the same way (``unsettled``), and the page is
re-decided if it moves.

A page's age is counted in its own host's pages, as only they change the evidence it was decided
with, plus the pages decided since its host's last one (a host that stopped growing has nothing
left to tell its pages). A page leaves once its age reaches ``capacity``: each host keeps its last
``capacity`` pages whatever the other hosts crawled at the same time do, so the edges a host's pages
end with do not depend on how the crawl interleaved it with others (with one window shared by all
hosts, a host's first pages can leave long before the template statuses they were decided with
settle, in some crawl orders only).
Beyond ``HOSTS_KEPT`` hosts' worth of pages (many hosts growing at once) the oldest page leaves
(the globally oldest among equals). Pages out of the window, or decided by another process, keep
their edges (bounded memory; a restart forgets the window).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from rankcrawl.pipelines.site.decide import PageKeys
from rankcrawl.pipelines.site.facts import PageFacts, label_keys
from rankcrawl.pipelines.site.sketch import page_key

RECHECK_GROWTH = 1.25
"""A template status confirmed at host size n is asked again once the host has this many times n pages
(soon enough that the pages holding the key are still in the window when a crawl that fetched one
section of a site first — the English module pages of a manual in eight languages — moves on)."""
MAX_RECHECK = 256
"""Stale template keys asked for with one page at most."""
HOSTS_KEPT = 4
"""Hosts growing at once whose full windows fit in memory (``capacity`` pages each); beyond, the
oldest page leaves whichever host it is of."""
HELD_KEPT = 400_000
"""Template keys and links held by the window's pages at most (≈ 100 per page of a full window; a
window of link-heavy listing pages holds twice as many bytes as one of articles, 20-45 kB a page):
beyond, the oldest pages leave, so the memory of a long crawl stays flat whatever pages come last."""
TARGETS_KEPT = 20_000
"""Pages whose link targets (8-byte hashes, ≈ 8 bytes per link) are kept beyond the window, so a
near-duplicate found long after its canonical page still keeps its links to other targets."""


def target_hashes(urls: list[str]) -> np.ndarray:
    """Sorted distinct 63-bit hashes of link targets (``site.facts.label_key``)."""
    return np.unique(label_keys(urls))


@dataclass
class Remembered:
    """One remembered page: what re-deciding it needs."""

    host: str
    facts: PageFacts
    keys: PageKeys
    weights: list[float | None]
    edges: list[tuple[str, float]]
    duplicate: bool
    cold: bool
    region: int = 0
    regions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    vector: dict[str, dict[str, int]] | None = None
    pending: set[str] = field(default_factory=set)
    canonical_links: np.ndarray | None = None
    region_at: float | None = None
    """Host size when its region was chosen on a warm host (None: decided cold)."""
    held: int = 0
    """Its template keys and links, counted against ``HELD_KEPT`` while it is in the window."""


def lean(f: PageFacts) -> PageFacts:
    """``f`` without the texts a re-decision does not read."""
    return PageFacts(url=f.url, title="", links=f.links, link_block=f.link_block, link_content=f.link_content,
                     link_in_content=f.link_in_content,
                     link_alternate=f.link_alternate, link_index=f.link_index, link_regions=f.link_regions, link_pagelet=f.link_pagelet,
                     region_depth=f.region_depth, region_class_keys=f.region_class_keys, region_own=f.region_own,
                     region_wide=f.region_wide,
                     lexical=f.lexical)


class RecentPages:
    """Window of remembered pages (the last ``capacity`` of each host, ``HOSTS_KEPT``·``capacity`` in all)
    with a key → pages index and per-host key statuses."""

    def __init__(self, capacity: int = 1000, targets_kept: int = TARGETS_KEPT) -> None:
        self.capacity, self.targets_kept = capacity, targets_kept
        self.limit = HOSTS_KEPT * capacity
        self.held = 0  # template keys and links of the pages in the window
        self.pages: OrderedDict[str, Remembered] = OrderedDict()
        self.decided: dict[str, int] = {}  # host → its pages decided here since it last had none in the window
        self.at: dict[str, OrderedDict[str, tuple[int, int]]] = {}  # host → its pages → (decided[host], clock) when added
        self.clock = 0  # pages decided here
        self.by_key: dict[tuple[str, int], set[str]] = {}
        self.status: dict[str, dict[int, bool]] = {}  # host → key → its last known template status
        self.warm: set[str] = set()
        self.targets: OrderedDict[bytes, np.ndarray] = OrderedDict()  # page key → its link targets' hashes
        self.host_n: dict[str, float] = {}  # host → its page count in the last reply
        self.confirmed: dict[str, dict[int, float]] = {}  # host → template key → host size it was last confirmed at
        self.unsettled_at: dict[str, dict[str, float]] = {}  # host → its pages decided warm → region_at
        self.unordered: set[str] = set()  # hosts whose unsettled_at is not in non-decreasing region_at order

    def __contains__(self, url: str) -> bool:
        return url in self.pages

    def get(self, url: str) -> Remembered | None:
        return self.pages.get(url)

    def links_of(self, key: bytes | None) -> np.ndarray | None:
        """``target_hashes`` of the links of the page whose ``site.sketch.page_key`` is ``key``, one of the last
        TARGETS_KEPT pages decided here (None: not one of them) — a near-duplicate's canonical page."""
        return self.targets.get(key) if key is not None else None

    def add(self, page: Remembered, statuses: dict[int, bool]) -> None:
        """Remember ``page``, decided with ``statuses`` (its keys' template status; absent = no)."""
        url = page.facts.url
        if url in self.pages:
            self._drop(url)
        page.facts = lean(page.facts)
        self.pages[url] = page
        key = page_key(url)
        self.targets[key] = target_hashes(page.facts.links)
        self.targets.move_to_end(key)
        while len(self.targets) > self.targets_kept:
            self.targets.popitem(last=False)
        status = self.status.setdefault(page.host, {})
        keys = self._keys(page)
        page.held = len(keys) + len(page.facts.links)
        self.held += page.held
        for k in keys:
            self.by_key.setdefault((page.host, k), set()).add(url)
            if status.setdefault(k, statuses.get(k, False)):
                self.confirmed.setdefault(page.host, {}).setdefault(k, self.host_n.get(page.host, 0.0))
        self._stamp(page.host, url)
        self.settle(url, page.region_at)
        oldest = self._oldest()
        while self.age(oldest) >= self.capacity or len(self.pages) > self.limit or (self.held > HELD_KEPT and oldest != url):
            self._drop(oldest)
            oldest = self._oldest()

    def cold_keys(self, host: str, exclude: np.ndarray) -> np.ndarray:
        """Keys and region keys of this host's pages decided cold, not in ``exclude`` (asked for with
        the next page, so that they can be re-decided as soon as the host is warm)."""
        if host in self.warm:
            return np.zeros(0, dtype=np.uint64)
        cold = [p for p in self.pages.values() if p.host == host and p.cold]
        ks = {k for p in cold for k in self._keys(p)} | {int(k) for p in cold for k in p.regions}
        ks -= set(int(k) for k in exclude)
        return np.array(sorted(ks), dtype=np.uint64)

    def stale_keys(self, host: str, exclude: np.ndarray) -> np.ndarray:
        """Template keys of ``host`` last confirmed at fewer than 1/RECHECK_GROWTH of its pages, not in
        ``exclude`` (at most MAX_RECHECK, the oldest first): asked for with the next page."""
        n = self.host_n.get(host, 0.0)
        mine = self.confirmed.get(host)
        if not mine:
            return np.zeros(0, dtype=np.uint64)
        skip = set(int(k) for k in exclude)
        due = sorted((at, k) for k, at in mine.items() if n >= RECHECK_GROWTH * max(at, 1.0) and k not in skip)
        return np.array([k for _, k in due[:MAX_RECHECK]], dtype=np.uint64)

    def unsettled(self, host: str, exclude: np.ndarray) -> tuple[list[str], np.ndarray]:
        """(pages of ``host`` whose region was chosen at fewer than 1/RECHECK_GROWTH of its pages, their
        region keys not in ``exclude``): asked for with the next page, about MAX_RECHECK keys at most.
        Pages settle in the order of their host's growth, so the scan stops at the first page not due
        (unless a host's size went down in between: ``unordered``)."""
        n = self.host_n.get(host, 0.0)
        due: list[str] = []
        keys: set[int] = set()
        skip = set(exclude.tolist())
        ordered = host not in self.unordered
        for url, at in self.unsettled_at.get(host, {}).items():
            if len(keys) >= MAX_RECHECK:
                break
            if n >= RECHECK_GROWTH * max(at, 1.0):
                due.append(url)
                keys |= set(self.pages[url].regions.tolist()) - skip
            elif ordered:
                break
        return due, np.array(sorted(keys), dtype=np.uint64)

    def settle(self, url: str, region_at: float | None) -> None:
        """Record that ``url``'s region was chosen at host size ``region_at`` (None: decided cold, no region)."""
        page = self.pages[url]
        page.region_at = region_at
        mine = self.unsettled_at.setdefault(page.host, {})
        mine.pop(url, None)
        if region_at is not None:
            if mine and region_at < next(reversed(mine.values())):
                self.unordered.add(page.host)
            mine[url] = region_at
        elif not mine:
            del self.unsettled_at[page.host]
            self.unordered.discard(page.host)

    def learn(self, host: str, statuses: dict[int, bool], warm: bool, n: float = 0.0) -> set[str]:
        """Record key statuses (and warmth) seen for ``host`` at size ``n``; the remembered pages they change."""
        dirty: set[str] = set()
        self.host_n[host] = n
        if warm and host not in self.warm:
            self.warm.add(host)
            dirty |= {u for u, p in self.pages.items() if p.host == host and p.cold}
        mine = self.confirmed.setdefault(host, {})
        status = self.status.setdefault(host, {})
        for k, t in statuses.items():
            pages = self.by_key.get((host, k))
            if pages is None:
                continue
            if status.get(k) != t:
                dirty |= pages
                status[k] = t
            if t:
                mine[k] = n
            else:
                mine.pop(k, None)
        return dirty

    def touch(self, url: str) -> None:
        """Count ``url`` (re-decided, its edges changed) as decided now."""
        page = self.pages.get(url)
        if page is not None:
            self.pages.move_to_end(url)
            self._stamp(page.host, url, new=False)

    def age(self, url: str) -> int:
        """Pages of ``url``'s host decided here since ``url`` (or its last ``touch``), plus pages of other
        hosts decided since its host's last one (a host that stopped growing ages with the crawl)."""
        mine = self.at[self.pages[url].host]
        seq, _ = mine[url]
        last_seq, last_clock = next(reversed(mine.values()))
        return last_seq - seq + self.clock - last_clock

    def _stamp(self, host: str, url: str, new: bool = True) -> None:
        self.decided[host] = self.decided.get(host, 0) + new
        self.clock += new
        mine = self.at.setdefault(host, OrderedDict())
        mine[url] = (self.decided[host], self.clock)
        mine.move_to_end(url)

    def _oldest(self) -> str:
        """The remembered page of the largest ``age`` (the globally oldest among equals): the oldest
        page of one host (one candidate per host with pages in the window)."""
        firsts = [next(iter(m.items())) for m in self.at.values()]
        url, _ = max(firsts, key=lambda f: (self.age(f[0]), -f[1][1]))
        return url

    def templates(self, host: str) -> Callable[[int], bool | None]:
        """``is_template`` of one host, as a lookup (None: not template)."""
        return self.status.get(host, {}).get

    def _keys(self, page: Remembered) -> set[int]:
        ks = set(np.concatenate([page.keys.sh, page.keys.ll, page.keys.fp, page.keys.lt]).tolist())
        ks.discard(0)
        return ks

    def _drop(self, url: str) -> None:
        self.settle(url, None)
        page = self.pages.pop(url)
        self.held -= page.held
        mine = self.at[page.host]
        del mine[url]
        if not mine:
            del self.at[page.host], self.decided[page.host]
        for k in self._keys(page):
            key = (page.host, k)
            owners = self.by_key.get(key)
            if owners is not None:
                owners.discard(url)
                if not owners:
                    del self.by_key[key]
                    self.status[page.host].pop(k, None)
                    self.confirmed.get(page.host, {}).pop(k, None)
