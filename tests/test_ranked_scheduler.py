"""RankedScheduler: one re-scorable entry per queued URL, busy slots passed over, JOBDIR resume, live ranks."""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from rankcrawl.crawler.frontier_queue import FrontierQueue
from rankcrawl.crawler.frontier_scores import LINK_META, VALUE_META
from rankcrawl.crawler.scheduler import STATE_FILE, RankedScheduler
from rankcrawl.ranker.service import RankerService
from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.ranker.store.records import PageRecord
from rankcrawl.settings.addon import Addon


class Demo(Spider):
    name = "demo"

    def parse(self, response: Any) -> None:
        return None


def scheduler(frontier: str, **settings: Any) -> RankedScheduler:
    crawler = get_crawler(Demo, {"RANKCRAWL_REDIS_URL": "redis://127.0.0.1:9/0", "RANKCRAWL_FRONTIER": frontier,
                                 **settings})
    s = RankedScheduler.from_crawler(crawler)
    s.open(Demo.from_crawler(crawler))
    return s


def link(url: str, value: float, share: float) -> Request:
    return Request(url, meta={LINK_META: [value, share], "depth": 1})


def drain(s: RankedScheduler) -> list[str]:
    return [r.url for r in iter(s.next_request, None)]


@pytest.mark.parametrize("frontier", ["opic", "inlinks", "pagerank"])
def test_a_url_found_again_with_new_in_links_moves_up_the_queue(frontier: str, redis_url: str) -> None:
    s = scheduler(frontier, RANKCRAWL_REDIS_URL=redis_url)
    try:
        for url in ("http://a.test/1", "http://a.test/2", "http://a.test/3"):
            assert s.enqueue_request(link(url, 1.0, 0.2))
        assert not s.enqueue_request(link("http://a.test/3", 1.0, 0.2))  # found again: no second entry
        assert len(s) == 3
        assert drain(s)[0] == "http://a.test/3"
        assert s.stats.get_value("rankcrawl/frontier/rescored") == 1
    finally:
        s.close("finished")


@pytest.mark.parametrize("frontier", ["opic", "inlinks", "pagerank"])
def test_a_link_to_a_queued_url_is_credited_without_a_request(frontier: str) -> None:
    s = scheduler(frontier)
    for url in ("http://a.test/1", "http://a.test/2", "http://a.test/3"):
        assert s.enqueue_request(link(url, 1.0, 0.2))
    assert s.credit("http://a.test/3", [1.0, 0.2])  # queued: its entry takes the in-link
    assert not s.credit("http://a.test/4", [1.0, 0.2])  # not queued: the caller yields a request
    assert len(s) == 3
    assert drain(s)[0] == "http://a.test/3"
    assert s.stats.get_value("rankcrawl/frontier/rescored") == 1
    assert s.credit("http://a.test/3", [1.0, 0.2])  # handed out: what the dupefilter would drop
    assert not s.credit("http://a.test/3?x", [1.0, 0.2])  # never seen under that exact URL
    drain(s)
    assert s.stats.get_value("dupefilter/filtered") == 1


def frontier_state(s: RankedScheduler) -> tuple:
    hosts = {h: [c.fetched, c.links, c.shares] for h, c in s.tally.hosts.items()}
    return (hosts, s.siblings.saved() if s.siblings is not None else None, dict(s.evidence),
            s.stats.get_value("dupefilter/filtered"), drain(s))


@pytest.mark.parametrize("frontier", ["opic", "inlinks", "pagerank"])
def test_a_link_to_a_handed_out_url_counts_as_its_dropped_request_would(frontier: str, redis_url: str) -> None:
    """``credit`` of a handed-out URL leaves the frontier as the request's trip through ``enqueue_request``
    (dropped by the dupefilter) does: the host's counts, the siblings' evidence and scores, the stat."""
    states = []
    for credit in (False, True):
        s = scheduler(frontier, RANKCRAWL_REDIS_URL=redis_url)
        try:
            for url in ("http://a.test/v1/intro.html", "http://a.test/v2/intro.html", "http://a.test/v3/intro.html",
                        "http://b.test/other.html"):
                assert s.enqueue_request(link(url, 1.0, 0.2))
            handed = s.next_request()
            assert handed is not None
            for value, share in ((1.0, 0.5), (2.0, 0.25), (0.5, 0.0)):
                if credit:
                    assert s.credit(handed.url, [value, share])
                else:
                    assert not s.enqueue_request(link(handed.url, value, share))
            s._count_rescored()
            states.append(frontier_state(s))
        finally:
            s.close("finished")
    assert states[0] == states[1]
    assert states[1][3] == 3


