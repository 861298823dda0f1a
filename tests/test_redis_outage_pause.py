"""A Redis that stops taking writes pauses fetching (the engine's pause): a real Valkey stopped mid-crawl
of a generated site on 127.0.0.1, either restarted (the crawl resumes and loses nothing) or gone for good
(the crawl ends promptly, exit non-zero, one line with the reason and the pages not stored)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import redis
from loopback import free_port
from test_crawl_e2e import OWN_FRAMES, crawl_command, crawled_pages, parse_stats, reachable
from test_outage_defaults import start

from rankcrawl.crawler.demoweb.web import DemoWeb
from rankcrawl.ranker.store.graphstore import GraphStore

pytestmark = pytest.mark.slow

QUIET = 3.0  # seconds without a fetch that show the engine paused
CONCURRENCY = 4  # CONCURRENT_REQUESTS: responses in flight when the engine pauses still arrive


def hits(web: DemoWeb) -> int:
    return sum(1 for _, u in web.hit_log if u in web.pages)


def fetched_after_pause(log: str) -> int:
    """Pages the crawl's DEBUG log shows fetched between its first 'fetching paused' line and the next
    'fetching resumed' line (or the end)."""
    paused = log.index("fetching paused")
    resumed = log.find("fetching resumed", paused)
    window = log[paused:resumed if resumed >= 0 else len(log)]
    return sum(1 for line in window.splitlines() if "Crawled (200)" in line and "robots.txt" not in line)


def wait_for(web: DemoWeb, pages: int, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while hits(web) < pages and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert hits(web) >= pages and proc.poll() is None


def wait_quiet(web: DemoWeb, timeout: float) -> tuple[int, float]:
    """(pages fetched, seconds waited) once no page was fetched for QUIET seconds."""
    began = time.monotonic()
    seen, since = hits(web), began
    while time.monotonic() - began < timeout:
        time.sleep(0.1)
        if hits(web) != seen:
            seen, since = hits(web), time.monotonic()
        elif time.monotonic() - since >= QUIET:
            break
    return seen, time.monotonic() - began


def test_a_stopped_redis_pauses_fetching_and_the_crawl_resumes_losing_nothing(tmp_path: Path) -> None:
    port, data = free_port(), tmp_path / "valkey"
    server, _ = start(port, data)
    url = f"redis://127.0.0.1:{port}/0"
    with DemoWeb(seed=7, n_hosts=3, pages_per_host=60).serve() as web:
        proc = subprocess.Popen(crawl_command(web.seeds, url, DOWNLOAD_DELAY="0.2", CONCURRENT_REQUESTS_PER_DOMAIN="1",
                                              CONCURRENT_REQUESTS=str(CONCURRENCY), RANKCRAWL_OUTAGE_TIMEOUT="2",
                                              RANKCRAWL_FLUSH_TIMEOUT="120", LOG_LEVEL="DEBUG"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_for(web, 10, proc)
            server.stop()
            before = hits(web)
            during, waited = wait_quiet(web, timeout=60)
            site = len(reachable(web))
            print(f"\nRedis stopped at {before} of {site} pages; fetching stopped at {during} after {waited:.1f} s")
            assert proc.poll() is None
            assert during - before < site - before and during < site / 2  # paused: not the whole site
            server, _ = start(port, data)
            out, err = proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        try:
            assert proc.returncode == 0, err[-3000:]
            stats = parse_stats(out)
            pages = crawled_pages(web)
            client = redis.Redis.from_url(url)
            store = GraphStore(client)
            lost = [u for u in pages if store.meta(u) is None]
            print(f"resumed: {len(pages)} pages, {len(lost)} not stored, pauses {stats['rankcrawl/redis/pauses']}, "
                  f"paused {stats['rankcrawl/redis/paused_s']} s")
            assert pages == reachable(web) and lost == []
            assert int(stats["rankcrawl/redis/pauses"]) >= 1 and float(stats["rankcrawl/redis/paused_s"]) > 0
            assert fetched_after_pause(err) <= CONCURRENCY and "fetching resumed" in err
            assert "rankcrawl/edges/unflushed" not in stats and int(stats.get("rankcrawl/site/unwritten", 0)) == 0
            assert not any(frame in err for frame in OWN_FRAMES)
            client.close()
        finally:
            server.stop()


def test_redis_gone_for_good_ends_the_crawl_promptly_with_the_reason(tmp_path: Path) -> None:
    port, data = free_port(), tmp_path / "valkey"
    server, _ = start(port, data)
    url, buffer, limit = f"redis://127.0.0.1:{port}/0", 4, 8.0
    with DemoWeb(seed=7, n_hosts=3, pages_per_host=60).serve() as web:
        proc = subprocess.Popen(crawl_command(web.seeds, url, DOWNLOAD_DELAY="0", CONCURRENT_REQUESTS=str(CONCURRENCY),
                                              RANKCRAWL_EDGE_BATCH="1", RANKCRAWL_EDGE_BUFFER=str(buffer),
                                              RANKCRAWL_OUTAGE_TIMEOUT="4", RANKCRAWL_FLUSH_TIMEOUT=str(limit), LOG_LEVEL="DEBUG"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_for(web, 10, proc)
            server.stop()
            stopped, before = time.monotonic(), hits(web)
            out, err = proc.communicate(timeout=120)
            took = time.monotonic() - stopped
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    stats = parse_stats(out)
    during, site = hits(web) - before, len(reachable(web))
    print(f"\nRedis gone at {before} of {site} pages: {during} more fetched, exit {proc.returncode} after {took:.1f} s, "
          f"pauses {stats.get('rankcrawl/redis/pauses')}; {err.strip().splitlines()[-1]}")
    assert proc.returncode != 0 and stats["finish_reason"] == "redis_unavailable", err[-3000:]
    assert during < (site - before) / 2  # not the whole site
    assert fetched_after_pause(err) <= CONCURRENCY  # once paused, only the responses already in flight arrive
    assert took < limit + 20  # one wait for Redis, none more at close
    assert int(stats["rankcrawl/redis/pauses"]) == 1
    last = err.strip().splitlines()[-1]
    assert last == ("rankcrawl: error: crawl stopped: Redis was unreachable (no write for RANKCRAWL_FLUSH_TIMEOUT); "
                    f"{stats['rankcrawl/pages/unflushed']} pages ({stats['rankcrawl/edges/unflushed']} edges) fetched were "
                    "not stored"), err[-2000:]
    assert int(stats["rankcrawl/pages/unflushed"]) >= buffer
    assert not any(frame in err for frame in OWN_FRAMES)  # no error inside rankcrawl (Scrapy's DEBUG log shows refused fetches)
