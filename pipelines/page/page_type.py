"""A cheap page-type decision for the per-type choices of the analysis (a forum keeps its posts).

Evidence, strongest first: what the page states (schema.org types in JSON-LD or microdata, ``og:type``,
``<body>``'s whole class names: ``dom_features.declarations``), then the letter runs of its ``<body>``
classes (themes and plugins put words there that do not describe the page: a WordPress post on a site
with a shop carries ``woocommerce-no-js``, so ``single-post`` and ``og:type`` article outrank it), then
a documentation host (its first label ``docs``: ``docs.python.org``, ``docs.djangoproject.com/…/topics/``,
whose path words would say forum), then the words of the URL path (``/forum/``, ``/thread/``,
``/questions/`` …, as URL classifiers of focused crawlers use them), and last a path that files the page
under a blog or the news (``/blog/<slug>``, ``/articles/<slug>``, ``/news/2025/<slug>``: a path segment
naming them with the post's own segments after it, none of them a listing's).
A ``Question`` with its ``Answer`` is a forum's (a Q&A thread's) only where the page does not declare
an ``FAQPage``: schema.org builds a FAQ of the same two types, and articles, service and shop pages
add one for search engines' rich results.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from rankcrawl.pipelines.page.dom_features import PAGE_TYPES as DECLARED_TYPES
from rankcrawl.settings.urls import host_of

PAGE_TYPES = ("article", "forum", "product", "documentation", "listing", "other")
WRITTEN_TYPES = frozenset({"article", "forum", "product", "listing"})
"""Types of pages written once for a reader, whose text loses copies (``repeats``) and a trailing heading
(``trailing``); reference documentation repeats on purpose, and an undeclared page keeps its text."""
URL_WORDS: dict[str, frozenset[str]] = {
    "forum": frozenset("forum forums thread threads topic topics showthread viewtopic questions discussion "
                       "discussions community board boards".split()),
    "documentation": frozenset("docs doc documentation manual reference api guide guides tutorial".split()),
    "product": frozenset("product products item dp sku shop".split()),
}
DOCS_HOSTS = frozenset({"docs", "doc"})
"""First labels of a host that serves documentation (``docs.python.org``, ``doc.rust-lang.org``)."""
PATH_WORD = re.compile(r"[a-z]+")
ARTICLE_SEGMENTS = frozenset("blog blogs article articles post posts news story stories".split())
"""A path segment under which a site files its posts: ``/blog/<slug>`` is an article's address."""
LISTING_SEGMENTS = frozenset("page category categories tag tags author authors archive archives".split())
"""Segments of a blog's listing addresses (``/blog/page/2``, ``/blog/category/news``)."""
HINT_ORDER = ("forum", "product", "docs", "article", "listing")
"""Declared types in the order they win: a forum thread often declares an article too."""
FAQ = "faqpage"
FAQ_ITEMS = frozenset({"question", "answer"})
"""The types an ``FAQPage`` declares its entries with (schema.org), not a forum's evidence beside it."""


def docs_host(url: str | None) -> bool:
    """Whether the URL's host starts with one of ``DOCS_HOSTS``."""
    return url is not None and host_of(url).split(".", 1)[0] in DOCS_HOSTS


def url_words(url: str | None) -> set[str]:
    """Lower-case letter runs of the URL's path."""
    if not url:
        return set()
    return set(PATH_WORD.findall(urlsplit(url).path.lower()))


def article_path(url: str | None) -> bool:
    """Whether the URL's path files the page under ``ARTICLE_SEGMENTS`` with more segments after that one,
    none of them a ``LISTING_SEGMENTS`` one."""
    if not url:
        return False
    segments = [part.lower() for part in urlsplit(url).path.split("/") if part]
    for i, segment in enumerate(segments[:-1]):
        if segment in ARTICLE_SEGMENTS:
            return LISTING_SEGMENTS.isdisjoint(segments[i + 1:])
    return False


def declared_type(words: set[str]) -> str | None:
    """The page type ``words`` declare (``HINT_ORDER`` breaks ties), or None."""
    declared = {name for name, kinds in DECLARED_TYPES.items() if words & kinds}
    for name in HINT_ORDER:
        if name in declared:
            return "documentation" if name == "docs" else name
    return None


def page_type(stated: set[str], url: str | None, class_words: set[str]) -> str:
    """One of ``PAGE_TYPES`` from what the page states and its ``<body>`` class words (both
    ``dom_features.declarations``) and the URL."""
    if FAQ in stated or FAQ in class_words:
        stated, class_words = stated - FAQ_ITEMS, class_words - FAQ_ITEMS
    for evidence in (stated, class_words):
        if (kind := declared_type(evidence)) is not None:
            return kind
    if docs_host(url):
        return "documentation"
    path_words = url_words(url)
    for name, vocabulary in URL_WORDS.items():
        if path_words & vocabulary:
            return name
    return "article" if article_path(url) else "other"
