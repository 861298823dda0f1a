"""Site state in a real Valkey: counts, once per page, decay, bounded per host, one round trip per page."""

from __future__ import annotations

import redis

from rankcrawl.pipelines.site import sketch
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer
from rankcrawl.pipelines.site.facts import PageFacts
from rankcrawl.pipelines.site.sketch import SiteState, typed_keys

HOST = "http://big.test"
NAV = [f"{HOST}/nav/{k}" for k in range(8)]
FOOT = [f"{HOST}/about", f"{HOST}/contact", f"{HOST}/jobs"]


def facts(i: int, host: str = HOST) -> PageFacts:
    """A generated page: a nav list and a footer (the same on every page) around unique content."""
    content = [f"{host}/p/{i + 1}", f"{host}/p/{i + 7}"]
    links = [u.replace(HOST, host) for u in NAV] + content + [u.replace(HOST, host) for u in FOOT]
    n_nav, n_c = len(NAV), len(content)
    return PageFacts(
        url=f"{host}/p/{i}", title=f"Page {i}", block_text=["nav", f"text {i}", "footer"],
        block_content=[False, True, False], block_fp=[444, 10_000 + i, 555],
        links=links, anchors=["a"] * len(links),
        link_block=[0] * n_nav + [1] * n_c + [2] * len(FOOT),
        link_content=[False] * n_nav + [True] * n_c + [False] * len(FOOT),
        link_in_content=[False] * n_nav + [True] * n_c + [False] * len(FOOT),
        link_regions=[0] * n_nav + [1] * n_c + [0] * len(FOOT), region_keys=[999], region_depth=[4], region_own=1,
        link_pagelet=[0] * n_nav + [1] * n_c + [2] * len(FOOT),
        pagelet_shingle=[111, 20_000 + i, 333], pagelet_list=[222, 0, 777])


def test_keys_count_pages_once_and_a_seen_page_is_read_only(r: redis.Redis) -> None:
    state = SiteState(r, "t:")
    nav, own = typed_keys("sh", [1]), typed_keys("sh", [2])
    for i in range(4):
        reply = state.update(HOST, f"{HOST}/p/{i}", nav)
    assert (reply.n, reply.seen, reply.counts) == (4, False, [4])
    again = state.update(HOST, f"{HOST}/p/2", nav)
    assert (again.n, again.seen, again.counts) == (4, True, [4])
    fresh = state.update(HOST, f"{HOST}/p/9", own, query=nav)
    assert (fresh.n, fresh.counts, fresh.query) == (5, [1], [4])


def test_counts_and_page_count_decay_together(r: redis.Redis, monkeypatch) -> None:
    monkeypatch.setattr(sketch, "DECAY_AT", 10)
    state = SiteState(r, "t:")
    nav = typed_keys("sh", [1])
    replies = [state.update(HOST, f"{HOST}/p/{i}", nav) for i in range(12)]
    assert [x.n for x in replies] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 5, 6, 7]
    assert replies[-1].counts == [7]  # share count/n kept: still on every page


def test_host_state_stays_flat_as_the_host_grows(r: redis.Redis) -> None:
    sa = SiteAnalyzer(r, prefix="t:")
    sizes = {}
    for i in range(1500):
        d = sa.process(facts(i))
        if i + 1 in (150, 1500):
            sizes[i + 1] = sa.state.memory(HOST)
    assert sizes[1500] <= sizes[150] * 1.05 and sizes[1500] < 48 * 1024
    assert {t for t, _ in d.edges} == {f"{HOST}/p/1500", f"{HOST}/p/1506"}
    assert set(d.template_links) == set(range(len(NAV))) | {len(NAV) + 2 + k for k in range(len(FOOT))}


class CountingRedis(redis.Redis):
    """A client that counts the commands (round trips) it sends."""

    sent = 0

    def execute_command(self, *args, **options):
        CountingRedis.sent += 1
        return super().execute_command(*args, **options)


def test_one_round_trip_per_page(redis_url: str) -> None:
    client = CountingRedis.from_url(redis_url)
    sa = SiteAnalyzer(client, prefix="t:", min_pages=3)
    sa.process(facts(0))  # loads the script (EVALSHA, SCRIPT LOAD, EVALSHA)
    stats = client.info("commandstats")["cmdstat_evalsha"]["calls"]
    before = CountingRedis.sent
    for i in range(1, 41):
        sa.process(facts(i))
    assert CountingRedis.sent - before == 40
    assert client.info("commandstats")["cmdstat_evalsha"]["calls"] - stats == 40
    assert sa.round_trips == 41
