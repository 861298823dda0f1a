"""The Scrapy add-on: component wiring that keeps the user's dicts, defaults, spider registration."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy.crawler import CrawlerRunner
from scrapy.exceptions import NotConfigured
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler

from rankcrawl.crawler.follow import FollowMiddleware
from rankcrawl.crawler.ranker_extension import RankerExtension
from rankcrawl.crawler.runner import build_settings
from rankcrawl.crawler.safety import SafetyMiddleware
from rankcrawl.crawler.spider import FocusedSpider
from rankcrawl.pipelines.analysis_pipeline import AnalysisPipeline
from rankcrawl.settings import Addon
from rankcrawl.settings.addon import DOWNLOADER_MIDDLEWARES, EXTENSIONS, PIPELINES, SPIDER_MIDDLEWARES
from rankcrawl.settings.defaults import DEFAULTS

ADDON = {"ADDONS": {"rankcrawl.settings.Addon": 0}}
COMPONENTS = (AnalysisPipeline, FollowMiddleware, SafetyMiddleware, RankerExtension)
WIRING = (("ITEM_PIPELINES", PIPELINES), ("SPIDER_MIDDLEWARES", SPIDER_MIDDLEWARES),
          ("DOWNLOADER_MIDDLEWARES", DOWNLOADER_MIDDLEWARES), ("EXTENSIONS", EXTENSIONS))


def test_addon_enables_components_and_defaults(redis_url: str) -> None:
    crawler = get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_REDIS_URL": redis_url})
    s = crawler.settings
    for setting, components in WIRING:
        enabled = {f"{c.__module__}.{c.__qualname__}" if isinstance(c, type) else c: v for c, v in s.getdict(setting).items()}
        assert all(enabled.get(path) == order for path, order in components.items()), (setting, enabled)
    assert s.getbool("ROBOTSTXT_OBEY") and "rankcrawl" in s.get("USER_AGENT")
    assert s.getint("DOWNLOAD_MAXSIZE") == 4 * DEFAULTS["RANKCRAWL_MAX_PAGE_BYTES"]
    assert s.get("RANKCRAWL_EDGE_SCOPE") == "content" and s.get("RANKCRAWL_FOLLOW_SCOPE") == "all"
    assert any(isinstance(a, Addon) for a in crawler.addons.addons)
    assert s.getint("CONCURRENT_ITEMS") == 1  # the bundled spider yields requests only


def test_user_component_order_and_none_survive_the_addon(redis_url: str) -> None:
    user = {
        "ITEM_PIPELINES": {"rankcrawl.pipelines.analysis_pipeline.AnalysisPipeline": 123},
        "SPIDER_MIDDLEWARES": {FollowMiddleware: None},
        "DOWNLOADER_MIDDLEWARES": {"rankcrawl.crawler.safety.SafetyMiddleware": None,
                                   "scrapy.downloadermiddlewares.retry.RetryMiddleware": 551},
        "EXTENSIONS": {"rankcrawl.crawler.ranker_extension.RankerExtension": 900},
    }
    crawler = get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_REDIS_URL": redis_url, **user})
    for setting, components in user.items():
        got = crawler.settings.getdict(setting)
        for component, value in components.items():
            assert got[component] == value, (setting, got)
        named = {load_object(c) if isinstance(c, str) else c for c in components}
        added = {load_object(path) for path in dict(WIRING)[setting]} - named  # the add-on's others, once each
        assert len([c for c in got if "rankcrawl" in str(c)]) == len([c for c in components if "rankcrawl" in str(c)]) + len(added)


def test_user_settings_win_over_the_addon(redis_url: str) -> None:
    crawler = get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_REDIS_URL": redis_url, "ROBOTSTXT_OBEY": False,
                                          "RANKCRAWL_MAX_PAGE_BYTES": 1000, "DOWNLOAD_DELAY": 3,
                                          "RANKCRAWL_FOLLOW_SCOPE": "content"})
    s = crawler.settings
    assert not s.getbool("ROBOTSTXT_OBEY")
    assert s.getfloat("DOWNLOAD_DELAY") == 3
    assert s.getint("DOWNLOAD_MAXSIZE") == 4000
    assert s.get("RANKCRAWL_FOLLOW_SCOPE") == "content"


def test_disabled_addon_enables_nothing() -> None:
    crawler = get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_ENABLED": False})
    assert not crawler.addons.addons
    assert not set(PIPELINES) & set(crawler.settings.getdict("ITEM_PIPELINES"))


def test_addon_registers_the_bundled_spider() -> None:
    runner = CrawlerRunner({**ADDON, "SPIDER_MODULES": ["scrapy.spiders.crawl"]})
    assert runner.settings.getlist("SPIDER_MODULES") == ["scrapy.spiders.crawl", "rankcrawl.crawler.spider"]
    assert runner.spider_loader.load("rankcrawl") is FocusedSpider


def test_bad_setting_stops_the_crawler_at_start(redis_url: str) -> None:
    with pytest.raises(ValueError, match=r"^RANKCRAWL_EDGE_BATCH must be an integer ≥ 1, not '0'$"):
        get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_REDIS_URL": redis_url, "RANKCRAWL_EDGE_BATCH": "0"})


@pytest.mark.parametrize("component", COMPONENTS)
def test_components_refuse_when_disabled(component: type) -> None:
    crawler = get_crawler(FocusedSpider, {"RANKCRAWL_ENABLED": False})
    with pytest.raises(NotConfigured):
        component.from_crawler(crawler)


def test_components_work_one_by_one_without_the_addon(redis_url: str) -> None:
    crawler = get_crawler(FocusedSpider, {"RANKCRAWL_REDIS_URL": redis_url})
    for component in COMPONENTS:
        assert isinstance(component.from_crawler(crawler), component)


def test_components_share_one_analyzer_and_one_sink(redis_url: str) -> None:
    crawler = get_crawler(FocusedSpider, {"RANKCRAWL_REDIS_URL": redis_url})
    pipeline, middleware = AnalysisPipeline.from_crawler(crawler), FollowMiddleware.from_crawler(crawler)
    assert pipeline.analyzer is middleware.analyzer and middleware.sink.pool is pipeline.analyzer.pool
    other = FollowMiddleware.from_crawler(get_crawler(FocusedSpider, {"RANKCRAWL_REDIS_URL": redis_url}))
    assert other.analyzer is not middleware.analyzer


def test_private_addresses_switch_off_the_guard() -> None:
    crawler = get_crawler(FocusedSpider, {"RANKCRAWL_ALLOW_PRIVATE": True})
    with pytest.raises(NotConfigured):
        SafetyMiddleware.from_crawler(crawler)


def test_distributed_mode_uses_the_shared_redis_frontier(redis_url: str) -> None:
    crawler = get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_DISTRIBUTED": "True", "RANKCRAWL_KEY_PREFIX": "x:",
                                          "RANKCRAWL_REDIS_URL": redis_url})
    cs = crawler.settings
    assert cs.get("SCHEDULER") == "rankcrawl.crawler.shared_scheduler.BatchedScheduler"
    assert cs.get("DUPEFILTER_CLASS") == "scrapy_redis.dupefilter.RFPDupeFilter"
    assert cs.get("REDIS_URL") == redis_url
    assert cs.get("SCHEDULER_QUEUE_KEY").startswith("x:{crawl}:")


def test_build_settings_resolves_redis_and_applies_overrides(redis_url: str) -> None:
    s = build_settings(["http://example.org/"], 10, {"RANKCRAWL_EDGE_SCOPE": "all"}, redis_url=redis_url)
    assert s.getint("RANKCRAWL_MAX_PAGES") == 10
    assert s.get("RANKCRAWL_REDIS_URL") == redis_url
    assert s.get("RANKCRAWL_EDGE_SCOPE") == "all"
    assert "rankcrawl.settings.Addon" in s.getdict("ADDONS")


def test_build_settings_rejects_bad_seeds() -> None:
    with pytest.raises(ValueError, match="not an http"):
        build_settings(["ftp://example.org/"], redis_url="redis://127.0.0.1:1/0")
    with pytest.raises(ValueError, match="no seed"):
        build_settings([], redis_url="redis://127.0.0.1:1/0")


def test_spider_seeds_from_arguments_file_and_redis_key(r, redis_url: str, tmp_path: Path) -> None:
    seeds_file = tmp_path / "seeds.txt"
    seeds_file.write_text("http://b.example/\nHTTP://C.example:80/x#frag\n")
    r.rpush("myseeds", "http://d.example/", "http://a.example/")
    crawler = get_crawler(FocusedSpider, {"RANKCRAWL_REDIS_URL": redis_url, "RANKCRAWL_TOPIC_TERMS": "spice,harbour"})
    spider = FocusedSpider.from_crawler(crawler, seeds="http://a.example/ http://a.example/", seeds_file=str(seeds_file),
                                        seeds_key="myseeds", topic="bread")
    assert spider.seeds == ["http://a.example/", "http://b.example/", "http://c.example/x", "http://d.example/"]
    assert spider.allowed_domains == ["a.example", "b.example", "c.example", "d.example"]
    middleware = FollowMiddleware.from_crawler(crawler)
    middleware.spider_opened(spider)
    middleware.spider_closed(spider)
    assert middleware.prioritizer.terms == {"spice", "harbour", "bread"}


def test_spider_rejects_a_bad_seed() -> None:
    crawler = get_crawler(FocusedSpider, {})
    with pytest.raises(ValueError, match="not an http"):
        FocusedSpider.from_crawler(crawler, seeds="javascript:alert(1)")


def test_distributed_frontier_is_json_with_the_retry_policy(redis_url: str) -> None:
    from scrapy_redis.connection import get_redis_from_settings

    crawler = get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_DISTRIBUTED": "True", "RANKCRAWL_REDIS_URL": redis_url})
    cs = crawler.settings
    assert cs.get("SCHEDULER_SERIALIZER") == "rankcrawl.crawler.frontier"
    assert cs.get("SCHEDULER_QUEUE_CLASS") == "rankcrawl.crawler.shared_frontier.SharedFrontier"
    client = get_redis_from_settings(cs)
    retry = client.get_retry()
    assert retry.get_retries() == 3 and client.ping()
    client.close()
