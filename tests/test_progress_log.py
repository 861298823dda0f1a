"""The periodic progress line: stats, frontier and the last epoch (in-crawl ranker or published state)."""

from __future__ import annotations

import re

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from rankcrawl.crawler.epoch_log import EpochLog
from rankcrawl.crawler.progress_log import ProgressLog
from rankcrawl.crawler.spider import FocusedSpider
from rankcrawl.ranker.service import RankerService
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.settings.config import per_crawler


def test_line_reads_the_published_epoch_when_the_ranker_runs_elsewhere(redis_url: str, r) -> None:
    crawler = get_crawler(FocusedSpider, {"RANKCRAWL_REDIS_URL": redis_url, "RANKCRAWL_RANKER": False,
                                          "RANKCRAWL_PROGRESS_INTERVAL": 30})
    ext = ProgressLog.from_crawler(crawler)
    crawler.stats.set_value("response_received_count", 15)
    crawler.stats.set_value("rankcrawl/pages/analysed", 14)
    crawler.stats.set_value("rankcrawl/edges/pushed", 40)
    assert ext.line() == "rankcrawl: 15 pages (30 pages/min), 14 analysed, 40 edges stored, no epoch yet"
    GraphStore(r).put_pages([PageRecord(url="http://a.org/", links=[("http://b.org/", 1.0)])])
    report = RankerService(r).solve_once()
    ext._read_published()
    crawler.stats.set_value("response_received_count", 20)
    line = ext.line()
    assert re.fullmatch(rf"rankcrawl: 20 pages \(10 pages/min\), 14 analysed, 40 edges stored, epoch {report.epoch} \(\d+ s ago\)",
                        line), line


def test_line_shows_the_in_crawl_rankers_last_epoch(redis_url: str, r) -> None:
    crawler = get_crawler(FocusedSpider, {"RANKCRAWL_REDIS_URL": redis_url, "RANKCRAWL_PROGRESS_INTERVAL": 60})
    ext = ProgressLog.from_crawler(crawler)
    GraphStore(r).put_pages([PageRecord(url="http://a.org/", links=[("http://b.org/", 1.0)])])
    report = RankerService(r, progress=per_crawler(crawler, EpochLog, EpochLog)).solve_once()
    assert ext.line().endswith(f"epoch {report.epoch} ({report.seconds:.2f} s solve, 0 s ago)")


def test_interval_zero_turns_it_off() -> None:
    with pytest.raises(NotConfigured):
        ProgressLog.from_crawler(get_crawler(FocusedSpider, {"RANKCRAWL_PROGRESS_INTERVAL": 0}))
