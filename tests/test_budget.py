"""The per-page analysis budget: the whole page, else its prefix, else skipped; never a stall."""

from __future__ import annotations

import time

import pytest

from rankcrawl.pipelines.page import budget
from rankcrawl.pipelines.page.analyze import analyze
from rankcrawl.pipelines.page.budget import analyze_within
from rankcrawl.pipelines.page.deadline import AnalysisTimeout, Deadline
from rankcrawl.settings.config import RankcrawlConfig

PARA = "<p>" + "Rivers carry water from the hills down to the sea every single day. " * 4 + "</p>"
PAGE = (f"<html><head><title>River</title></head><body><h1>Rivers</h1>{PARA}"
        f"<p>Read <a href='/next'>the next part</a> and <a href='/more'>more</a> of the story.</p>{PARA}</body></html>")


def summary(doc) -> tuple:
    return doc.title, [(b.text, b.is_content) for b in doc.blocks], [(link.url, link.text) for link in doc.all_links], doc.text


@pytest.mark.parametrize("timeout", [0, 5.0])
def test_within_budget_is_the_plain_analysis(timeout: float) -> None:
    r = analyze_within(PAGE.encode(), "http://a.example/x", timeout=timeout)
    assert r.outcome == "complete" and not r.doc.truncated
    assert summary(r.doc) == summary(analyze(PAGE.encode(), "http://a.example/x"))
    assert [link.url for link in r.doc.links] == ["http://a.example/next", "http://a.example/more"]


NAV_PAGE = (f"<html><body><ul><li><a href='/home'>Home</a></li><li><a href='/shop'>Shop</a></li>"
            f"<li><a href='/about'>About</a></li></ul>{PAGE[PAGE.index('<h1>'):]}")


def test_content_links_mode_resolves_only_what_doc_links_returns() -> None:
    url = "http://a.example/x"
    full = analyze_within(NAV_PAGE.encode(), url, timeout=5.0).doc
    r = analyze_within(NAV_PAGE.encode(), url, timeout=5.0, links="content")
    assert r.outcome == "complete"
    resolved = [i for i, b in enumerate(r.doc.blocks) if b.links is not None]
    assert resolved == [i for i in range(len(r.doc.blocks)) if r.doc.may_hold_content_links(i)]
    assert len(resolved) < len(r.doc.blocks)  # the menu's hrefs were never normalised
    assert r.doc.to_json("p") == full.to_json("p")
    assert [link.url for link in r.doc.links] == ["http://a.example/next", "http://a.example/more"]
    none = analyze_within(NAV_PAGE.encode(), url, timeout=5.0, links="none").doc
    assert all(b.links is None for b in none.blocks) and none.to_json("p") == full.to_json("p")
    with pytest.raises(ValueError, match="links must be one of"):
        analyze_within(NAV_PAGE.encode(), url, timeout=5.0, links="some")


def test_a_passed_deadline_stops_analysis_between_steps() -> None:
    with pytest.raises(AnalysisTimeout, match="decode"):
        analyze(PAGE.encode(), deadline=Deadline(-1))


class FirstAttemptTimesOut(Deadline):
    """The whole-page attempt (the first deadline made) passes it at block building; the prefix one never."""

    made = 0

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        FirstAttemptTimesOut.made += 1
        self.first = FirstAttemptTimesOut.made == 1

    def check(self, step: str) -> None:
        if self.first and step == "blocks":
            raise AnalysisTimeout(step)


def test_page_over_budget_is_analysed_on_its_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "Deadline", FirstAttemptTimesOut)
    monkeypatch.setattr(FirstAttemptTimesOut, "made", 0)
    html = ("<html><body>" + PARA * 80 + "</body></html>").encode()
    r = analyze_within(html, "http://a.example/", timeout=1.0)
    assert r.outcome == "prefix" and r.doc.truncated
    full = analyze(html)
    assert 0 < len(r.doc.text) < len(full.text) / 4


def test_page_over_both_budgets_is_skipped() -> None:
    r = analyze_within(PAGE.encode(), timeout=1e-9)
    assert r.outcome == "skipped" and r.doc is None


@pytest.mark.parametrize("html", [
    b"<html><body>" + b"<p>a</p>" * 600_000,  # 22 s without a budget on the reference machine
    b"<html><body>" + b"".join(b"<a href=/x%d>y</a> " % i for i in range(100_000)),  # one block, 100k links: 11 s
    b"<html><body><p>" + b"w<b>o</b>rd " * 400_000,  # 25 s
])
def test_hostile_pages_end_near_the_budget(html: bytes) -> None:
    start = time.process_time()  # CPU time: the 2-core test machine is often loaded (wall time is not ours)
    r = analyze_within(html, "http://a.example/", timeout=0.5)
    assert r.outcome in ("prefix", "skipped")
    assert time.process_time() - start < 2.0  # budget 0.5 s for the whole work (1.25 x at most) plus one unchecked stretch


def test_timeout_setting_is_read_from_scrapy_settings() -> None:
    from scrapy.settings import Settings

    assert RankcrawlConfig.from_settings(Settings({"RANKCRAWL_ANALYSIS_TIMEOUT": "2.5"})).analysis_timeout == 2.5
    assert RankcrawlConfig.from_settings(Settings()).analysis_timeout == 5.0
