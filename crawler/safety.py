"""Refuse requests to private, loopback, link-local, multicast and reserved addresses (SSRF guard).

Host names are resolved off the reactor thread (``deferToThread(getaddrinfo)``) and every address
a name resolves to must be public. IPv6 addresses that carry an IPv4 address (IPv4-mapped and
-translated, IPv4-compatible, 6to4 ``2002::/16``, Teredo ``2001::/32``, NAT64 ``64:ff9b::/96``) are
judged by that IPv4 address. Which addresses are public is an explicit table (``SPECIAL_PURPOSE``:
the IANA IPv4 and IPv6 Special-Purpose Address Registries' ranges that are not globally reachable,
plus multicast, site-local and the 6to4 relay anycast), not the interpreter's version-dependent
``is_global``; an IPv6 address outside global unicast ``2000::/3`` is never public.
``RANKCRAWL_ALLOW_PRIVATE = True`` switches the guard off (the demo and the tests crawl 127.0.0.1).
A refused request raises ``IgnoreRequest`` and counts in ``rankcrawl/safety/refused``.
A name that cannot be resolved fails closed: no request is sent, ``rankcrawl/safety/unresolved``
counts it and a ``DNSLookupError`` goes to Scrapy's retry middleware like any DNS failure
(``RANKCRAWL_SSRF_FAIL_OPEN = True`` leaves it to the downloader instead). Verdicts are cached
per host for ``CACHE_TTL`` seconds (``CACHE_SIZE`` hosts), failed lookups for ``NEGATIVE_TTL``
seconds (as a caching resolver does), and the requests that wait for one host's verdict share one
lookup: a crawl asks the resolver about once per host, not once per request.
A crawl in which the guard refused every request and nothing was downloaded (e.g. behind a proxy
with no local DNS) logs one error line naming the setting that allows it (``all_refused``);
``rankcrawl crawl`` then exits non-zero with that line.
Limit: Scrapy resolves the name again when it connects, so a DNS-rebinding server could answer
differently the second time; the guard stops ordinary private-address links, not a hostile DNS.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from ipaddress import IPv4Address, IPv6Address
from typing import Any

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred
from twisted.internet.error import DNSLookupError
from twisted.internet.threads import deferToThread

from rankcrawl.settings.config import RankcrawlConfig
from rankcrawl.settings.urls import host_of

logger = logging.getLogger(__name__)

CACHE_SIZE = 4096
CACHE_TTL = 300.0
"""Seconds a host's verdict is reused (a name may move to another address later)."""
NEGATIVE_TTL = 20.0
"""Seconds a failed lookup is remembered (nscd's default negative time-to-live for hosts)."""
UNRESOLVED = None
"""The cached verdict of a name that could not be resolved."""
MISS = object()
"""No cached verdict."""
NAT64 = ipaddress.ip_network("64:ff9b::/96")
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")
GLOBAL_UNICAST_V6 = ipaddress.ip_network("2000::/3")
SPECIAL_PURPOSE: tuple[tuple[str, str], ...] = (
    # IPv4 Special-Purpose Address Registry: the ranges not globally reachable
    ("0.0.0.0/8", "this network"),
    ("10.0.0.0/8", "private use"),
    ("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link local"),
    ("172.16.0.0/12", "private use"),
    ("192.0.0.0/24", "IETF protocol assignments (DS-Lite, dummy 192.0.0.8, NAT64 discovery, anycast services)"),
    ("192.0.2.0/24", "documentation (TEST-NET-1)"),
    ("192.88.99.0/24", "6to4 relay anycast (deprecated)"),
    ("192.168.0.0/16", "private use"),
    ("198.18.0.0/15", "benchmarking"),
    ("198.51.100.0/24", "documentation (TEST-NET-2)"),
    ("203.0.113.0/24", "documentation (TEST-NET-3)"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved, and the limited broadcast 255.255.255.255"),
    # IPv6 Special-Purpose Address Registry: the ranges not globally reachable
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("64:ff9b:1::/48", "local-use IPv4/IPv6 translation"),
    ("100::/64", "discard-only"),
    ("100:0:0:1::/64", "dummy prefix"),
    ("2001::/23", "IETF protocol assignments (benchmarking, ORCHID, anycast services; Teredo is judged by its IPv4)"),
    ("2001:db8::/32", "documentation"),
    ("3fff::/20", "documentation"),
    ("5f00::/16", "segment routing SIDs"),
    ("fc00::/7", "unique local"),
    ("fe80::/10", "link local"),
    ("fec0::/10", "site local (deprecated)"),
    ("ff00::/8", "multicast"),
)
"""Address ranges that are never public: (CIDR, what IANA reserves it for)."""
NON_PUBLIC_V4 = tuple(ipaddress.IPv4Network(c) for c, _ in SPECIAL_PURPOSE if ":" not in c)
NON_PUBLIC_V6 = tuple(ipaddress.IPv6Network(c) for c, _ in SPECIAL_PURPOSE if ":" in c)
TEREDO = ipaddress.ip_network("2001::/32")


def embedded_ipv4(ip: IPv6Address) -> list[IPv4Address] | None:
    """The IPv4 address(es) an IPv6 transition address carries (Teredo: server and client), else None."""
    if ip.ipv4_mapped:
        return [ip.ipv4_mapped]
    if ip.sixtofour:
        return [ip.sixtofour]
    if ip.teredo:
        return list(ip.teredo)
    if ip in NAT64 or ip in IPV4_COMPATIBLE or ip in IPV4_TRANSLATED:
        return [IPv4Address(int(ip) & 0xFFFFFFFF)]
    return None


def _public_v4(ip: IPv4Address) -> bool:
    return not any(ip in net for net in NON_PUBLIC_V4)


def is_public(address: str) -> bool:
    """True when ``address`` (an IP literal) is a globally routable unicast address: outside every
    ``SPECIAL_PURPOSE`` range, an IPv6 one inside ``2000::/3`` or carrying a public IPv4 address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, IPv4Address):
        return _public_v4(ip)
    if any(ip in net for net in NON_PUBLIC_V6) and ip not in TEREDO:
        return False
    inner = embedded_ipv4(ip)
    if inner is not None:
        return all(_public_v4(v4) for v4 in inner)
    return ip in GLOBAL_UNICAST_V6


def resolve(host: str) -> list[str]:
    """Every address ``host`` resolves to (blocking; run it in a thread)."""
    infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return sorted({str(info[4][0]) for info in infos})


def literal_addresses(host: str) -> list[str] | None:
    """``[host]`` when ``host`` is an IP literal, else None."""
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    return [host.strip("[]")]


def all_refused(stats: Mapping[str, Any]) -> str | None:
    """One line for a crawl whose every request the guard refused (nothing downloaded), else None."""
    unresolved = int(stats.get("rankcrawl/safety/unresolved") or 0)
    refused = int(stats.get("rankcrawl/safety/refused") or 0)
    if stats.get("downloader/response_count") or not (unresolved or refused):
        return None
    remedies = []
    if unresolved:
        remedies.append(f"{unresolved} lookups of host names failed (behind a proxy without local DNS set "
                        "RANKCRAWL_SSRF_FAIL_OPEN=True)")
    if refused:
        remedies.append(f"{refused} requests to non-public addresses (RANKCRAWL_ALLOW_PRIVATE=True allows them)")
    return "the SSRF guard refused every request, nothing was fetched: " + "; ".join(remedies)


class SafetyMiddleware:
    """Downloader middleware: only public addresses unless RANKCRAWL_ALLOW_PRIVATE."""

    clock: Callable[[], float] = staticmethod(time.monotonic)

    def __init__(self, crawler: Any, fail_open: bool = False) -> None:
        self.stats = crawler.stats
        self.fail_open = fail_open
        self._verdicts: OrderedDict[str, tuple[bool | None, float]] = OrderedDict()
        self._waiting: dict[str, list[Deferred[list[str]]]] = {}

    @classmethod
    def from_crawler(cls, crawler: Any) -> SafetyMiddleware:
        config = RankcrawlConfig.of(crawler)
        if not config.enabled:
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        if config.allow_private:
            raise NotConfigured("RANKCRAWL_ALLOW_PRIVATE is True")
        mw = cls(crawler, config.ssrf_fail_open)
        crawler.signals.connect(mw.spider_closed, signal=signals.spider_closed)
        return mw

    def spider_closed(self, spider: Any) -> None:
        message = all_refused(self.stats.get_stats())
        if message:
            logger.error("rankcrawl: %s", message)

    async def lookup(self, host: str) -> list[str]:
        """The addresses of ``host``, resolved in a thread (OSError when it cannot be resolved)."""
        return await maybe_deferred_to_future(deferToThread(resolve, host))

    async def shared_lookup(self, host: str) -> list[str]:
        """``lookup(host)``, asked once for all the requests that wait for ``host`` at the same time."""
        waiting = self._waiting.get(host)
        if waiting is not None:
            d: Deferred[list[str]] = Deferred()
            waiting.append(d)
            return await maybe_deferred_to_future(d)
        self._waiting[host] = waiting = []
        try:
            addresses = await self.lookup(host)
        except BaseException as exc:  # every waiter gets the outcome, even a cancellation: none waits forever
            del self._waiting[host]
            for d in waiting:
                d.errback(exc)
            raise
        del self._waiting[host]
        for d in waiting:
            d.callback(addresses)
        return addresses

    async def process_request(self, request: Request) -> None:
        host = host_of(request.url)
        if not host:
            return None
        verdict = self._cached(host)
        if verdict is MISS:
            addresses = literal_addresses(host)
            if addresses is None:
                try:
                    addresses = await self.shared_lookup(host)
                except OSError as exc:
                    self._remember(host, UNRESOLVED, NEGATIVE_TTL)
                    return self._unresolved(host, str(exc))
            verdict = bool(addresses) and all(is_public(a) for a in addresses)
            self._remember(host, verdict, CACHE_TTL)
        if verdict is UNRESOLVED:
            return self._unresolved(host, "lookup failed moments ago")
        if not verdict:
            self.stats.inc_value("rankcrawl/safety/refused")
            raise IgnoreRequest(f"rankcrawl: refused non-public address for {host}")
        return None

    def _unresolved(self, host: str, reason: str) -> None:
        """Fail open (None: the downloader or its proxy resolves the name) or closed (DNSLookupError)."""
        if self.fail_open:
            return None
        self.stats.inc_value("rankcrawl/safety/unresolved")
        raise DNSLookupError(f"rankcrawl: {host} cannot be resolved ({reason}); not requested")

    def _cached(self, host: str) -> bool | None | object:
        """The host's verdict (``UNRESOLVED`` for a failed lookup), or ``MISS``."""
        entry = self._verdicts.get(host)
        if entry is None:
            return MISS
        if entry[1] < self.clock():
            del self._verdicts[host]
            return MISS
        return entry[0]

    def _remember(self, host: str, verdict: bool | None, ttl: float) -> None:
        self._verdicts[host] = (verdict, self.clock() + ttl)
        self._verdicts.move_to_end(host)
        if len(self._verdicts) > CACHE_SIZE:
            self._verdicts.popitem(last=False)
