"""``rankcrawl demo``: ground-truth scoring on a real Valkey, bad input, and the whole demo end to end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from rankcrawl.crawler.cli.demo import PREFIX, clear_prefix, evaluate
from rankcrawl.crawler.demoweb.web import DemoWeb
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord

CLI = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()"]


def test_evaluate_scores_stored_edges_against_ground_truth(r: redis.Redis) -> None:
    web = DemoWeb(seed=5, n_hosts=3, pages_per_host=14)
    articles = [p for p in web.pages.values() if p.kind == "article" and p.content_links][:6]
    for page in articles:
        web.response(page.url)
    store = GraphStore(r, PREFIX)
    wrong = articles[0].template_links[:3]
    missing = articles[1].content_links[0]
    records = [PageRecord(p.url, [(u, 1.0) for u in p.content_links if (u, p) != (missing, articles[1])])
               for p in articles]
    records[0].links += [(u, 1.0) for u in wrong]
    store.put_pages(records)

    truth = sum(len(p.content_links) for p in articles)
    n_stored, precision, recall, template_share = evaluate(web, store)
    assert n_stored == truth - 1 + len(wrong)
    assert precision == pytest.approx((truth - 1) / n_stored)
    assert recall == pytest.approx((truth - 1) / truth)
    assert template_share == pytest.approx(len(wrong) / n_stored)


def test_clear_prefix_keeps_other_keys(r: redis.Redis) -> None:
    r.set("rc:{g}:keep", 1)
    r.mset({f"{PREFIX}{{h{i}}}:x": i for i in range(1200)})
    clear_prefix(r, PREFIX)
    assert r.keys(f"{PREFIX}*") == [] and r.get("rc:{g}:keep") == b"1"


def test_demo_refuses_bad_input(tmp_path: Path) -> None:
    env = {**os.environ, "RANKCRAWL_HOME": str(tmp_path / "home")}
    env.pop("RANKCRAWL_REDIS_URL", None)
    env.pop("REDIS_URL", None)
    for args in (["--redis-url", "redis://127.0.0.1:1/0"], ["--hosts", "1"], ["--pages-per-host", "3"]):
        done = subprocess.run([*CLI, "demo", *args], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode != 0 and "Traceback" not in done.stderr
        assert len([line for line in done.stderr.splitlines() if "rror" in line]) == 1, done.stderr


@pytest.mark.slow
def test_demo_end_to_end(tmp_path: Path) -> None:
    """The whole demo on an isolated embedded Valkey: exits 0, prints ranks and sane figures."""
    env = {**os.environ, "RANKCRAWL_HOME": str(tmp_path / "home"), "COLUMNS": "160"}
    env.pop("RANKCRAWL_REDIS_URL", None)
    env.pop("REDIS_URL", None)
    done = subprocess.run([*CLI, "demo", "--hosts", "4", "--pages-per-host", "20", "--timeout", "75"],
                          env=env, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "Top pages" in out and "Top hosts" in out
    assert len(re.findall(r"http://127\.0\.0\.1:\d+/\S*", out)) >= 10

    def figure(name: str) -> float:
        return float(re.search(rf"{name}\s*│\s*([\d.]+)", out).group(1))

    assert figure("pages fetched") >= 0.9 * figure("pages reachable through content links") > 20
    assert figure("robots.txt-disallowed pages fetched") == 0
    assert figure("content-link precision") > 0.5 and figure("content-link recall") > 0.5
    assert (tmp_path / "home").is_dir()
