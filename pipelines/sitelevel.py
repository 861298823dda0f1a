"""SiteAnalyzer: the per-host step between page analysis and the edge pipeline (SPEC §2.4–2.6).

``process(doc)`` records what the page contributes to its host's statistics (pagelet shingles,
segment fingerprints, block classes, lexical terms), then decides with the host's current
evidence: blocks whose fingerprint is frequent on the host stop being content, links owned by
template pagelets never count — a pagelet is template when its shingle recurs, or when it is a
link list (link density ≥ LINK_LIST) whose DOM label is a link list on many pages of the host
(Oliveira's block class with high spread: "related" boxes whose links change per page; a
recurring prose class such as the article body never qualifies) — near-duplicates of an earlier page keep no links, and each kept
link gets its weight (uniform / block / lexical). Lexical mode is Zhang et al.'s CLP filter
(§4.4: links with sim ≤ alpha are dropped, the reduced graph is ranked unweighted), so kept
links weigh 1; title terms on ≥ share of the host's pages (the site name) are left out of the
title vectors, which would otherwise make every same-host link look similar. Before a host has ``min_pages`` pages the
per-page classifier's decisions stand.

Re-weighting earlier pages: every page's record (links with their block and pagelet, block
fingerprints, labels and terms) stays in Redis, so ``edges_for(url)`` recomputes any page's edges
from current statistics. ``SiteDecision.stale`` lists the pages whose edges changed because of
this page — all earlier pages of the host when it reaches ``min_pages``, pages sharing a
shingle/fingerprint whose template status just flipped, and (lexical mode) pages that weighed a
link to this page with a stand-in. The edge pipeline re-pushes ``edges_for(u)`` for each.
Slow drift of block weights between those events is not re-pushed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import redis

from rankcrawl.pipelines.blockclasses import digest
from rankcrawl.pipelines.fingerprints import fingerprint, normalize
from rankcrawl.pipelines.lexical import position_tfs, similarity, stand_in, vocabulary
from rankcrawl.pipelines.linkweights import BLOCK_FLOOR, block_weight, check
from rankcrawl.pipelines.neardup import NearDupIndex, fingerprints, largest_segment
from rankcrawl.pipelines.pagelets import partition
from rankcrawl.pipelines.shingles import tokens
from rankcrawl.pipelines.sitestats import SiteStats
from rankcrawl.settings.urls import split_url

MAX_TERMS = 50
LINK_LIST = 0.5


@dataclass
class SiteDecision:
    """What the site-level step decided for one page.

    ``link_weights`` and ``template_links`` (indices) follow ``doc.all_links``; a weight of 0 means
    the link is no edge. ``edges`` sums the kept weights per target URL.
    """

    url: str
    warm: bool
    edges: list[tuple[str, float]]
    link_weights: list[float] = field(default_factory=list)
    template_blocks: list[int] = field(default_factory=list)
    template_links: list[int] = field(default_factory=list)
    duplicate_of: str | None = None
    stale: list[str] = field(default_factory=list)


def page_record(doc: Any) -> dict[str, Any]:
    """The page's contribution and link list, as stored in Redis (JSON-able)."""
    pagelets = partition(doc.root) if doc.root is not None else []
    owner = {a: str(p.shingle) for p in pagelets for a in p.links}
    link_lists = {str(p.shingle): "L:" + digest(p.label) for p in pagelets
                  if p.links and p.link_density >= LINK_LIST}
    blocks = doc.blocks
    segment = largest_segment([(b.text, b.link_density) for b in blocks if b.is_content])
    return {
        "sh": sorted({str(p.shingle) for p in pagelets}),
        "ll": link_lists,
        "fp": [fingerprint(b.text) if normalize(b.text) else None for b in blocks],
        "lb": [digest("/".join(b.path)) for b in blocks],
        "tm": [list(dict.fromkeys(tokens(b.text)))[:MAX_TERMS] for b in blocks],
        "ct": [bool(b.is_content) for b in blocks],
        "ln": [[link.url, link.text, link.block, owner.get(link.element), doc.is_content_link(link)]
               for link in doc.all_links],
        "lx": position_tfs(doc.title or "", doc.text),
        "nd": [str(v) for v in fingerprints(segment)],
        "dup": None,
    }


