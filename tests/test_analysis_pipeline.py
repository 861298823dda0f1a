"""AnalysisPipeline: HTML detection, edges and follow links per scope, site-level decisions, drops,
page items analysed and stored, items of pages already stored passed through."""

from __future__ import annotations

import pytest
import redis
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from rankcrawl.crawler.items import PageItem
from rankcrawl.pipelines.analysis_pipeline import AnalysisPipeline
from rankcrawl.pipelines.page_analyzer import NotAnalysed, is_html
from rankcrawl.pipelines.site.decide import edge_list
from rankcrawl.pipelines.workers.worker import Finished
from rankcrawl.ranker.store.graphstore import GraphStore

WORDS = ("harbour report journey spice traders sea market lantern river bridge festival kitchen orchard "
         "mountain library compiler winter autumn village railway").split()


def prose(i: int, n: int = 40) -> str:
    """Distinct text per page (so pages are no near-duplicates)."""
    words = [WORDS[(i * 7 + k * (i + 3)) % len(WORDS)] for k in range(n)]
    return " ".join(words[:20]).capitalize() + ". " + " ".join(words[20:]).capitalize() + "."


def page(i: int) -> bytes:
    nav = "".join(f'<li><a href="/nav{k}">Section {k}</a></li>' for k in range(6))
    return (f"<html><head><title>Page {i}</title></head><body><ul class='nav'>{nav}</ul>"
            f"<p>{prose(i)} See <a href='/article{i + 1}'>the next article</a> for more. {prose(i + 100)}</p>"
            f"<div class='footer'><a href='/about'>About</a> | <a href='/contact'>Contact</a></div></body></html>").encode()


def pipeline(redis_url: str, **settings: object) -> AnalysisPipeline:
    crawler = get_crawler(settings_dict={"RANKCRAWL_REDIS_URL": redis_url, "RANKCRAWL_ANALYSIS_WORKERS": 0, **settings})
    crawler.stats.open_spider()
    return AnalysisPipeline.from_crawler(crawler)


def test_is_html_by_content_type_or_sniff() -> None:
    assert is_html("text/html; charset=utf-8", b"")
    assert is_html("application/xhtml+xml", b"")
    assert not is_html("application/pdf", b"<html>")
    assert is_html("", b"  <!DOCTYPE html><html>")
    assert not is_html("", b"\x89PNG\r\n\x1a\n\x00\x00<html>")


def test_repeated_links_make_one_edge_unless_summed() -> None:
    targets, weights = ["http://a/x", "http://a/y", "http://a/x", "http://a/z"], [1.0, 0.5, 0.8, 0.0]
    assert edge_list(targets, weights) == [("http://a/x", 1.0), ("http://a/y", 0.5)]
    assert edge_list(targets, weights, sum_repeated=True) == [("http://a/x", 1.8), ("http://a/y", 0.5)]


def run(coro: object) -> object:
    """Drive a coroutine that never waits on the reactor (no thread, no backpressure) to its end."""
    try:
        coro.send(None)  # type: ignore[attr-defined]
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the coroutine waited")


def test_content_scope_keeps_only_content_links(redis_url: str) -> None:
    result = pipeline(redis_url, RANKCRAWL_SITE_LEVEL=False).analyzer.analyze_sync("http://a.example/article0", page(0), "utf-8")
    assert [u for u, _ in result.edges] == ["http://a.example/article1"]
    assert [f.url for f in result.follow if f.counted] == ["http://a.example/article1"]
    assert len(result.follow) == 9 and not any(f.template for f in result.follow)


def test_all_scope_keeps_every_link(redis_url: str) -> None:
    result = pipeline(redis_url, RANKCRAWL_SITE_LEVEL=False, RANKCRAWL_EDGE_SCOPE="all").analyzer.analyze_sync(
        "http://a.example/article0", page(0), "utf-8")
    assert len(result.edges) == 9


