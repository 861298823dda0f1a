"""``rankcrawl crawl -o/-O FILE[:FORMAT]``: Scrapy's feed exports of the pages fetched; one line for a bad use."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankcrawl.crawler.demoweb.web import DemoWeb

CLI = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()"]
FAST = ["-s", "RANKCRAWL_ALLOW_PRIVATE=True", "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0",
        "-s", "LOG_LEVEL=WARNING", "-s", "RANKCRAWL_RANKER=False", "-s", "RANKCRAWL_ANALYSIS_WORKERS=1"]


@pytest.fixture
def web() -> Iterator[DemoWeb]:
    with DemoWeb(seed=6, n_hosts=2, pages_per_host=14).serve() as served:
        yield served


def crawl(web: DemoWeb, redis_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "crawl", web.seeds[0], "--redis-url", redis_url, *FAST, *args], capture_output=True,
                          text=True, timeout=120)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.slow
def test_overwrite_then_append_the_pages_fetched(web: DemoWeb, redis_url: str, tmp_path: Path) -> None:
    feed = tmp_path / "pages.out"
    feed.write_text("stale\n")
    first = crawl(web, redis_url, "--max-pages", "4", "-O", f"{feed}:jsonlines")
    assert first.returncode == 0 and "finish_reason\tpage_budget" in first.stdout, first.stderr[-2000:]
    pages = lines(feed)
    fetched = {url for _, url in web.hit_log if url in web.pages}
    assert pages and all(set(p) == {"url", "status", "depth", "title"} for p in pages)
    assert {p["url"] for p in pages} <= fetched and all(p["status"] == 200 and p["title"] for p in pages)
    assert pages[0] == {"url": web.seeds[0], "status": 200, "depth": 0, "title": pages[0]["title"]}
    second = crawl(web, redis_url, "--max-pages", "4", "-o", f"{feed}:jsonlines")
    assert second.returncode == 0, second.stderr[-2000:]
    appended = lines(feed)
    assert appended[:len(pages)] == pages and len(appended) > len(pages)


@pytest.mark.parametrize(("args", "says"), [
    (["-o", "a.jsonl", "-O", "b.jsonl"], "Please use only one of -o/--output and -O/--overwrite-output"),
    (["-o", "pages.xyz"], "Unrecognized output format 'xyz'."),
])
def test_a_bad_output_is_one_line_before_anything_is_fetched(web: DemoWeb, redis_url: str, tmp_path: Path,
                                                             args: list[str], says: str) -> None:
    done = subprocess.run([*CLI, "crawl", web.seeds[0], "--redis-url", redis_url, *args], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.startswith(f"rankcrawl: error: {says}") and done.stderr.count("\n") == 1, \
        done.stderr
    assert not web.hit_log and not list(tmp_path.iterdir())
