"""URL normalisation, in one place: what makes two links point at the same page.

w3lib's ``canonicalize_url`` — the rule Scrapy's request fingerprint (and so the frontier's
duplicate filter) applies: query arguments sorted, percent-encoding normalised, fragment removed —
then lower-case scheme and host (IDNA-encoded), default port removed, empty path ``/``. Two URLs
are one graph node exactly when the duplicate filter treats them as one request. Only http(s)
URLs survive.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit, urlunsplit

from w3lib.url import canonicalize_url, safe_url_string

DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str, base: str | None = None) -> str | None:
    """The normalised absolute http(s) URL of ``url`` (resolved against ``base``), or None."""
    if not url:
        return None
    url = url.strip()
    try:
        if base:
            url = urljoin(base, url)
        parts = urlsplit(canonicalize_url(safe_url_string(url)))
        scheme = parts.scheme.lower()
        if scheme not in DEFAULT_PORTS or not parts.hostname:
            return None
        host = parts.hostname.rstrip(".")
        port = parts.port
    except ValueError:
        return None
    if not host or any(c in host for c in " <>\"{}|\\^`"):
        return None
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    if ":" in host and not host.startswith("["):
        netloc = f"[{host}]" if port in (None, DEFAULT_PORTS[scheme]) else f"[{host}]:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


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
