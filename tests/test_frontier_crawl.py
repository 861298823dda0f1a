"""The re-scoring frontier in real crawls: a slow host does not hold the others back; JOBDIR resumes."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from loopback import http_site

pytestmark = pytest.mark.slow

SLOW = 1.0  # seconds per page of the slow host, its start page aside


def page(links: list[str], words: str) -> bytes:
    items = "".join(f'<p>{words} <a href="{u}">more about {words}</a> and further reading.</p>' for u in links)
    return f"<html><head><title>{words}</title></head><body><article><h1>{words}</h1>{items}</article></body></html>".encode()


@contextmanager
def site(host: str, n: int, delay: float, first_delay: float = 0.0) -> Iterator[tuple[str, list[tuple[float, str]]]]:
    """``n`` pages on 127.0.0.1 under the host name ``host``, each linking to every other, served after
    ``delay`` seconds (``first_delay`` for /p0); yields the base URL and the log of (time, path) served."""
    log: list[tuple[float, str]] = []

    def answer(path: str) -> tuple[int, bytes, dict[str, str]]:
        if path == "/robots.txt":
            return 200, b"User-agent: *\nDisallow:\n", {}
        if path.startswith("/p") and path[2:].isdigit() and int(path[2:]) < n:
            time.sleep(first_delay if path == "/p0" else delay)
            log.append((time.monotonic(), path))
            return 200, page([f"/p{i}" for i in range(n) if f"/p{i}" != path], f"topic {host} page"), {}
        return 404, b"not found", {}

    with http_site(answer) as port:
        yield f"http://{host}:{port}", log


def crawl(seeds: list[str], redis_url: str, *settings: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "crawl", *seeds,
           "--redis-url", redis_url]
    for s in ("RANKCRAWL_ALLOW_PRIVATE=True", "DOWNLOAD_DELAY=0", "AUTOTHROTTLE_ENABLED=False", "LOG_LEVEL=WARNING",
              "ROBOTSTXT_OBEY=False", *settings):
        cmd += ["-s", s]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def test_a_busy_host_does_not_stall_the_other_hosts(redis_url: str) -> None:
    """Two global download places, one per host. The slow host's start page answers at once, so its links
    are queued first (breadth-first); handing them out would fill both places with the slow host's pages
    (one downloading, one waiting in its slot). The fast host must get the free place and be done first."""
    with site("127.0.0.1", 5, SLOW) as (slow, slow_log), site("localhost", 12, 0.0, first_delay=0.5) as (fast, fast_log):
        proc = crawl([f"{slow}/p0", f"{fast}/p0"], redis_url, "CONCURRENT_REQUESTS=2", "CONCURRENT_REQUESTS_PER_DOMAIN=1",
                     "RANKCRAWL_FRONTIER=breadth-first")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(slow_log) == 5 and len(fast_log) == 12
    assert max(t for t, _ in fast_log) < sorted(t for t, _ in slow_log)[-2]  # done while the slow host still had pages


def test_a_restarted_crawl_resumes_its_queue(redis_url: str, tmp_path: Path) -> None:
    """A crawl stopped by its page budget keeps its queue in JOBDIR; the next run fetches the rest, none twice."""
    with site("127.0.0.1", 10, 0.0) as (base, log):
        first = crawl([f"{base}/p0"], redis_url, f"JOBDIR={tmp_path}", "RANKCRAWL_MAX_PAGES=3", "CONCURRENT_REQUESTS=1")
        assert first.returncode == 0, first.stderr[-2000:]
        assert (tmp_path / "rankcrawl-frontier.jsonl").exists()
        done = len(log)
        second = crawl([f"{base}/p0"], redis_url, f"JOBDIR={tmp_path}", "CONCURRENT_REQUESTS=1")
        assert second.returncode == 0, second.stderr[-2000:]
    paths = [p for _, p in log]
    assert 3 <= done < 10
    assert sorted(paths) == sorted(f"/p{i}" for i in range(10))  # every page once: resumed, nothing refetched


def test_links_to_queued_urls_are_credited_and_every_page_is_fetched_once(redis_url: str) -> None:
    """Every page links to every other: most links lead to queued URLs, which the frontier credits
    without a request; the crawl still fetches each page once."""
    with site("127.0.0.1", 12, 0.0) as (base, log):
        proc = crawl([f"{base}/p0"], redis_url, "RANKCRAWL_FRONTIER=pagerank", "LOG_LEVEL=INFO", "CONCURRENT_REQUESTS=2")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert sorted(p for _, p in log) == sorted(f"/p{i}" for i in range(12))
    credited = re.search(r"'rankcrawl/follow/credited': (\d+)", proc.stderr)
    assert credited is not None and int(credited.group(1)) > 0, proc.stderr[-3000:]
