"""A cheap page-type decision for the per-type choices of the analysis (a forum keeps its posts).

Evidence, strongest first: the page's own declarations (schema.org types in JSON-LD or microdata,
``og:type``, ``<body>`` classes: ``dom_features.page_type_hints``), then the words of the URL path
(``/forum/``, ``/thread/``, ``/questions/`` …, as URL classifiers of focused crawlers use them).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import numpy as np

from rankcrawl.pipelines.page.dom_features import PAGE_TYPE_NAMES

PAGE_TYPES = ("article", "forum", "product", "documentation", "listing", "other")
URL_WORDS: dict[str, frozenset[str]] = {
    "forum": frozenset("forum forums thread threads topic topics showthread viewtopic questions discussion "
                       "discussions community board boards".split()),
    "documentation": frozenset("docs doc documentation manual reference api guide guides tutorial".split()),
    "product": frozenset("product products item dp sku shop".split()),
}
PATH_WORD = re.compile(r"[a-z]+")
HINT_ORDER = ("forum", "product", "docs", "article", "listing")
"""Declared types in the order they win: a forum thread often declares an article too."""


def url_words(url: str | None) -> set[str]:
    """Lower-case letter runs of the URL's path."""
    if not url:
        return set()
    return set(PATH_WORD.findall(urlsplit(url).path.lower()))


def page_type(hints: np.ndarray, url: str | None) -> str:
    """One of ``PAGE_TYPES`` from ``dom_features.page_type_hints`` and the URL."""
    declared = {name for name, on in zip(PAGE_TYPE_NAMES, hints) if on}
    for name in HINT_ORDER:
        if name in declared:
            return "documentation" if name == "docs" else name
    words = url_words(url)
    for name, vocabulary in URL_WORDS.items():
        if words & vocabulary:
            return name
    return "other"