def test_site_level_runs_and_marks_templates(redis_url: str) -> None:
    p = pipeline(redis_url)
    results = [p.analyzer.analyze_sync(f"http://a.example/article{i}", page(i), "utf-8") for i in range(6)]
    assert all([u for u, _ in r.edges] == [f"http://a.example/article{i + 1}"] for i, r in enumerate(results))
    assert results[-1].template_links > 0
    template = {f.url for f in results[-1].follow if f.template}
    assert "http://a.example/nav0" in template and "http://a.example/article6" not in template


def test_page_items_are_analysed_and_stored_once(r: redis.Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    p = pipeline(redis_url, RANKCRAWL_SITE_LEVEL=False)
    monkeypatch.setattr(p.analyzer, "analyze", async_sync(p.analyzer.analyze_sync))
    item = PageItem("http://a.example/article0", page(0), 200, encoding="utf-8", content_type="text/html", depth=1)
    plain = {"url": "http://a.example/article1", "body": page(1), "content_type": "text/html"}
    assert run(p.process_item(item)) is item and run(p.process_item(plain)) is plain
    assert item.title == "Page 0" and item.edges == [("http://a.example/article1", 1.0)]
    assert plain["follow"] == [("http://a.example/article2", plain["follow"][0][1], 1.0)]
    assert p.analyzer.stored(item.url) and p.analyzer.stored(plain["url"])
    again = {"url": item.url, "body": page(0)}
    assert run(p.process_item(again)) is again and "edges" not in again  # already stored: passed unchanged
    user = {"name": "not a page"}
    assert run(p.process_item(user)) == {"name": "not a page"}
    assert p.analyzer.pool.lanes[0].local().finish(20.0) == Finished(0, 0)  # the flush the pool's close runs in the worker
    store = GraphStore(r)
    assert store.meta(item.url)["depth"] == 1 and store.meta(item.url)["title"] == "Page 0"
    assert {(s, d) for s, d, _ in store.iter_edges()} == {(item.url, "http://a.example/article1"),
                                                          (plain["url"], "http://a.example/article2")}


def async_sync(func):  # type: ignore[no-untyped-def]
    """``PageAnalyzer.analyze`` run inline (its thread hop needs a running reactor)."""
    async def analyze(url: str, body: bytes, *, status: int = 200, encoding: str | None = None,
                      content_type: str = "", meta: dict[str, object] | None = None) -> object:
        if not is_html(content_type, body):
            raise AssertionError("not HTML")
        return func(url, body, encoding, meta)

    return analyze


def test_non_html_and_errors_are_dropped_with_a_stat(redis_url: str) -> None:
    p = pipeline(redis_url, RANKCRAWL_SITE_LEVEL=False)
    for item, stat in ((PageItem("http://a.example/x.pdf", b"%PDF-1.4", 200, content_type="application/pdf"),
                        "rankcrawl/dropped/non_html"),
                       (PageItem("http://a.example/gone", b"<html></html>", 404, content_type="text/html"),
                        "rankcrawl/dropped/http_error")):
        with pytest.raises(DropItem):
            run(p.process_item(item))
        assert p.stats.get_value(stat) == 1


def test_page_over_the_analysis_budget_is_dropped_with_a_stat(redis_url: str) -> None:
    p = pipeline(redis_url, RANKCRAWL_SITE_LEVEL=False, RANKCRAWL_ANALYSIS_TIMEOUT=1e-9)
    with pytest.raises(NotAnalysed) as skipped:  # whole page and prefix over budget
        p.analyzer.analyze_sync("http://a.example/article0", page(0), "utf-8")
    assert skipped.value.reason == "analysis_timeout"  # the pipeline counts rankcrawl/dropped/analysis_timeout
    ok = pipeline(redis_url, RANKCRAWL_SITE_LEVEL=False, RANKCRAWL_ANALYSIS_TIMEOUT=0)
    result = ok.analyzer.analyze_sync("http://a.example/article0", page(0), "utf-8")
    assert not result.prefix and result.edges
