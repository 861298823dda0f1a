"""Rank-aware priorities: the score, topicality, the per-epoch rank snapshot from real published ranks,
follow-only links after content links, and the follow scopes."""

from __future__ import annotations

import redis

from rankcrawl.crawler.follow import selected
from rankcrawl.crawler.priority import FOLLOW_ONLY_OFFSET, PRIORITY_SCALE, Prioritizer, RankCache, score, topical
from rankcrawl.pipelines.site.result import FollowLink
from rankcrawl.ranker.service import RankerService
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.settings.defaults import FOLLOW_SCOPES


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


def test_links_that_are_no_edge_come_after_content_links(r: redis.Redis, redis_url: str) -> None:
    cache = RankCache(redis_url, "rc:", refresh=0.1)
    prioritizer = Prioritizer(cache, ["harbour"])
    content = prioritizer.priority("http://a.example/", "http://a.example/x", 0.1, "")
    follow_only = prioritizer.priority("http://a.example/", "http://a.example/nav", 1.0, "harbour", counted=False)
    assert follow_only == score(0.0, 0.0, 1.0, 1.0) - FOLLOW_ONLY_OFFSET < content
    cache.pages, cache.page_mean = {"http://a.example/top": 256.0}, 1.0  # a target 256x the mean rank
    to_top = prioritizer.priority("http://a.example/", "http://a.example/top", 1.0, "", counted=False)
    assert prioritizer.priority("http://a.example/", "http://a.example/nav", 1.0, "", counted=False) < to_top < content


def test_follow_scopes_select_links() -> None:
    links = [FollowLink("http://a/c", "", 1.0, counted=True), FollowLink("http://a/n", "", 1.0, counted=False),
             FollowLink("http://a/t", "", 1.0, counted=False, template=True)]
    chosen = {scope: [link.url[-1] for link in links if selected(link, scope)] for scope in FOLLOW_SCOPES}
    assert chosen == {"all": ["c", "n", "t"], "non-template": ["c", "n"], "content": ["c"], "none": []}
