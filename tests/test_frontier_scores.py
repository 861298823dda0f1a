"""The frontier strategies' arithmetic: evidence per in-link, scores, the epoch's evidence, host counts."""

from __future__ import annotations

import numpy as np
import pytest

from bench.frontier_sim import SimWeb, best_discovered, simulate
from rankcrawl.crawler.frontier_scores import (
    EPOCH_WEIGHT,
    NAMES,
    PRIOR_PAGES,
    RESCORE_DRIFT,
    HostCounts,
    HostTally,
    epoch_evidence,
    strategy,
)

ALPHA = 0.85


def test_names_and_bad_input() -> None:
    assert {strategy(n).name for n in NAMES} == set(NAMES)
    with pytest.raises(ValueError, match="unknown frontier 'lifo'"):
        strategy("lifo")
    with pytest.raises(ValueError, match="damping"):
        strategy("pagerank", alpha=1.0)


def test_yardsticks() -> None:
    bfs, static, inlinks, opic = (strategy(n) for n in ("breadth-first", "static", "inlinks", "opic"))
    assert bfs.first(7, 2.0, 0.5) == 0.0 and bfs.vote(2.0, 0.5) == 0.0 and not bfs.rescores
    assert static.first(7, 2.0, 0.5) == 7.0 and static.seed(3) == 3.0 and not static.rescores
    assert inlinks.evidence(2.0, 0.25) == 1.0 and inlinks.evidence(2.0, 0.0) == 0.0  # a followed-only link is no in-link
    assert inlinks.seed(0) == 1.0
    assert opic.evidence(2.0, 0.25) == 0.5 and opic.seed(0) == 1.0
    assert opic.score(1.5) == 1.5
    for s in (bfs, static, inlinks, opic):
        assert not s.uses_ranks and not s.uses_hosts


def test_pagerank_estimate() -> None:
    pr = strategy("pagerank", ALPHA)
    assert pr.rescores and pr.uses_ranks and pr.uses_hosts
    assert pr.evidence(3.0, 0.25) == 1.0 and pr.evidence(3.0, 0.0) == 0.0  # fetched pages that link, counted
    # a start request, alone on its host (or with other start requests): the prior of PRIOR_PAGES linking pages
    seed = (1 - ALPHA) + ALPHA * PRIOR_PAGES
    assert pr.seed(0, HostCounts(queued=1)) == pytest.approx(seed)
    assert pr.seed(0, HostCounts(queued=5)) == pytest.approx(seed)
    # one page fetched of 11 known, with 10 counted links of share 0.1: each target is about the average page
    host = HostCounts(queued=10, fetched=1, links=10, shares=1.0)
    assert pr.score(1.0, 0, host) == pytest.approx((1 - ALPHA) + ALPHA * 0.1 * 10 * (1.0 + PRIOR_PAGES * 10 / 11) / 2)
    assert pr.score(1.0, 0, host) == pytest.approx(1.35, abs=0.01)
    # the host's mean share per link (0.05: pages of 20 links) scales every vote
    assert pr.score(1.0, 0, HostCounts(queued=10, fetched=1, links=20, shares=1.0)) == pytest.approx(
        (1 - ALPHA) + ALPHA * 0.05 * 10 * (1.0 + PRIOR_PAGES) / 2)
    # linked from more fetched pages ranks higher; the same count on a host fetched further ranks lower
    host = HostCounts(queued=80, fetched=20, links=400, shares=20.0)
    assert pr.score(12.0, 0, host) > pr.score(3.0, 0, host) > pr.score(0.0, 0, host)
    assert pr.score(3.0, 0, HostCounts(queued=70, fetched=30, links=600, shares=30.0)) < pr.score(3.0, 0, host)
    # linked from every fetched page of a host of 100: about the votes of every page, 100 · 0.05
    assert pr.score(20.0, 0, host) == pytest.approx((1 - ALPHA) + ALPHA * 0.05 * 80 * (20 + PRIOR_PAGES * 0.2) / 21)
    # a host fetched out: nothing left to vote, the teleport share remains
    assert pr.score(5.0, 0, HostCounts(queued=0, fetched=40, links=90, shares=9.0)) == pytest.approx(1 - ALPHA)
    # the priority does not count
    assert pr.score(3.0, 99, host) == pr.score(3.0, 0, host)