def test_only_exact_duplicates_are_credited_without_a_request() -> None:
    """A handed-out request a link's request would not duplicate exactly (another method, a body,
    ``dont_filter``, its own download slot) or a dupefilter other than Scrapy's: the request is made."""
    s = scheduler("opic")
    s.enqueue_request(Request("http://a.test/post", method="POST", body=b"q=1"))
    s.enqueue_request(Request("http://a.test/slot", meta={"download_slot": "x"}))
    s.enqueue_request(Request("http://a.test/again", dont_filter=True))
    drain(s)
    assert not any(s.credit(u, [1.0, 0.5]) for u in ("http://a.test/post", "http://a.test/slot", "http://a.test/again"))
    other = scheduler("opic", DUPEFILTER_CLASS="scrapy.dupefilters.BaseDupeFilter")
    other.enqueue_request(Request("http://a.test/"))
    drain(other)
    assert not other.credit("http://a.test/", [1.0, 0.5])


def test_breadth_first_keeps_first_seen_order_and_drops_later_sightings() -> None:
    s = scheduler("breadth-first")
    for url in ("http://a.test/1", "http://a.test/2", "http://a.test/1"):
        s.enqueue_request(link(url, 1.0, 0.5))
    assert drain(s) == ["http://a.test/1", "http://a.test/2"]


def test_a_url_handed_out_is_not_queued_again_and_carries_its_value() -> None:
    s = scheduler("opic")
    s.enqueue_request(Request("http://a.test/"))  # a start request: OPIC's initial cash
    request = s.next_request()
    assert request is not None and request.meta[VALUE_META] == 1.0
    assert not s.enqueue_request(link("http://a.test/", 1.0, 1.0))
    assert s.enqueue_request(Request("http://a.test/", dont_filter=True))


def test_a_busy_slot_does_not_block_the_other_slots() -> None:
    q = FrontierQueue()
    q.push("a1", "a", 5.0, None)
    q.push("a2", "a", 4.0, None)
    q.push("b1", "b", 1.0, None)
    assert q.pop(lambda slot: slot == "a").key == "b1"
    assert q.pop(lambda slot: slot == "a") is None  # only busy slots left: nothing to hand out
    assert [q.pop().key, q.pop().key] == ["a1", "a2"]


def test_rescoring_in_any_order_pops_best_first() -> None:
    rng = np.random.default_rng(0)
    q = FrontierQueue()
    scores: dict[int, float] = {}
    for k in range(300):
        scores[k] = float(rng.integers(0, 20))
        q.push(k, f"h{k % 7}", scores[k], None)
    for k in rng.integers(0, 300, 2000).tolist():
        scores[k] = float(rng.integers(0, 40))
        q.rescore(k, scores[k])
    popped = [q.pop().key for _ in range(300)]
    assert [scores[k] for k in popped] == sorted(scores.values(), reverse=True)
    assert len(q) == 0 and q.pop() is None


def test_a_batch_rescoring_pops_as_one_by_one_rescoring() -> None:
    rng = np.random.default_rng(1)
    one, batch = FrontierQueue(), FrontierQueue()
    for k in range(300):
        score = float(rng.integers(0, 20))
        one.push(k, f"h{k % 7}", score, None)
        batch.push(k, f"h{k % 7}", score, None)
    for _ in range(5):
        epoch = {int(k): float(rng.integers(0, 40)) for k in rng.integers(0, 300, 400)}
        for k, score in epoch.items():
            one.rescore(k, score)
        batch.rescore_many(epoch.items())
    assert [e.key for e in iter(one.pop, None)] == [e.key for e in iter(batch.pop, None)]


def test_a_restarted_crawl_resumes_with_the_same_queue(tmp_path: Path) -> None:
    first = scheduler("opic", JOBDIR=str(tmp_path))
    first.enqueue_request(Request("http://a.test/"))
    for i, share in enumerate((0.1, 0.5, 0.3)):
        first.enqueue_request(link(f"http://b.test/{i}", 1.0, share))
    first.next_request()
    first.close("shutdown")
    assert (tmp_path / STATE_FILE).exists()
    second = scheduler("opic", JOBDIR=str(tmp_path))
    assert second.tally.of("a.test").fetched == 1 and second.tally.of("b.test").queued == 3
    assert drain(second) == ["http://b.test/1", "http://b.test/2", "http://b.test/0"]
    assert not second.enqueue_request(link("http://b.test/1", 1.0, 0.1))  # seen before the restart


