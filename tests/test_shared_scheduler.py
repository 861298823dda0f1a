"""The batched shared scheduler against a real Valkey: same frontier and dupefilter, fewer round trips."""

from __future__ import annotations

from typing import Any

import pytest
import redis
import scrapy
from scrapy.utils.test import get_crawler

pytest.importorskip("scrapy_redis")

from rankcrawl.crawler import shared_scheduler  # noqa: E402
from rankcrawl.crawler.shared_scheduler import BatchedScheduler  # noqa: E402
from rankcrawl.settings.addon import distributed_settings  # noqa: E402

PREFIX = "t:"


class Spider(scrapy.Spider):
    name = "sched"

    def parse(self, response: Any) -> None:
        """The default callback."""


def scheduler(redis_url: str, frontier: str = "static") -> BatchedScheduler:
    crawler = get_crawler(Spider, settings_dict={**distributed_settings(redis_url, PREFIX), "RANKCRAWL_FRONTIER": frontier,
                                                 "RANKCRAWL_KEY_PREFIX": PREFIX})
    crawler.stats.open_spider()
    spider = Spider.from_crawler(crawler)
    crawler.spider = spider
    s = BatchedScheduler.from_crawler(crawler)
    s.open(spider)
    return s


def count_round_trips(s: BatchedScheduler, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The commands the scheduler's client sends (each one round trip)."""
    sent: list[str] = []
    execute = s.server.execute_command

    def counted(*args: Any, **kwargs: Any) -> Any:
        sent.append(str(args[0]).upper())
        return execute(*args, **kwargs)

    monkeypatch.setattr(s.server, "execute_command", counted)
    return sent


def plant(r: redis.Redis, queue: Any, entries: dict[str, bytes], host: str = "a.test") -> None:
    """Entries written into the shared frontier's layout by another program, ahead of every real one."""
    r.zadd(queue.key + ":h:" + host, {fp: 1000 + i for i, fp in enumerate(entries)})
    r.zadd(queue.key, {host: 10**6})
    r.hset(queue.requests_key, mapping=entries)


def drain(s: BatchedScheduler) -> list[str]:
    urls = []
    while (request := s.next_request()) is not None:
        urls.append(request.url)
    return urls


def test_batch_is_one_round_trip_deduplicated_in_priority_order(redis_url: str, r: redis.Redis,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    s = scheduler(redis_url)
    sent = count_round_trips(s, monkeypatch)
    accepted = [s.enqueue_request(scrapy.Request(f"http://a.test/{i % 50}", priority=i % 50)) for i in range(100)]
    assert accepted == [True] * 50 + [False] * 50  # repeats inside one batch are refused at once
    assert s.enqueue_request(scrapy.Request("http://a.test/7", dont_filter=True))
    assert sent == []  # buffered: nothing sent yet
    first = s.next_request()
    assert sent == ["EVALSHA", "EVALSHA"]  # 101 requests written and 8 taken in two round trips
    assert first is not None and first.url == "http://a.test/49"
    rest = drain(s)
    assert rest[:2] == ["http://a.test/48", "http://a.test/47"]
    assert sorted([first.url, *rest]) == sorted([f"http://a.test/{i}" for i in range(50)] + ["http://a.test/7"])
    assert r.scard(s.df.key) == 50
    assert s.stats.get_value("scheduler/enqueued/redis") == 51 and s.stats.get_value("scheduler/dequeued/redis") == 51


def test_two_processes_queue_a_shared_link_once(redis_url: str, r: redis.Redis) -> None:
    one, two = scheduler(redis_url), scheduler(redis_url)
    for s in (one, two):
        for url in ("http://a.test/x", "http://a.test/y"):
            s.enqueue_request(scrapy.Request(url))
        s.flush_outbox()
    assert len(one.queue) == 2
    assert two.stats.get_value("rankcrawl/frontier/duplicates") == 2
    assert sorted(drain(one) + drain(two)) == ["http://a.test/x", "http://a.test/y"]


def test_close_writes_the_buffer_and_returns_taken_requests(redis_url: str, r: redis.Redis) -> None:
    s = scheduler(redis_url)
    for i in range(shared_scheduler.POP_SIZE + 3):
        s.enqueue_request(scrapy.Request(f"http://a.test/{i}", priority=-i))
    assert s.next_request().url == "http://a.test/0"
    assert len(s.held) == shared_scheduler.POP_SIZE - 1 and len(s.queue) == 3
    s.enqueue_request(scrapy.Request("http://a.test/late", priority=-100))
    s.close("shutdown")
    assert len(s.queue) == shared_scheduler.POP_SIZE - 1 + 3 + 1  # nothing taken is lost
    again = scheduler(redis_url)
    assert again.next_request().url == "http://a.test/1"  # the best returned request comes first again


def test_bad_entries_are_skipped_and_counted(redis_url: str, r: redis.Redis) -> None:
    s = scheduler(redis_url)
    plant(r, s.queue, {"bad1": b"\x80\x04not json", "bad2": b'{"url": 5}'})
    s.enqueue_request(scrapy.Request("http://a.test/ok"))
    assert drain(s) == ["http://a.test/ok"]
    assert s.stats.get_value("rankcrawl/frontier/skipped") == 2


def test_unstorable_request_is_refused_not_buffered(redis_url: str) -> None:
    s = scheduler(redis_url)
    assert not s.enqueue_request(scrapy.Request("http://a.test/", meta={"obj": object()}))
    assert s.stats.get_value("rankcrawl/frontier/unstorable") == 1 and not s.outbox


def test_a_link_found_again_by_another_process_moves_up_the_shared_queue(redis_url: str, r: redis.Redis) -> None:
    one, two = scheduler(redis_url, "opic"), scheduler(redis_url, "opic")
    for url, share in (("http://a.test/1", 0.3), ("http://a.test/2", 0.2)):
        one.enqueue_request(scrapy.Request(url, meta={"rankcrawl_link": [1.0, share], "depth": 1}))
    one.flush_outbox()
    two.enqueue_request(scrapy.Request("http://a.test/2", meta={"rankcrawl_link": [1.0, 0.5], "depth": 1}))
    two.flush_outbox()
    assert two.stats.get_value("rankcrawl/frontier/rescored") == 1
    assert drain(one) == ["http://a.test/2", "http://a.test/1"]


def test_equal_scores_pop_first_queued_first(redis_url: str) -> None:
    s = scheduler(redis_url, "breadth-first")
    urls = [f"http://a.test/{i}" for i in range(40)]
    for url in urls:
        s.enqueue_request(scrapy.Request(url, meta={"depth": 1}))
    assert drain(s) == urls


def test_concurrent_pops_never_hand_one_url_to_two_processes(redis_url: str) -> None:
    import threading

    first = scheduler(redis_url, "inlinks")
    urls = [f"http://a{i % 7}.test/{i}" for i in range(600)]
    for url in urls:
        first.enqueue_request(scrapy.Request(url, meta={"depth": 1}))
    first.flush_outbox()
    workers = [scheduler(redis_url, "inlinks") for _ in range(3)]
    got: list[list[str]] = [[] for _ in workers]
    threads = [threading.Thread(target=lambda w=w, out=out: out.extend(drain(w))) for w, out in zip(workers, got)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    taken = [u for out in got for u in out]
    assert sorted(taken) == sorted(urls) and len(set(taken)) == len(taken)


def test_in_links_to_one_language_raise_its_waiting_translation(redis_url: str) -> None:
    s = scheduler(redis_url, "pagerank")
    for url in ("http://a.test/fr/intro.html", "http://a.test/fr/faq.html", "http://a.test/fr/core.html",
                "http://a.test/en/core.html"):
        s.enqueue_request(scrapy.Request(url, meta={"rankcrawl_link": [1.0, 0.1], "depth": 1}))
    s.flush_outbox()  # queued: later in-links to the English page vote for the waiting French one
    for _ in range(5):
        s.enqueue_request(scrapy.Request("http://a.test/en/core.html", meta={"rankcrawl_link": [1.0, 0.1], "depth": 1}))
    s.flush_outbox()
    assert drain(s)[:2] == ["http://a.test/en/core.html", "http://a.test/fr/core.html"]
    s.close("finished")


def test_an_epoch_keeps_the_votes_written_since_a_url_was_queued(redis_url: str) -> None:
    s = scheduler(redis_url, "pagerank")
    for url in ("http://a.test/one.html", "http://a.test/two.html"):
        s.enqueue_request(scrapy.Request(url, meta={"rankcrawl_link": [1.0, 0.1], "depth": 1}))
    s.flush_outbox()
    for _ in range(5):  # five more fetched pages link to two.html
        s.enqueue_request(scrapy.Request("http://a.test/two.html", meta={"rankcrawl_link": [1.0, 0.1], "depth": 1}))
    s.flush_outbox()
    one, two = (s.df.request_fingerprint(scrapy.Request(u)) for u in ("http://a.test/one.html", "http://a.test/two.html"))
    s._write_ranks(1, [(one, 2.0), (two, 1.0)])  # the partial graph ranks one.html higher: a small correction
    assert s.queue.evidence_of([(two, "a.test")])[two] > s.queue.evidence_of([(one, "a.test")])[one]
    assert drain(s) == ["http://a.test/two.html", "http://a.test/one.html"]
    s.close("finished")