class SiteAnalyzer:
    """Site-level templates, near-duplicates and link weights over shared Redis statistics."""

    def __init__(self, client: redis.Redis, prefix: str = "rc:", min_pages: int = 3,
                 weighting: str = "uniform", scope: str = "content", share: float = 0.4,
                 alpha: float = 0.0, max_pages: int = 1000) -> None:
        check(weighting, scope)
        self.stats = SiteStats(client, prefix, max_pages)
        self.neardup = NearDupIndex(client, prefix)
        self.min_pages, self.weighting, self.scope = min_pages, weighting, scope
        self.share, self.alpha = share, alpha

    def process(self, doc: Any) -> SiteDecision:
        """Update the host's statistics with ``doc`` and apply the site-level decision to it."""
        if not doc.url:
            raise ValueError("site-level analysis needs the page URL")
        url = doc.url
        host = split_url(url)[0]
        record = page_record(doc)
        old = self.stats.record(host, url)
        if old and old.get("nd") and old["nd"] != record["nd"]:
            self.neardup.forget(url, [int(v) for v in old["nd"]])
        record["dup"] = self.neardup.canonical(url, [int(v) for v in record["nd"]])
        before = self.stats.n_pages(host)
        old, stored = self.stats.update(host, url, record)
        if stored:
            self.stats.update_df(vocabulary(old["lx"]) if old else set(), vocabulary(record["lx"]), old is None)
        decision, template_keys, page_keys = self._decide(host, url, record)
        decision.stale = self._stale(host, url, before, template_keys, page_keys)
        self._apply(doc, record, decision)
        return decision

    def edges_for(self, url: str) -> list[tuple[str, float]]:
        """Edges of an already processed page, recomputed from current statistics."""
        decision = self.decide(url)
        return decision.edges if decision else []

    def decide(self, url: str) -> SiteDecision | None:
        """The current decision for an already processed page (None if never processed)."""
        host = split_url(url)[0]
        record = self.stats.record(host, url)
        return self._decide(host, url, record)[0] if record else None

    def _decide(self, host: str, url: str, rec: dict[str, Any]) -> tuple[SiteDecision, set[str], set[str]]:
        n = self.stats.n_pages(host)
        warm = n >= self.min_pages
        fps = sorted({f for f in rec["fp"] if f})
        pairs = [f"{lb}|{t}" for lb, terms in zip(rec["lb"], rec["tm"]) for t in terms]
        link_lists = rec.get("ll", {})
        lists = sorted(set(link_lists.values()))
        c = self.stats.counts(host, {"sh": rec["sh"], "fp": fps, "ll": lists, "cls": rec["lb"], "ct": pairs})
        floor = max(2.0, self.share * n)
        recurring = zip([*rec["sh"], *fps, *lists], [*c["sh"], *c["fp"], *c["ll"]])
        tmpl = {k for k, v in recurring if v >= floor} if warm else set()
        template_blocks = [i for i, f in enumerate(rec["fp"]) if f in tmpl]
        content = [ct and i not in template_blocks for i, ct in enumerate(rec["ct"])]
        weights = self._block_weights(rec, c["cls"], c["ct"]) if self.weighting == "block" and warm else None
        edges: dict[str, float] = defaultdict(float)
        link_weights: list[float] = []
        template_links: list[int] = []
        for j, (target, anchor, b, owner, *flag) in enumerate(rec["ln"]):
            in_template = owner in tmpl or link_lists.get(owner) in tmpl or b in template_blocks
            if in_template:
                template_links.append(j)
            is_content = b >= 0 and (flag[0] if flag else content[b])
            dropped = (self.scope == "content" and (not is_content or in_template)) or (
                self.scope == "non-template" and in_template) or bool(rec["dup"])
            w = None if dropped else self._weight(url, rec, target, anchor, b, weights)
            link_weights.append(w or 0.0)
            if w is not None:
                edges[target] += w
        decision = SiteDecision(url, warm, list(edges.items()), link_weights, template_blocks, template_links,
                                rec["dup"])
        return decision, tmpl, set(rec["sh"]) | set(fps) | set(lists)

    def _block_weights(self, rec: dict[str, Any], n_cls: list[int], n_ct: list[int]) -> list[float]:
        out, at = [], 0
        for terms, n_c in zip(rec["tm"], n_cls):
            out.append(block_weight(n_c, n_ct[at : at + len(terms)]))
            at += len(terms)
        return out

    def _weight(self, url: str, rec: dict[str, Any], target: str, anchor: str, b: int,
                block_weights: list[float] | None) -> float | None:
        if self.weighting == "block" and block_weights is not None and b >= 0:
            w = block_weights[b]
            return w if w > BLOCK_FLOOR else None
        if self.weighting == "lexical":
            host, thost = split_url(url)[0], split_url(target)[0]
            other = self.stats.record(thost, target)
            if other is None:
                self.stats.add_pending(thost, target, url)
                q = stand_in(anchor, rec["tm"][b] if b >= 0 else [])
            else:
                q = self._own_title(thost, other["lx"])
            p = self._own_title(host, rec["lx"])
            df, n_docs = self.stats.df(sorted(vocabulary(p) | vocabulary(q)))
            return 1.0 if similarity(p, q, df, n_docs) > self.alpha else None
        return 1.0

    def _own_title(self, host: str, tfs: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
        """Position vectors without the title terms on ≥ share of the host's pages (its site name)."""
        n = self.stats.n_pages(host)
        if n < self.min_pages or not tfs["title"]:
            return tfs
        title = sorted(tfs["title"])
        counts = self.stats.counts(host, {"tt": title})["tt"]
        floor = max(2.0, self.share * n)
        return {**tfs, "title": {t: tfs["title"][t] for t, c in zip(title, counts) if c < floor}}

    def _stale(self, host: str, url: str, before: int, template: set[str], keys: set[str]) -> list[str]:
        stale: set[str] = set()
        if self.weighting == "lexical":
            stale.update(self.stats.pop_pending(host, url))
        after = self.stats.n_pages(host)
        if after < self.min_pages:
            return sorted(stale - {url})
        flipped = self.stats.retag(host, template, keys - template)
        if before < self.min_pages:
            stale.update(self.stats.records(host))
        elif flipped:
            for other, rec in self.stats.records(host).items():
                if flipped & (set(rec["sh"]) | {f for f in rec["fp"] if f} | set(rec.get("ll", {}).values())):
                    stale.add(other)
        stale.discard(url)
        return sorted(stale)

    def _apply(self, doc: Any, rec: dict[str, Any], decision: SiteDecision) -> None:
        for i in decision.template_blocks:
            doc.blocks[i].is_content = False
        links = doc.all_links
        for j in decision.template_links:
            links[j].is_content = False
        for link, w in zip(links, decision.link_weights):
            link.weight = w
