"""The address guard: which addresses are public, name resolution, and the middleware's verdicts."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.test import get_crawler

from rankcrawl.crawler.safety import SafetyMiddleware, is_public, literal_addresses, resolve


@pytest.mark.parametrize("address", [
    "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "224.0.0.1", "0.0.0.0",
    "100.64.0.1", "240.0.0.1", "255.255.255.255", "::1", "fe80::1", "fc00::1", "ff02::1", "::ffff:127.0.0.1",
    "fe80::1%eth0",
])
def test_non_public_addresses(address: str) -> None:
    assert not is_public(address)


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses(address: str) -> None:
    assert is_public(address)


def test_literals_and_resolution() -> None:
    assert literal_addresses("[::1]") == ["::1"]
    assert literal_addresses("127.0.0.1") == ["127.0.0.1"]
    assert literal_addresses("localhost") is None
    assert resolve("localhost") and not any(is_public(a) for a in resolve("localhost"))


def run(mw: SafetyMiddleware, url: str) -> None:
    """Drive the coroutine; IP literals and cached verdicts complete without the reactor."""
    coro = mw.process_request(Request(url))
    try:
        coro.send(None)
    except StopIteration:
        return
    finally:
        coro.close()
    raise AssertionError("expected the verdict without waiting")


def test_middleware_refuses_private_literals_and_counts_them() -> None:
    crawler = get_crawler(settings_dict={})
    crawler.stats.open_spider()
    mw = SafetyMiddleware.from_crawler(crawler)
    for url in ("http://127.0.0.1:8080/", "http://[::1]/", "http://169.254.169.254/latest/meta-data", "http://10.0.0.7/"):
        with pytest.raises(IgnoreRequest, match="refused non-public"):
            run(mw, url)
    assert crawler.stats.get_value("rankcrawl/safety/refused") == 4
    run(mw, "http://93.184.216.34/")
    assert crawler.stats.get_value("rankcrawl/safety/refused") == 4


def test_middleware_hands_name_lookups_to_a_thread() -> None:
    crawler = get_crawler(settings_dict={})
    crawler.stats.open_spider()
    mw = SafetyMiddleware.from_crawler(crawler)
    coro = mw.process_request(Request("http://localhost:9/"))
    awaited = coro.send(None)  # the name lookup is handed to a thread: the coroutine yields
    coro.close()
    assert awaited is not None  # crawls resolving names are covered end to end (test_crawl_e2e)
