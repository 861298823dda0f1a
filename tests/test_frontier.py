"""The shared frontier stores JSON and never runs an entry: real Valkey, real scrapy-redis queue."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis
import scrapy
from scrapy.http import FormRequest
from scrapy.utils.test import get_crawler

from rankcrawl.crawler import frontier
from rankcrawl.crawler.frontier import dumps, loads
from rankcrawl.crawler.shared_frontier import SharedFrontier

KEY = "t:{crawl}:%(spider)s:requests"


class Spider(scrapy.Spider):
    name = "frontier-test"

    def parse(self, response: Any) -> None:
        """The default callback."""

    def parse_item(self, response: Any) -> None:
        """A second public callback."""


class Command:
    """A pickle payload: unpickling it runs ``touch <marker>``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture
def spider() -> Spider:
    crawler = get_crawler(Spider)
    crawler.stats.open_spider()
    return Spider.from_crawler(crawler)


@pytest.fixture
def queue(r: redis.Redis, spider: Spider) -> SharedFrontier:
    return SharedFrontier(r, spider, KEY, serializer=frontier)


def stat(spider: Spider, name: str) -> int:
    return spider.crawler.stats.get_value(name, 0)


def test_json_round_trip_keeps_every_field(queue: SharedFrontier, spider: Spider, r: redis.Redis) -> None:
    requests = [
        scrapy.Request("http://a.example/x?q=1", callback=spider.parse_item, priority=7, body=b"\x00\xffraw",
                       headers={"X-Bin": b"\xe9t\xe9"}, cookies={"c": "v"}, dont_filter=True,
                       meta={"depth": 3, "blob": b"\x01\x02", "ints": {1: "one"}, "tags": {"$b": "not a tag"}},
                       cb_kwargs={"page": [1, 2, {"k": None}]}, flags=["f"]),
        FormRequest("http://b.example/form", formdata={"a": "1"}, callback=spider.parse),
    ]
    for req in requests:
        queue.push(req)
    assert len(queue) == 2
    raw = next(iter(r.hvals(queue.requests_key)))
    json.loads(raw)  # stored as plain JSON text
    assert not raw.startswith(b"\x80")  # not a pickle
    got = [queue.pop(), queue.pop()]
    assert queue.pop() is None
    for before, after in zip(requests, got):
        assert type(after) is type(before)
        assert after.to_dict(spider=spider) == before.to_dict(spider=spider)


def test_request_with_non_json_meta_is_counted_not_queued(queue: SharedFrontier, spider: Spider) -> None:
    queue.push(scrapy.Request("http://a.example/", meta={"obj": object()}))
    assert len(queue) == 0
    assert stat(spider, "rankcrawl/frontier/unstorable") == 1


def test_serializer_rejects_what_is_not_a_request() -> None:
    for data in (b"\x80\x04K\x01.", b"{", b"[1, 2]", b'{"url": 5}', b'{"url": "u", "h": {"$b": "!!"}}',
                 b"[" * 100_000 + b"]" * 100_000, b'{"$d": [[[1], 2]]}'):
        with pytest.raises(frontier.FrontierEntryError):
            loads(data)
    assert loads(dumps({"url": "u", "b": b"x", "d": {b"k": [b"v"]}})) == {"url": "u", "b": b"x", "d": {b"k": [b"v"]}}


def test_planted_entries_are_skipped_never_run(queue: SharedFrontier, spider: Spider, r: redis.Redis,
                                               tmp_path: Path) -> None:
    markers = [tmp_path / f"owned{i}" for i in range(3)]
    planted = [
        pickle.dumps(Command(markers[0])),  # scrapy-redis's default (pickle) format
        json.dumps({"url": "http://a.example/", "_class": "subprocess.Popen",
                    "args": ["touch", str(markers[1])]}),
        json.dumps({"url": "http://a.example/", "callback": "close"}),
        json.dumps({"url": "http://a.example/", "callback": "__init__"}),
        json.dumps({"url": "http://a.example/", "errback": "missing"}),
        json.dumps({"url": "not a url"}),
        json.dumps({"url": "http://a.example/", "_class": "os.system", "command": f"touch {markers[2]}"}),
        b"\xff\xfe garbage",
    ]
    queue.push(scrapy.Request("http://a.example/real", callback=spider.parse_item))
    r.zadd(queue.key + ":h:a.example", {f"planted{i}": 100 + i for i in range(len(planted))})  # ahead of the real one
    r.zadd(queue.key, {"a.example": 1000})
    r.hset(queue.requests_key, mapping={f"planted{i}": data for i, data in enumerate(planted)})
    taken = queue.take(len(planted) + 1)
    assert len(taken) == 1
    req = taken[0][4]
    assert req.url == "http://a.example/real" and req.callback == spider.parse_item
    assert not any(m.exists() for m in markers)
    assert stat(spider, "rankcrawl/frontier/skipped") == len(planted)
    assert len(queue) == 0


