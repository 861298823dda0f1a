"""The address guard: which addresses are public, name resolution, and the middleware's verdicts."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.test import get_crawler
from twisted.internet.error import DNSLookupError

from rankcrawl.crawler.safety import (
    CACHE_TTL,
    NEGATIVE_TTL,
    SPECIAL_PURPOSE,
    SafetyMiddleware,
    is_public,
    literal_addresses,
    resolve,
)


@pytest.mark.parametrize("address", [
    "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "224.0.0.1", "0.0.0.0",
    "100.64.0.1", "240.0.0.1", "255.255.255.255", "::1", "fe80::1", "fc00::1", "ff02::1", "::ffff:127.0.0.1",
    "fe80::1%eth0",
    # IPv6 transition and mapped forms of private IPv4 addresses, judged by the IPv4 they carry
    "::ffff:10.0.0.1", "::ffff:0:7f00:1", "::7f00:1", "::a9fe:a9fe", "2002:7f00:1::", "2002:a9fe:a9fe::1",
    "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::a00:1", "64:ff9b:1::808:808",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:0:7f00:1::808:808", "fec0::1", "::", "::2",
    # IANA special-purpose ranges that some interpreters' ``is_global`` judged public
    "192.0.0.8", "192.0.0.9", "192.0.0.170", "192.0.2.1", "198.18.0.1", "198.51.100.7", "203.0.113.9",
    "192.88.99.1", "239.255.255.250", "::ffff:192.0.0.8", "64:ff9b::c000:8", "2002:c000:8::1",
    "100::1", "100:0:0:1::1", "2001:2::1", "2001:20::1", "2001:db8::1", "3fff::1", "5f00::1", "4000::1",
])
def test_non_public_addresses(address: str) -> None:
    assert not is_public(address)


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8",
                                     "2002:808:808::1", "64:ff9b::808:808", "192.0.1.1", "100.128.0.1",
                                     "198.20.0.1", "2001:4860:4860::8888", "2a00:1450:4001::1"])
def test_public_addresses(address: str) -> None:
    assert is_public(address)


def test_special_purpose_table_is_well_formed() -> None:
    for cidr, why in SPECIAL_PURPOSE:
        net = ipaddress.ip_network(cidr)  # strict: no host bits set
        assert why and not is_public(str(net.network_address)) and not is_public(str(net.broadcast_address))


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


def middleware(lookup=None, **settings):
    crawler = get_crawler(settings_dict=settings)
    crawler.stats.open_spider()
    mw = SafetyMiddleware.from_crawler(crawler)
    if lookup is not None:
        mw.lookup = lookup
    return mw, crawler.stats


async def unresolvable(host: str) -> list[str]:
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


def test_unresolvable_names_fail_closed_and_go_to_the_retry_middleware() -> None:
    mw, stats = middleware(unresolvable)
    with pytest.raises(DNSLookupError, match="cannot be resolved") as refused:
        run(mw, "http://no-such-host.invalid/")
    assert stats.get_value("rankcrawl/safety/unresolved") == 1
    from scrapy.downloadermiddlewares.retry import RetryMiddleware

    crawler = get_crawler(Spider)
    crawler.spider = Spider.from_crawler(crawler, name="t")
    retry = RetryMiddleware.from_crawler(crawler).process_exception(Request("http://no-such-host.invalid/"), refused.value)
    assert isinstance(retry, Request) and retry.meta["retry_times"] == 1  # retried like any DNS failure
    mw.lookup = resolves_to("8.8.8.8")
    with pytest.raises(DNSLookupError, match="cannot be resolved"):
        run(mw, "http://no-such-host.invalid/")  # a failed lookup is remembered for NEGATIVE_TTL seconds
    assert stats.get_value("rankcrawl/safety/unresolved") == 2 and not mw.lookup.calls
    now = mw.clock() + NEGATIVE_TTL + 1
    mw.clock = lambda: now
    run(mw, "http://no-such-host.invalid/")  # then the resolver is asked again
    assert mw.lookup.calls == ["no-such-host.invalid"]


def test_fail_open_setting_leaves_unresolvable_names_to_the_downloader() -> None:
    mw, stats = middleware(unresolvable, RANKCRAWL_SSRF_FAIL_OPEN=True)
    run(mw, "http://no-such-host.invalid/")
    mw.lookup = resolves_to("8.8.8.8")
    run(mw, "http://no-such-host.invalid/x")  # the failure is remembered: no lookup per request
    assert not stats.get_value("rankcrawl/safety/unresolved") and not mw.lookup.calls


@pytest.mark.parametrize("answer", [["8.8.8.8"], ["127.0.0.1"], None])
def test_requests_waiting_for_one_host_share_one_lookup(answer: list[str] | None) -> None:
    import asyncio

    from twisted.internet import reactor

    from rankcrawl.crawler.safety import MISS

    loop = reactor._asyncioEventloop  # the installed asyncio reactor's loop, which the middleware awaits on
    pending = loop.create_future()
    calls = []

    async def slow_lookup(host: str) -> list[str]:
        calls.append(host)
        return await pending

    mw, stats = middleware(slow_lookup)

    async def crawl_three() -> list[BaseException | None]:
        tasks = [asyncio.ensure_future(mw.process_request(Request(f"http://a.example/{i}"))) for i in range(3)]
        for _ in range(3):
            await asyncio.sleep(0)
        assert calls == ["a.example"] and not any(t.done() for t in tasks) and mw._cached("a.example") is MISS
        if answer is None:
            pending.set_exception(socket.gaierror(socket.EAI_NONAME, "Name or service not known"))
        else:
            pending.set_result(answer)
        return await asyncio.gather(*tasks, return_exceptions=True)

    outcomes = loop.run_until_complete(crawl_three())
    assert calls == ["a.example"]
    if answer == ["8.8.8.8"]:
        assert outcomes == [None, None, None]
    else:
        expected = IgnoreRequest if answer else DNSLookupError
        assert all(isinstance(o, expected) for o in outcomes)
        assert stats.get_value("rankcrawl/safety/refused" if answer else "rankcrawl/safety/unresolved") == 3


def resolves_to(*addresses: str):
    calls = []

    async def lookup(host: str) -> list[str]:
        calls.append(host)
        return list(addresses)

    lookup.calls = calls
    return lookup


def test_names_resolving_to_any_private_address_are_refused() -> None:
    mw, stats = middleware(resolves_to("8.8.8.8", "2002:7f00:1::"))
    with pytest.raises(IgnoreRequest):
        run(mw, "http://rebind.example/")
    assert stats.get_value("rankcrawl/safety/refused") == 1


def test_verdicts_are_cached_for_a_limited_time() -> None:
    lookup = resolves_to("8.8.8.8")
    mw, _ = middleware(lookup)
    now = [1000.0]
    mw.clock = lambda: now[0]
    run(mw, "http://a.example/")
    run(mw, "http://a.example/x")
    assert lookup.calls == ["a.example"]
    now[0] += CACHE_TTL + 1
    run(mw, "http://a.example/y")
    assert lookup.calls == ["a.example", "a.example"]


def test_crawl_of_an_unresolvable_name_sends_nothing_and_counts_it(redis_url: str) -> None:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "crawl",
                           "http://no-such-host.invalid/", "--redis-url", redis_url, "-s", "LOG_LEVEL=ERROR",
                           "-s", "RANKCRAWL_RANKER=False", "-s", "RETRY_TIMES=1"], capture_output=True, text=True, timeout=120)
    stats = dict(line.split("\t", 1) for line in proc.stdout.splitlines() if "\t" in line)
    assert stats.get("rankcrawl/safety/unresolved") == "2"  # first try + one retry, both refused before any request
    assert "no-such-host.invalid cannot be resolved" in proc.stderr and "not requested" in proc.stderr
    assert stats.get("finish_reason") == "nothing_fetched"  # (crawl_outcome: no response at all)
    assert proc.returncode != 0  # nothing fetched at all: the crawl fails, naming the setting that allows it
    assert proc.stderr.splitlines()[-1] == (
        "rankcrawl: error: the SSRF guard refused every request, nothing was fetched: 2 lookups of host names failed "
        "(behind a proxy without local DNS set RANKCRAWL_SSRF_FAIL_OPEN=True)")


def test_crawl_refused_on_every_request_fails_naming_the_setting(redis_url: str) -> None:
    import subprocess
    import sys

    with socket.socket() as listener:  # a loopback port: the guard refuses it before any connection
        listener.bind(("127.0.0.1", 0))
        seed = f"http://127.0.0.1:{listener.getsockname()[1]}/"
        proc = subprocess.run([sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "crawl",
                               seed, "--redis-url", redis_url, "-s", "LOG_LEVEL=ERROR", "-s", "RANKCRAWL_RANKER=False"],
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert proc.stderr.splitlines()[-1] == (
        "rankcrawl: error: the SSRF guard refused every request, nothing was fetched: 1 requests to non-public "
        "addresses (RANKCRAWL_ALLOW_PRIVATE=True allows them)")
    assert "Traceback" not in proc.stderr


def test_a_crawl_that_fetched_anything_is_not_reported_as_refused() -> None:
    from rankcrawl.crawler.safety import all_refused

    assert all_refused({"rankcrawl/safety/refused": 3, "downloader/response_count": 1}) is None
    assert all_refused({"downloader/response_count": 0}) is None
    assert "RANKCRAWL_ALLOW_PRIVATE" in (all_refused({"rankcrawl/safety/refused": 3}) or "")
