"""A page that shows nothing until its script runs: its ``<noscript>`` fallback is the page.

Browsers without scripts, and crawlers, render ``<noscript>`` content; a single-page application
that server-renders its whole text only there (a forum's crawler view, a shop's static copy) leaves
everything else empty. Where the text outside every ``<noscript>`` is under ``VISIBLE_SHARE`` of
the largest fallback's, and that fallback holds at least ``MIN_WORDS`` words, the fallbacks are read
as ordinary elements (their tag becomes ``div``). A page with real text of its own keeps ignoring
them: there they hold tracking pixels and "enable JavaScript" notes (readability likewise only
unwraps a ``<noscript>`` to recover an image its script would have loaded).
"""

from __future__ import annotations

from typing import Any

from rankcrawl.pipelines.page.document import TextBlock

VISIBLE_SHARE = 0.1
MIN_WORDS = 50
FALLBACK_TAG = "div"


def fallbacks(root: Any, blocks: list[TextBlock]) -> list[Any]:
    """The ``<noscript>`` elements of ``root``'s tree to read as the page, given its atomic ``blocks``
    (which skip every ``<noscript>``): all of them on a page whose own text is under ``VISIBLE_SHARE``
    of its largest fallback's (of ``MIN_WORDS`` words at least), else none."""
    if root is None:
        return []
    found = list(root.iter("noscript"))
    if not found:
        return []
    largest = max(len(" ".join(el.itertext()).split()) for el in found)
    visible = sum(b.n_words for b in blocks)
    if largest < MIN_WORDS or visible >= VISIBLE_SHARE * largest:
        return []
    return found


def unwrap(elements: list[Any]) -> None:
    """Turn ``elements`` (``fallbacks``) into ordinary elements whose text the block walk reads."""
    for el in elements:
        el.tag = FALLBACK_TAG