def test_bad_entries_are_dropped_a_batch_at_a_time(queue: SharedFrontier, spider: Spider, r: redis.Redis) -> None:
    r.zadd(queue.key + ":h:a.example", {f"junk{i}": i for i in range(13)})
    r.zadd(queue.key, {"a.example": 13})
    r.hset(queue.requests_key, mapping={f"junk{i}": f"junk{i}" for i in range(13)})
    assert queue.take(8) == []  # a bounded batch: the reactor gets control back
    assert len(queue) == 5
    assert queue.pop() is None and len(queue) == 4
    assert stat(spider, "rankcrawl/frontier/skipped") == 9


@pytest.mark.slow
def test_planted_pickle_in_a_distributed_crawl_is_not_executed(r: redis.Redis, redis_url: str, tmp_path: Path) -> None:
    from rankcrawl.crawler.demoweb.web import DemoWeb

    marker = tmp_path / "owned"
    key = "rc:{crawl}:rankcrawl:requests"
    r.zadd(key + ":h:127.0.0.1", {"planted": 10**6})
    r.zadd(key, {"127.0.0.1": 10**6})
    r.hset(key + ":req", "planted", pickle.dumps(Command(marker)))
    settings = {"RANKCRAWL_DISTRIBUTED": "True", "RANKCRAWL_RANKER": "False", "RANKCRAWL_IDLE_TIMEOUT": "1",
                "RANKCRAWL_ALLOW_PRIVATE": "True", "DOWNLOAD_DELAY": "0", "AUTOTHROTTLE_ENABLED": "False",
                "LOG_LEVEL": "WARNING"}
    with DemoWeb(seed=2, n_hosts=2, pages_per_host=12).serve() as web:
        cmd = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "crawl", *web.seeds,
               "--redis-url", redis_url]
        for name, value in settings.items():
            cmd += ["-s", f"{name}={value}"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        fetched = sum(1 for u, n in web.hits.items() if n and u in web.pages)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not marker.exists()
    stats = dict(line.split("\t", 1) for line in proc.stdout.splitlines() if "\t" in line)
    assert stats["rankcrawl/frontier/skipped"] == "1"
    assert "skipped a frontier entry" in proc.stderr
    assert fetched > len(web.seeds)  # the crawl went on past the planted entry
    assert not any(raw.startswith(b"\x80") for raw in r.hvals(key + ":req"))


def test_the_shared_frontier_runs_on_a_cluster_and_keeps_host_order(any_client: Any, spider: Spider) -> None:
    """Every script's keys share the {crawl} slot; hosts compare by their best entry, entries by evidence."""
    queue = SharedFrontier(any_client, spider, KEY, serializer=frontier)
    queue.strategy = "opic"
    entries = [(f"fp{i}", host, ev, 0.0, dumps(scrapy.Request(f"http://{host}/{i}").to_dict(spider=spider)), 0.0, 0)
               for i, (host, ev) in enumerate([("a.test", 0.2), ("a.test", 0.5), ("b.test", 0.3), ("b.test", 0.1)])]
    assert queue.enqueue("t:{crawl}:frontier-test:dupefilter", entries)[0] == 4
    assert queue.enqueue("t:{crawl}:frontier-test:dupefilter", [("fp3", "b.test", 0.0, 0.6, "", 0.0, 0)])[:2] == (0, 1)
    taken = queue.take(4)
    assert [url for *_, req in taken for url in [req.url]] == ["http://b.test/3", "http://a.test/1",
                                                               "http://b.test/2", "http://a.test/0"]
    assert len(queue) == 0 and queue.take(1) == []


def test_the_lua_estimate_equals_the_strategys(r: redis.Redis, spider: Spider) -> None:
    """The shared frontier's Lua score is ``Strategy.estimate`` for the host's counts."""
    from rankcrawl.crawler.frontier_scores import HostCounts, strategy

    queue = SharedFrontier(r, spider, KEY, serializer=frontier)
    queue.strategy, queue.alpha = "pagerank", 0.85
    strat = strategy("pagerank", 0.85)
    rng = __import__("random").Random(3)
    for trial in range(20):
        host, n = f"h{trial}.test", rng.randint(1, 6)
        entries = [(f"{host}-{i}", host, float(rng.randint(0, 4)), 0.0,
                    dumps(scrapy.Request(f"http://{host}/{i}").to_dict(spider=spider)), rng.random() * (i % 2) * (trial % 3 > 0),
                    i % 2 * (trial % 3 > 0)) for i in range(n)]
        queue.enqueue("t:{crawl}:frontier-test:dupefilter", entries)
        taken = rng.randint(0, n - 1)
        queue.take(taken)  # other hosts may lead: count what this host gave
        counts = {k.decode(): float(v) for k, v in r.hgetall(queue.counts_key).items()}
        crawl = HostCounts(links=int(counts.get("l:*", 0)), shares=counts.get("s:*", 0.0))
        host_counts = HostCounts(queued=int(counts.get(f"q:{host}", 0)), fetched=int(counts.get(f"f:{host}", 0)),
                                 links=int(counts.get(f"l:{host}", 0)), shares=counts.get(f"s:{host}", 0.0), crawl=crawl)
        best = r.zrevrange(queue.key + ":h:" + host, 0, 0, withscores=True)
        if best:
            assert float(r.zscore(queue.key, host)) == pytest.approx(strat.estimate(best[0][1], host_counts), rel=1e-9)
