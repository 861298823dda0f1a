"""URL normalisation, in one place: what makes two links point at the same page.

w3lib's ``canonicalize_url`` — the rule Scrapy's request fingerprint (and so the frontier's
duplicate filter) applies: query arguments sorted, percent-encoding normalised, fragment removed —
then lower-case scheme and host (IDNA-encoded), default port removed, empty path ``/``. Two URLs
are one graph node exactly when the duplicate filter treats them as one request. Only http(s)
URLs survive.

The URL contract, at every entrance (crawl, ``graph import``, queries): an http(s) URL of valid
text (no lone surrogate, as undecodable bytes become), no control character (tab, CR and LF are
removed first, as browsers do) and at most ``max_length`` characters (``RANKCRAWL_MAX_URL_LENGTH``,
default MAX_URL_LENGTH) before and after normalisation; ``url_problem`` says which rule a URL breaks.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit, urlunsplit

from w3lib.url import canonicalize_url, safe_url_string

DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_URL_LENGTH = 2048
"""Default of ``RANKCRAWL_MAX_URL_LENGTH``: the length most browsers, servers and sitemaps (2,048) keep to."""
URL_CACHE_ENTRIES = 1 << 13
"""Entries of each per-URL memo (href resolution, href features, host and path): a site's navigation
repeats a few hundred hrefs per host, so the memos hit at this size; larger, they kept growing through a
100k-page crawl (a few hundred bytes per entry) and a worker's memory with them."""
WHITESPACE_REMOVED = str.maketrans("", "", "\t\n\r")
FORBIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
"""Control characters (C0, DEL, C1) and lone surrogates (bytes that were not UTF-8, decoded with
``surrogateescape``)."""
PLAIN = re.compile(r"(?P<origin>(?P<scheme>https?)://[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::(?P<port>[1-9][0-9]{0,4}))?)"
                   r"(?P<path>/[A-Za-z0-9._~/-]*)?(?:#.*)?\Z", re.S)
"""An absolute URL that the rules below leave as it is but for its fragment (and an empty path):
lower-case scheme and host name, no user or query, a port that is not the scheme's default (checked
apart, as is its range), a path of unreserved characters without dot segments (checked apart). Most
links are such; they skip w3lib's general work. The one fast path to the normal form: the graph
import's compiled ``_scan.normal_host_end`` recognises a subset of it (tested to agree)."""
PLAIN_HREF = re.compile(r"[A-Za-z0-9_~-][A-Za-z0-9._~/-]*(?:#.*)?\Z", re.S)
"""A relative path of unreserved characters (no scheme, query, leading ``/`` or dot, no empty or dot
segment, which ``urljoin`` drops or resolves): it joins by concatenation."""


def _plain(url: str) -> str | None:
    """``normalize_url(url)`` where ``url`` is ``PLAIN`` (None: take the general way)."""
    m = PLAIN.match(url)
    if m is None or "/." in (path := m["path"] or "/"):
        return None
    port = m["port"]
    if port is not None and (int(port) > 65535 or int(port) == DEFAULT_PORTS[m["scheme"]]):
        return None
    return m["origin"] + path


def _join(base: str, href: str) -> str:
    """``urljoin(base, href)``, by concatenation for a portless ``PLAIN`` base and a ``PLAIN_HREF`` href."""
    if PLAIN_HREF.match(href) and "/." not in href and "//" not in href and "#" not in base:
        m = PLAIN.match(base)
        if m is not None and m["port"] is None and "/." not in (path := m["path"] or "") and "//" not in path:
            return (base[: base.rindex("/") + 1] if path else base + "/") + href
    return urljoin(base, href)


def written_url(href: str, base: str) -> str:
    """``href`` as the page wrote it, made absolute against ``base``: fragment dropped, unsafe characters
    percent-encoded (w3lib's ``safe_url_string``, which leaves a portless ``PLAIN`` URL as it is);
    ValueError for a URL it cannot encode."""
    url = _join(base, href).split("#", 1)[0]
    m = PLAIN.match(url)
    return url if m is not None and m["port"] is None else safe_url_string(url)


def url_problem(url: str, max_length: int = MAX_URL_LENGTH) -> str | None:
    """Which rule of the URL contract ``url`` breaks (None: it keeps them all)."""
    bad = FORBIDDEN.search(url.strip().translate(WHITESPACE_REMOVED))
    if bad is not None:
        return "not valid UTF-8" if "\ud800" <= bad.group() <= "\udfff" else f"control character {bad.group()!r}"
    if len(url) > max_length:
        return f"longer than {max_length} characters ({len(url)})"
    if normalize_url(url, max_length=max_length) is None:
        return "not an http(s) URL"
    return None


def normalize_url(url: str, base: str | None = None, max_length: int = MAX_URL_LENGTH) -> str | None:
    """The normalised absolute http(s) URL of ``url`` (resolved against ``base``), or None — also for a
    URL that breaks the contract (control characters, lone surrogates, over ``max_length``)."""
    if not url or len(url) > max_length:
        return None
    url = url.strip()
    try:
        if base:
            url = _join(base, url)
        plain = _plain(url)
        if plain is not None:
            return plain if len(plain) <= max_length else None
        url = url.translate(WHITESPACE_REMOVED)
        if FORBIDDEN.search(url):
            return None
        parts = urlsplit(canonicalize_url(safe_url_string(url)))
        scheme = parts.scheme.lower()
        if scheme not in DEFAULT_PORTS or not parts.hostname:
            return None
        host = parts.hostname.rstrip(".")
        port = parts.port
    except ValueError:
        return None
    if not host or any(c in host for c in " <>\"{}|\\^`%"):
        return None
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    if ":" in host and not host.startswith("["):
        netloc = f"[{host}]" if port in (None, DEFAULT_PORTS[scheme]) else f"[{host}]:{port}"
    normal = urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))
    return normal if len(normal) <= max_length and not FORBIDDEN.search(normal) else None


def split_url(url: str) -> tuple[str, str]:
    """(host key, path+query) of a normalised URL; the host key keeps scheme and port.

    ``https://a.org:8443/x?y`` → (``https://a.org:8443``, ``/x?y``). Two URLs are the same page
    exactly when both parts are equal.
    """
    parts = urlsplit(url)
    path = parts.path or "/"
    return f"{parts.scheme}://{parts.netloc}", path + (f"?{parts.query}" if parts.query else "")


def host_of(url: str) -> str:
    """The lower-case host name of a URL ('' when it has none)."""
    try:
        return (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:
        return ""
