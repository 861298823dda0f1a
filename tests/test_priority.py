"""Rank-aware priorities: the score, topicality, and the per-epoch rank snapshot from real published ranks."""

from __future__ import annotations

import redis

from rankcrawl.crawler.priority import PRIORITY_SCALE, Prioritizer, RankCache, score, topical
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.ranker.service import RankerService


def test_score_grows_with_ranks_weight_and_topic() -> None:
    base = score(1.0, 1.0, 1.0, 0.0)
    assert base == 2 * PRIORITY_SCALE
    assert score(4.0, 1.0, 1.0, 0.0) > base and score(1.0, 3.0, 1.0, 0.0) > base
    assert score(1.0, 1.0, 2.0, 0.0) > base and score(1.0, 1.0, 1.0, 1.0) > base
    assert score(0.0, 1.0, 0.0, 0.0) == 0 and isinstance(base, int)


def test_topical_share_of_terms() -> None:
    terms = frozenset({"spice", "harbour"})
    assert topical("The Spice market", terms) == 0.5
    assert topical("spice at the harbour", terms) == 1.0
    assert topical("anything", frozenset()) == 0.0


def test_rank_cache_reads_the_published_epoch(r: redis.Redis, redis_url: str) -> None:
    hub, leaf = "http://a.example/hub", "http://b.example/leaf"
    spokes = [f"http://a.example/s{i}" for i in range(6)]
    GraphStore(r).put_pages([PageRecord(s, [(hub, 1.0)]) for s in spokes] + [PageRecord(hub, [(leaf, 1.0)])])
    cache = RankCache(redis_url, "rc:", refresh=0.1)
    assert not cache.update()  # nothing published yet: everything counts as average
    prioritizer = Prioritizer(cache, ["leaf"])
    assert prioritizer.priority(hub, leaf, 1.0, "") == 2 * PRIORITY_SCALE
    assert RankerService(r).solve_once() is not None
    assert cache.update() and cache.epoch is not None
    assert cache.page_rel(hub) > 1.0 > cache.page_rel(spokes[0])
    assert prioritizer.priority(hub, leaf, 1.0, "") > prioritizer.priority(spokes[0], hub, 1.0, "")
    assert prioritizer.priority(hub, leaf, 1.0, "the leaf page") > prioritizer.priority(hub, leaf, 1.0, "")
    assert not cache.update()  # same epoch: no reload
