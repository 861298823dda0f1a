"""Analysis workers that own their hosts: a host's pages go to one worker, which decides them as one worker in
this process does (its site memory is the host's) and stores their edges in Redis itself; a dead worker
costs nothing (its pages are sent to the next one), and its log records reach this process."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import redis
from test_analysis_pipeline import page

from rankcrawl.pipelines.site.facts import FactOptions
from rankcrawl.pipelines.workers.board import Board
from rankcrawl.pipelines.workers.pool import AnalysisPool
from rankcrawl.pipelines.workers.routing import HostRouter
from rankcrawl.pipelines.workers.worker import Finish, Finished, Page, SiteSpec, StoreSpec, Worker, WorkerSpec, serve
from rankcrawl.ranker.store.graphstore import GraphStore

PAGES = [(f"http://a.example/article{i}", page(i)) for i in range(8)]
HOSTS = ["a.example", "b.example", "c.example"]
META = {"status": 200, "depth": 1, "fetched_at": 1.0}


def spec(redis_url: str, prefix: str, site: bool = True) -> WorkerSpec:
    return WorkerSpec(FactOptions(site=site), site=SiteSpec(redis_url, prefix, "uniform", "content", False, 100) if site else None,
                      store=StoreSpec(redis_url, prefix, 4, 100, 2048))


def stored(r: redis.Redis, prefix: str) -> set[tuple[str, str]]:
    return {(s, d) for s, d, _ in GraphStore(r, prefix).iter_edges()}


def test_a_new_host_goes_to_the_least_loaded_worker_and_stays() -> None:
    router = HostRouter(2)
    first = [router.route(f"http://a.example/{i}") for i in range(5)]
    assert first == [0] * 5
    assert router.route("http://b.example/") == 1 and router.route("http://c.example/") == 1
    assert router.route("http://d.example/x") == 1  # worker 1 got 3 pages, worker 0 five
    assert router.route("http://A.example/late") == 0 and router.route("http://e.example/") == 1


def test_a_worker_process_decides_and_stores_as_a_worker_in_this_process(redis_url: str, r: redis.Redis) -> None:
    pool = AnalysisPool(spec(redis_url, "p:"), 1)
    here = Worker(spec(redis_url, "t:"), Board(1).slots[0])
    executor = pool.lanes[0].start()
    try:
        jobs = [Page(i + 1, u, b, "utf-8", META) for i, (u, b) in enumerate(PAGES)]
        in_process = [executor.submit(serve, job).result()[0] for job in jobs]
        in_thread = [here.page(job) for job in jobs]
        assert os.getpid() not in set(executor._processes)  # type: ignore[attr-defined]
        assert executor.submit(serve, Finish(10.0)).result()[0] == Finished(0, 0)
    finally:
        executor.shutdown()
    assert here.finish(10.0) == Finished(0, 0)
    assert in_process == in_thread
    nav = "http://a.example/nav0"
    last = {link.url: link for link in in_thread[-1].follow}
    assert last[nav].template and not last[nav].counted  # the host's nav, recurring on every page
    assert last["http://a.example/article8"].counted and not last["http://a.example/article8"].template
    assert pool.board.slots[0]["round_trips"] == len(PAGES) and pool.board.slots[0]["pages"] >= len(PAGES)
    edges = stored(r, "p:")  # the worker's own writer stored every page, re-pushes applied
    assert edges == stored(r, "t:") and {(u, f"http://a.example/article{i + 1}") for i, (u, _) in enumerate(PAGES)} <= edges
    assert not any(d == nav for _, d in edges)
    assert {u for u, _ in PAGES} <= {u for u, _ in edges}
    assert GraphStore(r, "p:").meta(PAGES[0][0])["depth"] == 1


SCRIPT = textwrap.dedent("""
    import json, os, signal, sys
    import redis
    from twisted.internet import defer, task
    from rankcrawl.pipelines.workers.pool import AnalysisPool
    from test_host_workers import HOSTS, META, spec
    from test_analysis_pipeline import page

    async def main(reactor, url, mode):
        pool = AnalysisPool(spec(url, mode + ":", site=mode != "kill"), 2)  # kill: no site step, so only the writer waits
        pool.start()
        hosts = HOSTS
        pages = [(f"http://{hosts[i % 3]}/article{j}", page(j)) for i in range(24) for j in [20 * (i % 3) + i // 3]]
        results = []
        for k, (u, b) in enumerate(pages):
            run = defer.Deferred.fromCoroutine(pool.run(u, b, "utf-8", dict(META)))
            if mode == "kill" and k == 13:  # the page's worker dies while it holds the page and its writer
                lane = pool.lanes[pool.router.owner[u.split("/")[2]]]  # holds the records of the page before
                owed = len(lane.owed)
                for pid in list(lane.executor._processes):
                    os.kill(pid, signal.SIGKILL)
            results.append(await run)
            if mode == "kill" and k == 9:  # from now on writes wait for 2 s: the pages' records stay in the writers
                redis.Redis.from_url(url).execute_command("CLIENT", "PAUSE", 2000, "WRITE")
        finished = await pool.close()
        served = [int(s["analysed"]) for s in pool.board.slots]
        print(json.dumps({"owner": pool.router.owner, "served": served, "restarts": pool.restarts,
                          "lost": [u for (u, _), r in zip(pages, results) if r is None], "left": finished.pages,
                          "owed": owed if mode == "kill" else 0,
                          "stats": pool.stats()}))

    if __name__ == "__main__":
        task.react(lambda reactor: defer.Deferred.fromCoroutine(main(reactor, sys.argv[1], sys.argv[2])))
""")


def run_pool(tmp_path: Path, redis_url: str, mode: str) -> dict:  # type: ignore[type-arg]
    script = tmp_path / "run_pool.py"
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, str(script), redis_url, mode], capture_output=True, text=True, timeout=180,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)})
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_pages_of_one_host_go_to_one_worker_which_stores_their_edges(tmp_path: Path, redis_url: str, r: redis.Redis) -> None:
    got = run_pool(tmp_path, redis_url, "route")
    owner = got["owner"]
    assert set(owner) == {"a.example", "b.example", "c.example"} and set(owner.values()) == {0, 1}
    per_worker = [8 * sum(1 for w in owner.values() if w == i) for i in (0, 1)]
    assert got["served"] == per_worker  # each worker analysed its own hosts' pages
    assert got["restarts"] == 0 and got["left"] == 0 and got["stats"]["rankcrawl/site/round_trips"] == 24
    edges = stored(r, "route:")
    for h, host in enumerate(HOSTS):  # distinct texts: no page is a near-duplicate of another host's
        assert {(f"http://{host}/article{j}", f"http://{host}/article{j + 1}") for j in range(20 * h, 20 * h + 8)} <= edges
        assert not any(d == f"http://{host}/nav0" for _, d in edges)  # the host's template, seen by one worker


def test_a_worker_killed_mid_page_loses_nothing(tmp_path: Path, redis_url: str, r: redis.Redis) -> None:
    got = run_pool(tmp_path, redis_url, "kill")
    assert got["owed"] >= 2  # the page in flight and the worker's answered page whose records it had not stored
    assert got["restarts"] == 1 and got["lost"] == [] and got["left"] == 0
    assert got["stats"]["rankcrawl/analysis/worker_restarts"] == 1 and got["stats"]["rankcrawl/pages/failed"] == 0
    assert got["stats"]["rankcrawl/pages/pushed"] >= 24  # the dead worker's unstored pages stored by the next one
    edges = stored(r, "kill:")
    store = GraphStore(r, "kill:")
    for h, host in enumerate(HOSTS):
        assert {(f"http://{host}/article{j}", f"http://{host}/article{j + 1}") for j in range(20 * h, 20 * h + 8)} <= edges
        assert all(store.meta(f"http://{host}/article{j}") for j in range(20 * h, 20 * h + 8))  # every page stored


def test_a_worker_logs_through_this_process(caplog: pytest.LogCaptureFixture) -> None:
    pool = AnalysisPool(WorkerSpec(FactOptions(site=True), site=SiteSpec("redis://127.0.0.1:1/0", "gone:", "uniform",
                                                                          "content", False, 100)), 1)
    executor = pool.lanes[0].start()  # nothing listens on port 1
    try:
        result, records = executor.submit(serve, Page(1, *PAGES[0], "utf-8")).result()
    finally:
        executor.shutdown()
    with caplog.at_level(logging.WARNING):
        from rankcrawl.pipelines.workers.logs import replay

        replay(records)
    assert result is not None and result.follow and result.fallback  # decided per page
    records = [r for r in caplog.records if "site-level state unavailable" in r.getMessage()]  # a loaded machine may log a retry too
    assert records and all(r.name == "rankcrawl.pipelines.site.analyzer" and r.process != os.getpid() for r in records)
