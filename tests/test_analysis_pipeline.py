"""AnalysisPipeline: HTML detection, edges and follow links per scope, site-level decisions, drops."""

from __future__ import annotations

import pytest
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from rankcrawl.crawler.items import PageItem
from rankcrawl.pipelines.analysis_pipeline import AnalysisPipeline
from rankcrawl.pipelines.page_analyzer import is_html
from rankcrawl.pipelines.sitedecide import edge_list

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


def test_content_scope_keeps_only_content_links(redis_url: str) -> None:
    result = pipeline(redis_url, RANKCRAWL_SITE_LEVEL=False).analyzer.analyze_sync("http://a.example/article0", page(0), "utf-8")
    assert [u for u, _ in result.edges] == ["http://a.example/article1"]
    assert [f.url for f in result.follow if f.counted] == ["http://a.example/article1"]


def test_all_scope_keeps_every_link(redis_url: str) -> None:
    result = pipeline(redis_url, RANKCRAWL_SITE_LEVEL=False, RANKCRAWL_LINK_SCOPE="all").analyzer.analyze_sync(
        "http://a.example/article0", page(0), "utf-8")
    assert len(result.edges) == 9


def test_site_level_runs_and_marks_templates(redis_url: str) -> None:
    p = pipeline(redis_url)
    results = [p.analyzer.analyze_sync(f"http://a.example/article{i}", page(i), "utf-8") for i in range(6)]
    assert all([u for u, _ in r.edges] == [f"http://a.example/article{i + 1}"] for i, r in enumerate(results))
    assert results[-1].template_links > 0


def test_non_html_and_errors_are_dropped_with_a_stat(redis_url: str) -> None:
    p = pipeline(redis_url, RANKCRAWL_SITE_LEVEL=False)
    for item, stat in ((PageItem("http://a.example/x.pdf", b"%PDF-1.4", 200, content_type="application/pdf"),
                        "rankcrawl/dropped/non_html"),
                       (PageItem("http://a.example/gone", b"<html></html>", 404, content_type="text/html"),
                        "rankcrawl/dropped/http_error")):
        coro = p.process_item(item)
        with pytest.raises(DropItem):
            coro.send(None)
        assert p.stats.get_value(stat) == 1
