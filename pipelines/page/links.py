"""Links of a page (SPEC §2.5): anchors resolved against the page URL and ``<base href>``.

URLs are normalised by ``rankcrawl.settings.urls.normalize_url`` (only http(s) survive);
invalid hrefs are skipped. Every link starts with weight 1.0 (uniform weighting). A link to an
alternate version of the page (``is_alternate``: ``rel="alternate"``, ``hreflang``) is never content.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin, urlsplit

from rankcrawl.pipelines.page.document import Link
from rankcrawl.pipelines.page.elements import compiled_walk, search_page
from rankcrawl.settings.urls import URL_CACHE_ENTRIES, normalize_url


def base_url(root: Any, url: str | None, bases: list[Any] | None = None) -> str | None:
    """The URL relative links resolve against: the first ``<base href>`` (itself resolved) or the page URL;
    ``bases``: the page's ``<base>`` elements where a search found them already (``elements.PageSearch``)."""
    if root is None:
        return url
    if bases is None:
        bases = search_page(root).bases
    href = next((h for el in bases if (h := el.get("href")) is not None), None)
    if href is None:
        return url
    href = href.strip()
    try:
        joined = urljoin(url, href) if url else href
    except ValueError:
        return url
    return joined if normalize_url(joined) else url


def anchor_text(element: Any) -> str:
    """The anchor's visible text, whitespace collapsed."""
    return " ".join("".join(element.itertext(tag=None)).split()) if element is not None else ""


def is_alternate(element: Any) -> bool:
    """Whether an anchor links an alternate version of the page (HTML ``rel="alternate"`` or an
    ``hreflang``: a language switcher's link). Such a link is never a content link."""
    if element is None:
        return False
    rel = (element.get("rel") or "").lower().split()
    return "alternate" in rel or bool((element.get("hreflang") or "").strip())


@lru_cache(maxsize=URL_CACHE_ENTRIES)
def resolve_in(directory: str, href: str) -> str | None:
    """``normalize_url(href, base)`` for every base in ``directory`` (cached across the pages of a
    site: their navigation repeats the same relative hrefs; the fragment, which normalisation drops,
    is cut before the cache)."""
    return normalize_url(href, directory)


def directory_of(base: str | None) -> str | None:
    """``scheme://netloc/path/`` of a base URL: what a relative path href resolves against."""
    if not base:
        return None
    try:
        parts = urlsplit(base)
    except ValueError:
        return None
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}{parts.path.rsplit('/', 1)[0] if '/' in parts.path else ''}/"


class LinkResolver:
    """Builds ``Link``s for one page, caching each href's normalised URL."""

    def __init__(self, base: str | None) -> None:
        self.base = base
        self.directory = directory_of(base)
        self.cache: dict[str, str | None] = {}

    def resolve(self, href: str) -> str | None:
        if href not in self.cache:
            h = href.strip()
            if self.directory and h and h[0] not in "?#":
                self.cache[href] = resolve_in(self.directory, h.split("#", 1)[0] or h)
            elif h.startswith("#"):
                self.cache[href] = self.cache.get("#") if "#" in self.cache else normalize_url(h, self.base)
                self.cache["#"] = self.cache[href]
            else:
                self.cache[href] = normalize_url(h, self.base)
        return self.cache[href]

    def links(self, elements: Sequence[Any], block: int) -> list[Link]:
        out = []
        walk = compiled_walk(elements[0]) if elements else None
        texts = walk.anchor_texts(list(elements)) if walk is not None else [None] * len(elements)
        for el, text in zip(elements, texts):
            url = self.resolve(el.get("href") or "")
            if url:
                out.append(Link(url=url, text=anchor_text(el) if text is None else " ".join(text.split()), weight=1.0,
                                block=block, element=el, alternate=is_alternate(el), base=self.base))
        return out


def link_maker(root: Any, url: str | None, bases: list[Any] | None = None) -> Callable[[Sequence[Any], int], list[Link]]:
    """``f(anchor elements, block index) -> links`` for one page (its base URL, a shared cache)."""
    return LinkResolver(base_url(root, url, bases)).links
