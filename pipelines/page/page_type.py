"""A cheap page-type decision for the per-type choices of the analysis (a forum keeps its posts).

Evidence, strongest first: the page's own declarations (schema.org types in JSON-LD or microdata,
``og:type``, ``<body>`` classes: ``dom_features.declared_words``), then a documentation host (its first
label ``docs``: ``docs.python.org``, ``docs.djangoproject.com/…/topics/``, whose path words would say
forum), then the words of the URL path (``/forum/``, ``/thread/``, ``/questions/`` …, as URL
classifiers of focused crawlers use them).
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
HINT_ORDER = ("forum", "product", "docs", "article", "listing")
"""Declared types in the order they win: a forum thread often declares an article too."""
FAQ = "faqpage"
FAQ_ITEMS = frozenset({"question", "answer"})
"""The types an ``FAQPage`` declares its entries with (schema.org), not a forum's evidence beside it."""


def docs_host(url: str | None) -> bool:
    """Whether the URL's host starts with one of ``DOCS_HOSTS``."""
    return bool(url) and host_of(url).split(".", 1)[0] in DOCS_HOSTS


def url_words(url: str | None) -> set[str]:
    """Lower-case letter runs of the URL's path."""
    if not url:
        return set()
    return set(PATH_WORD.findall(urlsplit(url).path.lower()))


def page_type(words: set[str], url: str | None) -> str:
    """One of ``PAGE_TYPES`` from ``dom_features.declared_words`` and the URL."""
    if FAQ in words:
        words = words - FAQ_ITEMS
    declared = {name for name, kinds in DECLARED_TYPES.items() if words & kinds}
    for name in HINT_ORDER:
        if name in declared:
            return "documentation" if name == "docs" else name
    if docs_host(url):
        return "documentation"
    words = url_words(url)
    for name, vocabulary in URL_WORDS.items():
        if words & vocabulary:
            return name
    return "other"
