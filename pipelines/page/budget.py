"""A per-page analysis time budget (``RANKCRAWL_ANALYSIS_TIMEOUT``): the page, else its prefix, else skip.

Every analysis step is linear in the page, but a large link- or tag-dense page still costs seconds
and a crawl analyses pages in a few threads. ``analyze_within`` runs ``analyze`` with a ``Deadline``
(``deadline.py``) checked between the steps, every ``PARSE_CHUNK`` bytes while the page is scanned
and parsed (``parsing.py``), every ``CHECK_EVERY`` elements while blocks are built and tags
flattened, and every ``LINK_CHECK_EVERY`` anchors while links are resolved. The budget bounds the
whole per-page work, counted from ``started`` (``rankcrawl extract`` passes the moment it began
reading the file, so decompression counts too): the whole page gets the first ``FULL_SHARE`` of it;
when that passes, the page's first ``PREFIX_SHARE`` is analysed until the budget's end (at least
``MIN_PREFIX_SHARE`` of it), flagged ``truncated``; when that passes too, the page is skipped. Worst
case ≈ (1 + ``MIN_PREFIX_SHARE``) × the budget plus the steps that run unchecked between two
checks: block fusion, the classifier's features and the text statistics of one block."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rankcrawl.pipelines.page.analyze import DEFAULT_MAX_PAGE_BYTES, analyze
from rankcrawl.pipelines.page.deadline import AnalysisTimeout, Deadline, clock
from rankcrawl.pipelines.page.document import Document, Link

PREFIX_SHARE = 0.125
"""Share of the page (bytes) analysed when the whole page did not fit the budget."""
FULL_SHARE = 0.5
"""Share of the budget the whole page may use; its prefix gets the rest."""
MIN_PREFIX_SHARE = 0.25
"""Share of the budget the prefix always gets, even when the whole page's attempt ran over."""
LINKS = ("all", "content", "none")
"""What ``analyze_within(links=…)`` resolves under the budget: every link, the content links, none."""
LINK_CHECK_EVERY = 8
"""Anchors resolved between two deadline checks: the check comes before the next chunk of at most
this many once this many were resolved since the last, so fewer than twice this many between two (one
hostile href of ``elements.MAX_HREF`` characters can cost 10 ms to normalise)."""


@dataclass
class Budgeted:
    """The result of ``analyze_within``: ``doc`` (None when skipped), ``outcome``, ``seconds`` (CPU time of the thread, ``deadline.clock``).

    ``outcome``: ``"complete"`` (the whole page, as far as ``max_bytes``), ``"prefix"`` (its first
    ``PREFIX_SHARE``; ``doc.truncated`` is True) or ``"skipped"`` (``doc`` is None).
    """

    doc: Document | None
    outcome: str
    seconds: float


def _resolve_links(doc: Document, deadline: Deadline, links: str) -> None:
    """Resolve the ``links`` (``LINKS``) of ``doc`` now, checking ``deadline`` every ``LINK_CHECK_EVERY`` anchors."""
    make = doc.make_links
    if make is None:
        return

    unchecked = 0  # anchors resolved since the last check, over calls (most blocks hold one or two)

    def chunked(anchors: Sequence[Any], block: int) -> list[Link]:
        nonlocal unchecked
        out: list[Link] = []
        for j in range(0, len(anchors), LINK_CHECK_EVERY):
            if unchecked >= LINK_CHECK_EVERY:
                deadline.check("links")
                unchecked = 0
            chunk = anchors[j:j + LINK_CHECK_EVERY]
            out += make(chunk, block)
            unchecked += len(chunk)
        return out

    doc.make_links = chunked
    try:
        for i in range(len(doc.blocks)):
            if i % 64 == 0:
                deadline.check("links")
            if links == "all" or doc.may_hold_content_links(i):
                doc.block_links(i)
        if links == "all":
            doc.all_links  # noqa: B018 - the property resolves the text-less anchors (image links) as well
    finally:
        doc.make_links = make


def _attempt(html: bytes | str, url: str | None, encoding: str | None, seconds: float, max_bytes: int,
             links: str, opts: dict[str, Any]) -> Document:
    deadline = Deadline(seconds)
    doc = analyze(html, url, encoding, max_bytes=max_bytes, deadline=deadline, **opts)
    if links != "none":
        _resolve_links(doc, deadline, links)
    return doc


def analyze_within(html: bytes | str, url: str | None = None, encoding: str | None = None, *,
                   timeout: float, max_bytes: int = DEFAULT_MAX_PAGE_BYTES, links: str = "all",
                   started: float | None = None, **opts: Any) -> Budgeted:
    """``analyze`` (same arguments) within ``timeout`` seconds (0 or less: no budget) from ``started``
    (``deadline.clock()``, the thread's CPU time; default now).

    ``links``: which links to resolve under the budget as well (``LINKS``): ``"all"`` (what the
    crawl's pipeline reads next), ``"content"`` (those ``doc.links`` returns: what ``rankcrawl
    extract`` writes; the other hrefs are never normalised) or ``"none"``.
    """
    if links not in LINKS:
        raise ValueError(f"links must be one of {', '.join(LINKS)}, not {links!r}")
    start = clock() if started is None else started
    if timeout <= 0:
        return Budgeted(_attempt(html, url, encoding, math.inf, max_bytes, links, opts), "complete",
                        clock() - start)
    try:
        doc = _attempt(html, url, encoding, start + timeout * FULL_SHARE - clock(), max_bytes, links, opts)
        return Budgeted(doc, "complete", clock() - start)
    except AnalysisTimeout:
        pass
    cut = max(1, int(min(len(html), max_bytes) * PREFIX_SHARE))
    left = max(start + timeout - clock(), timeout * MIN_PREFIX_SHARE)
    try:
        doc = _attempt(html, url, encoding, left, cut, links, opts)
        return Budgeted(doc, "prefix", clock() - start)
    except AnalysisTimeout:
        return Budgeted(None, "skipped", clock() - start)
