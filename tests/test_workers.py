"""Page analysis in worker processes: same results as in-thread, bounded in flight, closed at the end."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from rankcrawl.pipelines.site.facts import FactOptions, analyze_page
from rankcrawl.pipelines.workers.pool import AnalysisPool

PAGE = ("<html><head><title>P{i}</title></head><body><ul><li><a href='/a'>A</a></li><li><a href='/b'>B</a></li>"
        "<li><a href='/c'>C</a></li></ul><main><p>" + "story words here " * 30 +
        "<a href='/p{j}'>next page</a> and <a href='#top'>top</a></p></main></body></html>")


def test_worker_processes_return_the_same_facts_as_the_thread() -> None:
    pool = AnalysisPool(2, FactOptions())
    pool.start()
    try:
        assert pool.executor is not None
        for i in range(3):
            body = PAGE.format(i=i, j=i + 1).encode()
            remote = pool.executor.submit(analyze_page, f"http://w.test/p{i}", body, "utf-8", pool.options).result()
            assert remote == analyze_page(f"http://w.test/p{i}", body, "utf-8", pool.options)
            assert remote.self_links == 1 and f"http://w.test/p{i + 1}" in remote.links
            assert 0 < remote.seconds < 5  # the worker thread's CPU seconds
    finally:
        pool.close()
    assert pool.executor is None


SCRIPT = textwrap.dedent("""
    import json, sys
    from twisted.internet import defer, task
    from rankcrawl.pipelines.page_analyzer import PageAnalyzer
    from test_workers import PAGE

    async def main(reactor):
        analyzer = PageAnalyzer(site=None, workers=2)
        analyzer.pool.start()
        pages = [(f"http://w.test/p{i}", PAGE.format(i=i, j=i + 1).encode()) for i in range(12)]
        results = await defer.gatherResults([defer.Deferred.fromCoroutine(
            analyzer.analyze(u, b, content_type="text/html")) for u, b in pages])
        same = all(r.edges == analyzer.analyze_sync(u, b).edges for r, (u, b) in zip(results, pages))
        peak = analyzer.pool.peak
        await analyzer.close()
        print(json.dumps({"n": len(results), "same": same, "peak": peak, "closed": analyzer.pool.executor is None,
                          "edges": results[0].edges}))

    if __name__ == "__main__":
        task.react(lambda reactor: defer.Deferred.fromCoroutine(main(reactor)))
""")


def test_analyze_awaits_workers_with_at_most_two_pages_per_worker_in_flight(tmp_path) -> None:
    script = tmp_path / "run_pool.py"
    script.write_text(SCRIPT)
    tests_dir = str(__import__("pathlib").Path(__file__).parent)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "PYTHONPATH": tests_dir})
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"n": 12, "same": True, "peak": 4, "closed": True, "edges": [["http://w.test/p1", 1.0]]}


def test_a_terminals_ctrl_c_leaves_the_workers_to_the_crawls_orderly_stop() -> None:
    import os
    import signal

    pool = AnalysisPool(1, FactOptions())
    pool.start()
    try:
        assert pool.executor is not None
        body = PAGE.format(i=0, j=1).encode()
        pool.executor.submit(analyze_page, "http://w.test/p0", body, "utf-8", pool.options).result()
        for pid in list(pool.executor._processes):  # SIGINT, as Ctrl-C sends it to the foreground group
            os.kill(pid, signal.SIGINT)
        facts = pool.executor.submit(analyze_page, "http://w.test/p1", body, "utf-8", pool.options).result(timeout=30)
        assert facts.url == "http://w.test/p1" and facts.outcome == "complete"
    finally:
        pool.close()