@pytest.mark.parametrize("name", NAMES)
def test_vote_is_the_score_an_in_link_adds(name: str) -> None:
    s = strategy(name)
    host = HostCounts(queued=30, fetched=4)
    before = s.score(0.2, 0, host)
    after = s.score(0.2 + s.evidence(1.5, 0.125), 0, host)
    assert s.vote(1.5, 0.125, host) == pytest.approx(after - before)


def test_epoch_evidence_keeps_each_hosts_sum() -> None:
    items = [("a", "h1", 0.010, 0.5), ("b", "h1", 0.004, 0.5), ("c", "h1", 0.002, 1.0),
             ("d", "h2", 0.003, 0.2), ("e", "h2", 0.003, 0.6), ("f", "h3", 0.002, 0.7)]
    out = epoch_evidence(items, weight=1.0)
    assert sum(out[k] for k in "abc") == pytest.approx(2.0)
    assert out["a"] == pytest.approx(2.0 * 0.008 / 0.010) and out["b"] == pytest.approx(2.0 * 0.002 / 0.010)
    assert out["c"] == 0.0  # at the lowest rank: no in-flow above the teleport share
    assert out["d"] == pytest.approx(0.4) and out["e"] == pytest.approx(0.4)
    assert out["f"] == 0.7  # only the lowest rank on its host: evidence kept
    blended = epoch_evidence(items)
    assert blended["a"] == pytest.approx(EPOCH_WEIGHT * 1.6 + (1 - EPOCH_WEIGHT) * 0.5)
    assert sum(blended[k] for k in "abc") == pytest.approx(2.0)
    assert epoch_evidence([]) == {}


def test_host_tally() -> None:
    tally = HostTally()
    for _ in range(3):
        tally.queued("h")
    tally.taken("h")
    tally.dropped("h")
    tally.linked("h", 0.25)
    tally.linked("h", 0.5)
    tally.linked("h", 0.0)  # followed, not counted
    h = tally.of("h")
    assert (h.queued, h.fetched, h.links, h.shares) == (1, 1, 2, 0.75)
    assert (tally.crawl.links, tally.crawl.shares) == (2, 0.75) and h.crawl is tally.crawl
    other = tally.of("other")
    assert (other.queued, other.fetched, other.links, other.shares) == (0, 0, 0, 0.0)


def test_host_rescore_when_its_factor_drifts() -> None:
    pr = strategy("pagerank")
    host = HostCounts(queued=9, fetched=2, links=10, shares=1.0)
    assert pr.host_factor(host) == pytest.approx(0.3)  # s̄ (D − F) / (F + 1)
    assert pr.rescore_due(host)  # never re-scored
    host.scale = pr.host_factor(host)
    assert not pr.rescore_due(host)
    host.fetched = 3  # 0.1 · 9 / 4: drifted by a quarter
    assert not pr.rescore_due(host)
    host.fetched, host.queued = 5, 8  # 0.1 · 8 / 6: drifted by more than RESCORE_DRIFT
    assert 1 - pr.host_factor(host) / host.scale > RESCORE_DRIFT and pr.rescore_due(host)
    host.scale = pr.host_factor(host)
    host.links, host.shares = 30, 1.2  # the mean share fell to 0.04
    assert pr.rescore_due(host)
    assert not any(strategy(n).rescore_due(HostCounts(queued=5)) for n in NAMES if n != "pagerank")


def hub_web() -> SimWeb:
    """Host a: a start page linking to 30 pages that all link to one page T (page 31); host b: a
    start page linking to 10 pages that link nowhere. T holds most of the importance."""
    follow = [np.arange(1, 31)] + [np.array([31]) for _ in range(30)] + [np.array([], dtype=np.int64)]
    follow += [np.arange(33, 43)] + [np.array([], dtype=np.int64) for _ in range(10)]
    importance = np.full(43, 0.1 / 42)
    importance[31] = 0.9
    return SimWeb("hub", follow, list(follow), ["a"] * 32 + ["b"] * 11, importance, [0, 32])


def test_simulated_crawl_fetches_the_linked_page_early() -> None:
    web = hub_web()
    ranks = {}
    for name in NAMES:
        order = simulate(web, strategy(name), web.n, inflight=1, epoch_pages=5).order
        assert sorted(order) == list(range(web.n))  # every page once
        ranks[name] = order.index(31)
    assert ranks["breadth-first"] > 30
    assert ranks["pagerank"] <= 4  # after the start pages and one page that links to T
    assert best_discovered(web, web.n, inflight=1).index(31) == 3
