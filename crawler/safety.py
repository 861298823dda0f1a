"""Refuse requests to private, loopback, link-local, multicast and reserved addresses (SSRF guard).

Host names are resolved off the reactor thread (``deferToThread(getaddrinfo)``) and every address
a name resolves to must be public. ``RANKCRAWL_ALLOW_PRIVATE = True`` switches the guard off (the
demo and the tests crawl 127.0.0.1). A refused request raises ``IgnoreRequest`` and counts in the
stat ``rankcrawl/safety/refused``. Resolution failures are left to the downloader (its DNS error).
Limit: Scrapy resolves the name again when it connects, so a DNS-rebinding server could answer
differently the second time; the guard stops ordinary private-address links, not a hostile DNS.
"""

from __future__ import annotations

import ipaddress
import socket
from collections import OrderedDict
from typing import Any

from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from rankcrawl.settings.config import RankcrawlConfig
from rankcrawl.settings.urls import host_of

CACHE_SIZE = 4096


def is_public(address: str) -> bool:
    """True when ``address`` (an IP literal) is a globally routable unicast address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def resolve(host: str) -> list[str]:
    """Every address ``host`` resolves to (blocking; run it in a thread)."""
    infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return sorted({info[4][0] for info in infos})


def literal_addresses(host: str) -> list[str] | None:
    """``[host]`` when ``host`` is an IP literal, else None."""
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    return [host.strip("[]")]


class SafetyMiddleware:
    """Downloader middleware: only public addresses unless RANKCRAWL_ALLOW_PRIVATE."""

    def __init__(self, crawler: Any) -> None:
        self.stats = crawler.stats
        self._verdicts: OrderedDict[str, bool] = OrderedDict()

    @classmethod
    def from_crawler(cls, crawler: Any) -> "SafetyMiddleware":
        config = RankcrawlConfig.of(crawler)
        if not config.enabled:
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        if config.allow_private:
            raise NotConfigured("RANKCRAWL_ALLOW_PRIVATE is True")
        return cls(crawler)

    async def process_request(self, request: Request) -> None:
        host = host_of(request.url)
        if not host:
            return None
        verdict = self._verdicts.get(host)
        if verdict is None:
            addresses = literal_addresses(host)
            if addresses is None:
                try:
                    addresses = await maybe_deferred_to_future(deferToThread(resolve, host))
                except OSError:
                    return None
            verdict = bool(addresses) and all(is_public(a) for a in addresses)
            self._remember(host, verdict)
        if not verdict:
            self.stats.inc_value("rankcrawl/safety/refused")
            raise IgnoreRequest(f"rankcrawl: refused non-public address for {host}")
        return None

    def _remember(self, host: str, verdict: bool) -> None:
        self._verdicts[host] = verdict
        if len(self._verdicts) > CACHE_SIZE:
            self._verdicts.popitem(last=False)
