"""Redis outages during a DISTRIBUTED crawl (scrapy-redis JSON frontier and dupefilter in Redis, every
other default on): a paused server (SIGSTOP 8 s) and a 40 s stop. No request may be lost on the
way to or from the shared frontier: every page reachable in the demo web is fetched and stored, and
every content edge is in the graph."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import redis
from test_crawl_e2e import CRAWL_TIMEOUT, crawl_command, crawled_pages, free_port, link_quality, parse_stats, reachable, stored_edges
from test_outage_defaults import start

from rankcrawl.crawler.demoweb.web import DemoWeb
from rankcrawl.ranker.store.graphstore import GraphStore

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("outage", ["sigstop-8s", "stop-40s"])
def test_distributed_crawl_survives_an_outage_without_losing_a_request(tmp_path: Path, outage: str) -> None:
    port, data = free_port(), tmp_path / "valkey"
    server, pid = start(port, data)
    url = f"redis://127.0.0.1:{port}/0"
    with DemoWeb(seed=5, n_hosts=3, pages_per_host=15).serve() as web:
        proc = subprocess.Popen(crawl_command(web.seeds, url, DOWNLOAD_DELAY="0.2", CONCURRENT_REQUESTS_PER_DOMAIN="1",
                                              RANKCRAWL_DISTRIBUTED="True"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while len(crawled_pages(web)) < 6 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            if outage == "sigstop-8s":
                os.kill(pid, signal.SIGSTOP)
                time.sleep(8)
                os.kill(pid, signal.SIGCONT)
            else:
                server.stop()
                time.sleep(40)
                server, pid = start(port, data)
            out, err = proc.communicate(timeout=CRAWL_TIMEOUT + 120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        try:
            assert proc.returncode == 0, err[-3000:]
            stats = parse_stats(out)
            client = redis.Redis.from_url(url)
            pages = crawled_pages(web)
            store = GraphStore(client)
            lost = [u for u in pages if store.meta(u) is None]
            precision, recall, template = link_quality(web, pages, stored_edges(client))
            print(f"\n{outage}: {len(pages)} pages fetched of {len(reachable(web))}, {len(lost)} not stored, "
                  f"content-edge recall {recall:.3f}, frontier left {client.zcard('rc:{crawl}:rankcrawl:requests')}")
            assert pages == reachable(web)
            assert lost == []
            assert recall == 1.0 and template == 0
            assert "rankcrawl/edges/unflushed" not in stats
            client.close()
        finally:
            server.stop()
