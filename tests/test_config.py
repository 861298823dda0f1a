"""RankcrawlConfig: one typed, checked object from the settings table; every bad value is one line."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from scrapy.settings import Settings

from rankcrawl.settings.config import README_END, README_START, RankcrawlConfig, SettingError, field_name
from rankcrawl.settings.defaults import SETTINGS, Setting, markdown
from rankcrawl.settings.kinds import Flag, Int, Number, Terms, Text, kind_for

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()"]

BAD = [  # (setting, value, allowed values the message must name)
    ("RANKCRAWL_EDGE_BATCH", "0", "an integer ≥ 1"),
    ("RANKCRAWL_ALPHA", "2", "a number between 0 and 1 (exclusive)"),
    ("RANKCRAWL_PARTITIONS", "0", "an integer ≥ 1"),
    ("RANKCRAWL_MAX_PAGES", "-5", "an integer ≥ 0"),
    ("RANKCRAWL_MAX_PAGE_BYTES", "-1", "an integer ≥ 1"),
    ("RANKCRAWL_MAX_URL_LENGTH", "8", "an integer ≥ 16"),
    ("RANKCRAWL_CLASSIFIER", "bogus", "one of cleaneval, densitometric"),
    ("RANKCRAWL_ALLOW_PRIVATE", "yes", "True or False"),
    ("RANKCRAWL_TOL", "abc", "a number > 0"),
    ("RANKCRAWL_INTERIM_TOL", "0", "a number > 0"),
    ("RANKCRAWL_LINK_WEIGHTING", "bogus", "one of uniform, block, lexical"),
    ("RANKCRAWL_EDGE_SCOPE", "everything", "one of content, non-template, all"),
    ("RANKCRAWL_FOLLOW_SCOPE", "some", "one of all, non-template, content, none"),
    ("RANKCRAWL_RANK_REFRESH", "nan", "a number > 0"),
    ("RANKCRAWL_ANALYSIS_BACKLOG", "-1", "an integer ≥ 0 (or unset)"),
    ("RANKCRAWL_FLUSH_TIMEOUT", "-1", "a number ≥ 0"),
    ("RANKCRAWL_OUTAGE_TIMEOUT", "0", "a number > 0"),
    ("RANKCRAWL_EDGE_BUFFER", "1.5", "an integer ≥ 1"),
    ("RANKCRAWL_KEY_PREFIX", "a b", "a non-empty string without spaces"),
    ("RANKCRAWL_REDIS_URL", "http://user:secret@db.example/0", "a redis://, rediss:// or unix:// URL"),
    ("RANKCRAWL_ENABLED", "maybe", "True or False"),
    ("RANKCRAWL_SITE_LEVEL", "sometimes", "True or False"),
    ("RANKCRAWL_SSRF_FAIL_OPEN", "open", "True or False"),
    ("RANKCRAWL_BIAS_TO_SEEDS", "seeds", "True or False"),
    ("RANKCRAWL_RANKER", "always", "True or False"),
    ("RANKCRAWL_DISTRIBUTED", "cluster", "True or False"),
    ("RANKCRAWL_SUM_REPEATED_LINKS", "sum", "True or False"),
    ("RANKCRAWL_ANALYSIS_TIMEOUT", "-1", "a number ≥ 0"),
    ("RANKCRAWL_IDLE_TIMEOUT", "soon", "a number ≥ 0"),
    ("RANKCRAWL_PROGRESS_INTERVAL", "-1", "a number ≥ 0"),
    ("RANKCRAWL_FRONTIER", "random", "one of pagerank, opic, inlinks, breadth-first, static"),
    ("RANKCRAWL_ANALYSIS_WORKERS", "-2", "an integer ≥ 0 (or unset)"),
]
ANY_STRING = {"RANKCRAWL_TOPIC_TERMS"}
"""Settings every command-line string is valid for (a comma-separated list of words)."""


def source_outside_settings() -> str:
    files = [p for d in ("crawler", "pipelines", "ranker") for p in (ROOT / d).rglob("*.py")]
    return "\n".join(p.read_text() for p in files)


def test_every_setting_is_a_typed_field_documented_and_read() -> None:
    names = [s.name for s in SETTINGS]
    assert len(set(names)) == len(names) and all(n.startswith("RANKCRAWL_") for n in names)
    assert [field_name(n) for n in names] == [f.name for f in fields(RankcrawlConfig)]
    source = source_outside_settings()
    derived = {name: set(re.findall(r"self\.(\w+)", inspect.getsource(member.fget)))
               for name, member in vars(RankcrawlConfig).items() if isinstance(member, property)}
    for s in SETTINGS:
        assert s.doc.strip() and f"`{s.name}`" in markdown()
        readers = [field_name(s.name), *(name for name, read in derived.items() if field_name(s.name) in read)]
        assert any(re.search(rf"\.{r}\b", source) for r in readers), f"{s.name} is never read"


def test_defaults_are_valid_and_typed() -> None:
    config = RankcrawlConfig.from_settings(Settings())
    for s in SETTINGS:
        value = getattr(config, field_name(s.name))
        assert value == (tuple(s.default) if isinstance(s.default, list) else s.default), s.name
    assert config.follow_scope == "all" and config.edge_scope == "content"


def test_values_from_the_command_line_are_parsed() -> None:
    config = RankcrawlConfig.from_settings(Settings({
        "RANKCRAWL_ENABLED": "false", "RANKCRAWL_EDGE_BATCH": "8", "RANKCRAWL_ALPHA": "0.5", "RANKCRAWL_TOPIC_TERMS": "a, b,,c",
        "RANKCRAWL_CLASSIFIER": "numwords+largest", "RANKCRAWL_ALLOW_PRIVATE": 1, "RANKCRAWL_REDIS_URL": "redis://h:1/2"}))
    assert (config.enabled, config.edge_batch, config.alpha, config.topic_terms) == (False, 8, 0.5, ("a", "b", "c"))
    assert config.classifier == "numwords+largest" and config.allow_private and config.redis_url == "redis://h:1/2"


def test_redis_url_falls_back_to_redis_url_setting() -> None:
    assert RankcrawlConfig.from_settings(Settings({"REDIS_URL": "redis://other:6379/0"})).redis_url == "redis://other:6379/0"


def test_every_setting_has_a_bad_value_case() -> None:
    assert {s.name for s in SETTINGS} - ANY_STRING == {name for name, _, _ in BAD}


@pytest.mark.parametrize(("name", "value", "allowed"), BAD)
def test_bad_value_is_one_error_naming_setting_and_allowed_values(name: str, value: str, allowed: str) -> None:
    with pytest.raises(SettingError) as info:
        RankcrawlConfig.from_settings(Settings({name: value}))
    message = str(info.value)
    assert message.startswith(f"{name} must be {allowed}") and "\n" not in message
    assert "secret" not in message


@pytest.mark.parametrize(("name", "value", "allowed"), BAD)
def test_crawl_command_refuses_bad_setting_before_crawling(name: str, value: str, allowed: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("RANKCRAWL_REDIS_URL", "REDIS_URL")}
    env["RANKCRAWL_HOME"] = str(tmp_path / "home")
    redis = [] if name == "RANKCRAWL_REDIS_URL" else ["--redis-url", "redis://127.0.0.1:1/0"]
    done = subprocess.run([*CLI, "crawl", "http://a.example/", "-s", f"{name}={value}", *redis],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.startswith(f"rankcrawl: error: {name} must be {allowed}") and done.stderr.count("\n") == 1, done.stderr
    assert "secret" not in done.stderr and not (tmp_path / "home").exists()


@pytest.mark.parametrize(("name", "says"), [
    ("RANKCRAWL_MAX_PAGE", "RANKCRAWL_MAX_PAGE is not a rankcrawl setting: did you mean RANKCRAWL_MAX_PAGES or "
                           "RANKCRAWL_MAX_PAGE_BYTES?"),
    ("RANKCRAWL_ALLOW_PRIVAT", "RANKCRAWL_ALLOW_PRIVAT is not a rankcrawl setting: did you mean RANKCRAWL_ALLOW_PRIVATE?"),
    ("RANKCRAWL_TYPO", "RANKCRAWL_TYPO is not a rankcrawl setting: the settings table of the README lists them all"),
])
def test_unknown_rankcrawl_name_is_an_error_with_the_closest_names(name: str, says: str) -> None:
    with pytest.raises(SettingError) as info:
        RankcrawlConfig.from_settings(Settings({name: "1"}))
    assert str(info.value) == says


@pytest.mark.parametrize(("pair", "says"), [
    ("CONCURRENT_REQUESTS=abc", "CONCURRENT_REQUESTS must be an integer, not 'abc'"),
    ("DOWNLOAD_DELAY=fast", "DOWNLOAD_DELAY must be a number, not 'fast'"),
    ("ROBOTSTXT_OBEY=perhaps", "ROBOTSTXT_OBEY must be True or False (also 1/0, true/false), not 'perhaps'"),
    ("RANKCRAWL_TYPO=1", "RANKCRAWL_TYPO is not a rankcrawl setting"),
])
def test_crawl_command_names_a_scrapy_or_unknown_setting_it_cannot_use(pair: str, says: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("RANKCRAWL_REDIS_URL", "REDIS_URL")}
    env["RANKCRAWL_HOME"] = str(tmp_path / "home")
    done = subprocess.run([*CLI, "crawl", "http://a.example/", "-s", pair, "--redis-url", "redis://127.0.0.1:1/0"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.startswith(f"rankcrawl: error: {says}") and done.stderr.count("\n") == 1, done.stderr


def test_scrapy_values_a_user_left_alone_or_set_well_pass() -> None:
    from rankcrawl.settings.scrapy_values import check_scrapy_values

    check_scrapy_values(Settings({"CONCURRENT_REQUESTS": "8", "DOWNLOAD_DELAY": "0.5", "TELNETCONSOLE_ENABLED": "False",
                                  "LOG_FILE": "x.log", "DEPTH_LIMIT": None}))


def test_kinds_accept_scrapy_spellings_and_infer_from_defaults() -> None:
    flag = Flag()
    assert [flag.parse(v) for v in (True, 1, "1", "True", "true", False, 0, "0", "False", "false")] == [True] * 5 + [False] * 5
    for bad in ("yes", 2, None, 1.0):
        with pytest.raises(ValueError):
            flag.parse(bad)
    assert Terms().parse(["x", " y "]) == ("x", "y")
    assert isinstance(kind_for(3), Int) and isinstance(kind_for(2.5), Number) and isinstance(kind_for(False), Flag)
    assert isinstance(kind_for("rc:"), Text)
    assert Setting("RANKCRAWL_X", 5, "doc").check().parse("7") == 7


def test_readme_settings_table_is_generated_from_the_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"{README_START}\n{markdown()}\n{README_END}" in readme, "run: python -m rankcrawl.settings.config README.md"
