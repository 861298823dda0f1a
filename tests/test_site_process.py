"""The site-level step in its own process: the same decisions as in a thread, in page order; a dead
process costs its page only (the next page starts a new one, with the hosts' state still in Redis)."""

from __future__ import annotations

import logging
import os
import signal

import pytest
from test_analysis_pipeline import page

from rankcrawl.pipelines.site.facts import FactOptions, analyze_page
from rankcrawl.pipelines.workers.pool import WorkerCrashed
from rankcrawl.pipelines.workers.site_process import SiteProcess, SiteSpec, SiteThread

PAGES = [(f"http://a.example/article{i}", page(i)) for i in range(8)]
OPTIONS = FactOptions(site=True)


def spec(redis_url: str, prefix: str) -> SiteSpec:
    return SiteSpec(redis_url, prefix, "uniform", "content", False, 100)


def test_process_decides_as_the_thread_does(redis_url: str) -> None:
    facts = [analyze_page(u, b, "utf-8", OPTIONS) for u, b in PAGES]
    thread, process = SiteThread(spec(redis_url, "t:").build()), SiteProcess(spec(redis_url, "p:"))
    try:
        in_thread = [thread.decide_sync(f) for f in facts]
        in_process = [process.decide_sync(f) for f in facts]
        assert os.getpid() not in {p.pid for p in process.start()._processes.values()}
    finally:
        closed = [thread.close(5.0), process.close(5.0)]
    assert in_process == in_thread
    nav = "http://a.example/nav0"
    last = {link.url: link for link in in_thread[-1].follow}
    assert last[nav].template and not last[nav].counted  # the host's nav, recurring on every page
    assert last["http://a.example/article8"].counted and not last["http://a.example/article8"].template
    assert [c.figures.round_trips for c in closed] == [len(PAGES), len(PAGES)]
    assert process.executor is None


def test_a_dead_site_process_costs_one_page(redis_url: str) -> None:
    facts = [analyze_page(u, b, "utf-8", OPTIONS) for u, b in PAGES]
    process = SiteProcess(spec(redis_url, "k:"))
    try:
        for f in facts[:4]:
            process.decide_sync(f)
        (pid,) = process.start()._processes
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(WorkerCrashed):
            process.decide_sync(facts[4])
        after = [process.decide_sync(f) for f in facts[5:]]
    finally:
        closed = process.close(5.0)
    assert process.restarts == 1 and closed.figures.round_trips == 4 + 3  # the dead process's 4 pages count
    nav = "http://a.example/nav0"
    assert all({link.url: link for link in r.follow}[nav].template for r in after)  # the host's state survived


def test_the_site_process_logs_through_this_process(caplog: pytest.LogCaptureFixture) -> None:
    process = SiteProcess(spec("redis://127.0.0.1:1/0", "gone:"))  # nothing listens on port 1
    try:
        with caplog.at_level(logging.WARNING):
            result = process.decide_sync(analyze_page(*PAGES[0], "utf-8", OPTIONS))
    finally:
        process.close(0.1)
    assert result.follow  # decided per page
    records = [r for r in caplog.records if "site-level state unavailable" in r.getMessage()]  # a loaded machine may log a retry too
    assert records and all(r.name == "rankcrawl.pipelines.site.analyzer" and r.process != os.getpid() for r in records)
