"""The settings table and the Scrapy add-on: defaults, component wiring, priorities, NotConfigured."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from rankcrawl.crawler.ranker_extension import RankerExtension
from rankcrawl.crawler.runner import build_settings
from rankcrawl.crawler.safety import SafetyMiddleware
from rankcrawl.crawler.spider import FocusedSpider
from rankcrawl.pipelines.analysis_pipeline import AnalysisPipeline
from rankcrawl.pipelines.edge_pipeline import EdgePushPipeline
from rankcrawl.settings import Addon
from rankcrawl.settings.addon import DOWNLOADER_MIDDLEWARES, EXTENSIONS, PIPELINES
from rankcrawl.settings.defaults import DEFAULTS, SETTINGS, markdown

ROOT = Path(__file__).resolve().parents[1]
ADDON = {"ADDONS": {"rankcrawl.settings.Addon": 0}}
COMPONENTS = (AnalysisPipeline, EdgePushPipeline, SafetyMiddleware, RankerExtension)


def source_outside_table() -> str:
    files = [p for d in ("crawler", "pipelines", "ranker", "settings") for p in (ROOT / d).glob("*.py")]
    return "\n".join(p.read_text() for p in files if p.name != "defaults.py")


def test_every_setting_is_documented_prefixed_and_read_somewhere() -> None:
    source = source_outside_table()
    assert len({s.name for s in SETTINGS}) == len(SETTINGS)
    for s in SETTINGS:
        assert s.name.startswith("RANKCRAWL_") and s.doc.strip()
        assert re.search(rf'"{s.name}"', source), f"{s.name} is never read"
        assert f"`{s.name}`" in markdown()


def test_addon_enables_components_and_defaults(redis_url: str) -> None:
    crawler = get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_REDIS_URL": redis_url})
    s = crawler.settings
    for setting, components in (("ITEM_PIPELINES", PIPELINES), ("DOWNLOADER_MIDDLEWARES", DOWNLOADER_MIDDLEWARES),
                                ("EXTENSIONS", EXTENSIONS)):
        assert set(components) <= set(s.getdict(setting))
    assert s.getbool("ROBOTSTXT_OBEY") and "rankcrawl" in s.get("USER_AGENT")
    assert s.getint("DOWNLOAD_MAXSIZE") == 4 * DEFAULTS["RANKCRAWL_MAX_PAGE_BYTES"]
    assert s.get("RANKCRAWL_LINK_SCOPE") == "content"
    assert any(isinstance(a, Addon) for a in crawler.addons.addons)


def test_user_settings_win_over_the_addon(redis_url: str) -> None:
    crawler = get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_REDIS_URL": redis_url, "ROBOTSTXT_OBEY": False,
                                          "RANKCRAWL_MAX_PAGE_BYTES": 1000, "DOWNLOAD_DELAY": 3})
    assert not crawler.settings.getbool("ROBOTSTXT_OBEY")
    assert crawler.settings.getfloat("DOWNLOAD_DELAY") == 3
    assert crawler.settings.getint("DOWNLOAD_MAXSIZE") == 4000


def test_disabled_addon_enables_nothing() -> None:
    crawler = get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_ENABLED": False})
    assert not crawler.addons.addons
    assert not set(PIPELINES) & set(crawler.settings.getdict("ITEM_PIPELINES"))


@pytest.mark.parametrize("component", COMPONENTS)
def test_components_refuse_when_disabled(component: type) -> None:
    crawler = get_crawler(FocusedSpider, {"RANKCRAWL_ENABLED": False})
    with pytest.raises(NotConfigured):
        component.from_crawler(crawler)


def test_components_work_one_by_one_without_the_addon(redis_url: str) -> None:
    crawler = get_crawler(FocusedSpider, {"RANKCRAWL_REDIS_URL": redis_url})
    for component in (AnalysisPipeline, EdgePushPipeline, SafetyMiddleware, RankerExtension):
        assert isinstance(component.from_crawler(crawler), component)


def test_private_addresses_switch_off_the_guard() -> None:
    crawler = get_crawler(FocusedSpider, {"RANKCRAWL_ALLOW_PRIVATE": True})
    with pytest.raises(NotConfigured):
        SafetyMiddleware.from_crawler(crawler)


def test_bad_link_scope_is_one_clear_error(redis_url: str) -> None:
    crawler = get_crawler(FocusedSpider, {"RANKCRAWL_REDIS_URL": redis_url, "RANKCRAWL_LINK_SCOPE": "everything"})
    with pytest.raises(ValueError, match="RANKCRAWL_LINK_SCOPE must be one of"):
        AnalysisPipeline.from_crawler(crawler)


def test_distributed_mode_uses_the_shared_redis_frontier(redis_url: str) -> None:
    crawler = get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_DISTRIBUTED": "True", "RANKCRAWL_KEY_PREFIX": "x:",
                                          "RANKCRAWL_REDIS_URL": redis_url})
    cs = crawler.settings
    assert cs.get("SCHEDULER") == "scrapy_redis.scheduler.Scheduler"
    assert cs.get("DUPEFILTER_CLASS") == "scrapy_redis.dupefilter.RFPDupeFilter"
    assert cs.get("REDIS_URL") == redis_url
    assert cs.get("SCHEDULER_QUEUE_KEY").startswith("x:{crawl}:")


def test_build_settings_resolves_redis_and_applies_overrides(redis_url: str) -> None:
    s = build_settings(["http://example.org/"], 10, {"RANKCRAWL_LINK_SCOPE": "all"}, redis_url=redis_url)
    assert s.getint("RANKCRAWL_MAX_PAGES") == 10
    assert s.get("RANKCRAWL_REDIS_URL") == redis_url
    assert s.get("RANKCRAWL_LINK_SCOPE") == "all"
    assert "rankcrawl.settings.Addon" in s.getdict("ADDONS")


def test_crawl_command_errors_are_one_line(redis_url: str) -> None:
    from click.testing import CliRunner

    from rankcrawl.crawler.cli.main import main

    for args in (["notaurl"], ["http://a.example/", "-s", "NOEQUALS"],
                 ["http://a.example/", "-s", "RANKCRAWL_LINK_SCOPE=everything"],
                 ["http://a.example/", "--redis-url", "redis://127.0.0.1:1/0"]):
        result = CliRunner().invoke(main, ["crawl", *args])
        assert result.exit_code != 0
        assert result.output.startswith("rankcrawl: error: ") and result.output.count("\n") == 1, result.output


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
    assert spider.prioritizer.terms == {"spice", "harbour", "bread"}


def test_spider_rejects_a_bad_seed() -> None:
    crawler = get_crawler(FocusedSpider, {})
    with pytest.raises(ValueError, match="not an http"):
        FocusedSpider.from_crawler(crawler, seeds="javascript:alert(1)")


def test_distributed_frontier_is_json_with_the_retry_policy(redis_url: str) -> None:
    from scrapy_redis.connection import get_redis_from_settings

    crawler = get_crawler(FocusedSpider, {**ADDON, "RANKCRAWL_DISTRIBUTED": "True", "RANKCRAWL_REDIS_URL": redis_url})
    cs = crawler.settings
    assert cs.get("SCHEDULER_SERIALIZER") == "rankcrawl.crawler.frontier"
    assert cs.get("SCHEDULER_QUEUE_CLASS") == "rankcrawl.crawler.frontier.SafePriorityQueue"
    client = get_redis_from_settings(cs)
    retry = client.get_retry()
    assert retry.get_retries() == 3 and client.ping()
    client.close()