def test_a_corrupt_jobdir_state_is_skipped_line_by_line(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text('{"evidence": 1, "request": {"url": "http://a.test/x", "method": "GET"}}\n'
                                       'not json\n{"evidence": 2, "request": {"url": "http://a.test/y", "_class": "os.system"}}\n'
                                       '{"evidence": -1, "request": {"url": "http://a.test/z", "method": "GET"}}\n'
                                       '{"hosts": {"a.test": ["many", 1, 0.5], "b.test": [1, 1, 9.0]}}\n[1, 2]\n')
    s = scheduler("opic", JOBDIR=str(tmp_path))
    assert drain(s) == ["http://a.test/x"]


def test_published_ranks_reach_queued_entries(redis_url: str, r: Any) -> None:
    """Two queued URLs with equal evidence; the ranker's epoch knows that six pages link to one of them."""
    s = scheduler("pagerank", RANKCRAWL_REDIS_URL=redis_url, RANKCRAWL_RANK_REFRESH=0.05)
    low, high = "http://a.test/low", "http://a.test/high"
    try:
        for url in (low, high):
            s.enqueue_request(link(url, 1.0, 0.5))
        spokes = [f"http://b.test/s{i}" for i in range(6)]
        GraphStore(r).put_pages([PageRecord(p, [(high, 1.0)]) for p in spokes] + [PageRecord(spokes[0], [(low, 1.0)])])
        assert RankerService(r).solve_once() is not None
        deadline = time.monotonic() + 10
        while s.stats.get_value("rankcrawl/frontier/epochs") is None and time.monotonic() < deadline:
            s._apply_ranks()
            time.sleep(0.05)
        assert s.stats.get_value("rankcrawl/frontier/ranked") == 2
        assert drain(s) == [high, low]
    finally:
        s.close("finished")


def test_the_addon_sets_the_ranked_scheduler_unless_the_user_chose_one(redis_url: str) -> None:
    ours = get_crawler(Demo, {"ADDONS": {Addon: 0}, "RANKCRAWL_REDIS_URL": redis_url})
    assert ours.settings["SCHEDULER"] == "rankcrawl.crawler.scheduler.RankedScheduler"
    theirs = get_crawler(Demo, {"ADDONS": {Addon: 0}, "RANKCRAWL_REDIS_URL": redis_url,
                                "SCHEDULER": "scrapy.core.scheduler.Scheduler"})
    assert theirs.settings["SCHEDULER"] == "scrapy.core.scheduler.Scheduler"


@pytest.mark.parametrize("frontier", ["opic", "inlinks", "pagerank"])
def test_topic_terms_raise_a_links_evidence(frontier: str, redis_url: str) -> None:
    s = scheduler(frontier, RANKCRAWL_REDIS_URL=redis_url)
    try:
        s.enqueue_request(Request("http://a.test/plain", meta={LINK_META: [1.0, 0.5, 1.0], "depth": 1}))
        s.enqueue_request(Request("http://a.test/topical", meta={LINK_META: [1.0, 0.5, 3.0], "depth": 1}))
        assert drain(s) == ["http://a.test/topical", "http://a.test/plain"]
    finally:
        s.close("finished")


def test_bad_link_evidence_is_ignored() -> None:
    s = scheduler("opic")
    for bad in ([1.0], [-1.0, 0.5], [1.0, 2.0], ["x", 0.5], [1.0, 0.5, 0.5], [float("inf"), 0.5], "1,0.5"):
        assert s.enqueue_request(Request(f"http://a.test/{len(s)}", meta={LINK_META: bad, "depth": 1}))
    assert all(s.evidence[k] == 0.0 for k in s.evidence)


def test_a_rescoring_frontier_waits_while_fetched_pages_await_analysis() -> None:
    waiting = SimpleNamespace(queue=deque(), active=set())
    for frontier, waits in (("opic", True), ("breadth-first", False)):
        s = scheduler(frontier, RANKCRAWL_ANALYSIS_BACKLOG=3)
        s.crawler.engine = SimpleNamespace(scraper=SimpleNamespace(slot=waiting))
        for url in ("http://a.test/1", "http://b.test/1"):
            s.enqueue_request(link(url, 1.0, 0.5))
        waiting.queue.extend(["fetched"])
        waiting.active.update(["in analysis", "also"])
        assert (s.next_request() is None) is waits and len(s) == 2 - (not waits)
        waiting.active.discard("also")  # one page analysed: its links are known, the next URL goes out
        assert s.next_request() is not None
        waiting.queue.clear()
        waiting.active.clear()
    assert scheduler("opic", RANKCRAWL_ANALYSIS_BACKLOG=0).backlog == 0
    assert scheduler("opic", RANKCRAWL_ANALYSIS_WORKERS=3).backlog == 6  # unset: two per worker
    assert scheduler("opic", RANKCRAWL_ANALYSIS_WORKERS=0).backlog == 2  # the worker in the crawl process


@pytest.mark.parametrize("frontier", ["opic", "inlinks", "pagerank"])
def test_host_counts_refreshed_once_before_a_pop_pop_as_refreshed_at_every_link(frontier: str,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    links = [(f"http://h{int(rng.integers(6))}.test/{int(rng.integers(40))}", float(rng.random()), float(rng.random()))
             for _ in range(400)]

    def order() -> list[str]:
        s = scheduler(frontier)
        popped = []
        for i, (url, value, share) in enumerate(links):
            if not s.credit(url, [value, share]):
                s.enqueue_request(link(url, value, share))
            if i % 7 == 6 and (r := s.next_request()) is not None:
                popped.append(r.url)
        return popped + drain(s)

    deferred = order()
    eager = RankedScheduler._host_link

    def refreshed_now(self: RankedScheduler, slot: str, evidence: Any) -> None:
        eager(self, slot, evidence)
        self.queue.refresh(slot)

    monkeypatch.setattr(RankedScheduler, "_host_link", refreshed_now)
    assert order() == deferred and len(deferred) > 100
