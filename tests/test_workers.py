"""Page analysis in worker processes: same results as in this process, bounded in flight, closed at the end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from rankcrawl.pipelines.site.facts import FactOptions
from rankcrawl.pipelines.workers.pool import AnalysisPool
from rankcrawl.pipelines.workers.worker import Page, Worker, WorkerSpec, serve

PAGE = ("<html><head><title>P{i}</title></head><body><ul><li><a href='/a'>A</a></li><li><a href='/b'>B</a></li>"
        "<li><a href='/c'>C</a></li></ul><main><p>" + "story words here " * 30 +
        "<a href='/p{j}'>next page</a> and <a href='#top'>top</a></p></main></body></html>")
SPEC = WorkerSpec(FactOptions(site=False))


def test_worker_processes_return_the_same_results_as_a_worker_in_this_process() -> None:
    pool = AnalysisPool(SPEC, 2)
    pool.start()
    here = Worker(SPEC, pool.board.slots[0])
    try:
        executor = pool.lanes[1].start()
        for i in range(3):
            job = Page(i + 1, f"http://w.test/p{i}", PAGE.format(i=i, j=i + 1).encode(), "utf-8")
            remote, records = executor.submit(serve, job).result()
            assert remote == here.page(job) and records == []
            assert remote.self_links == 1 and f"http://w.test/p{i + 1}" in {link.url for link in remote.follow}
        assert pool.board.slots[1]["analysed"] == 3 and 0 < pool.board.slots[1]["cpu"] < 15  # the worker's CPU seconds
    finally:
        for lane in pool.lanes:
            assert lane.executor is not None
            lane.executor.shutdown()


SCRIPT = textwrap.dedent("""
    import json, sys
    from twisted.internet import defer, task
    from rankcrawl.pipelines.page_analyzer import PageAnalyzer
    from rankcrawl.pipelines.site.facts import FactOptions
    from rankcrawl.pipelines.workers.pool import AnalysisPool
    from rankcrawl.pipelines.workers.worker import WorkerSpec
    from test_workers import PAGE

    async def main(reactor):
        analyzer = PageAnalyzer(AnalysisPool(WorkerSpec(FactOptions(site=False)), 2))
        analyzer.pool.start()
        pages = [(f"http://w{i % 4}.test/p{i}", PAGE.format(i=i, j=i + 1).encode()) for i in range(12)]
        results = await defer.gatherResults([defer.Deferred.fromCoroutine(
            analyzer.analyze(u, b, content_type="text/html")) for u, b in pages])
        same = all(r.edges == analyzer.analyze_sync(u, b).edges for r, (u, b) in zip(results, pages))
        peak = analyzer.pool.peak
        await analyzer.close()
        print(json.dumps({"n": len(results), "same": same, "peak": peak,
                          "closed": all(lane.executor is None for lane in analyzer.pool.lanes),
                          "edges": results[0].edges}))

    if __name__ == "__main__":
        task.react(lambda reactor: defer.Deferred.fromCoroutine(main(reactor)))
""")


def test_analyze_awaits_workers_with_at_most_two_pages_per_worker_in_flight(tmp_path: Path) -> None:
    script = tmp_path / "run_pool.py"
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)})
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"n": 12, "same": True, "peak": 4, "closed": True, "edges": [["http://w0.test/p1", 1.0]]}


def test_a_terminals_ctrl_c_leaves_the_workers_to_the_crawls_orderly_stop() -> None:
    pool = AnalysisPool(SPEC, 1)
    pool.start()
    executor = pool.lanes[0].start()
    try:
        body = PAGE.format(i=0, j=1).encode()
        executor.submit(serve, Page(1, "http://w.test/p0", body, "utf-8")).result()
        for pid in list(executor._processes):  # type: ignore[attr-defined]  # SIGINT, as Ctrl-C sends it to the foreground group
            os.kill(pid, signal.SIGINT)
        result, _ = executor.submit(serve, Page(2, "http://w.test/p1", body, "utf-8")).result(timeout=30)
        assert result.url == "http://w.test/p1" and not result.prefix
    finally:
        executor.shutdown()
