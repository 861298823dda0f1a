"""Per-anchor features for the content-link decision (``link_classifier``).

One row per ``<a href>`` of a block, in ``Document.all_links`` order of the blocks' anchors.
Features describe the anchor's block (its content probability from the trained block model and
its neighbours'), where the block stands relative to the page's main content (common DOM-path
prefix with the most probable large block), the anchor itself (words, share of its block) and
its target as written in ``href`` (fragment, same host, path depth), and the list it sits in
(sibling elements of its parent with the same tag). No URL is normalised here: raw hrefs only.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import numpy as np

from rankcrawl.pipelines.document import TextBlock
from rankcrawl.pipelines.trained_classifier import _common_prefix

LINK_FEATURES: tuple[str, ...] = (
    "p_block",              # P(content) of the anchor's block
    "p_prev",               # … of the previous block (0 for the first)
    "p_next",               # … of the next block (0 for the last)
    "p_window_max",         # max P(content) over the block and two neighbours each side
    "block_log_words",      # log(1 + block words)
    "block_link_density",   # linked words / words of the block
    "block_log_anchors",    # log(1 + anchors in the block)
    "block_in_list",        # block tag is li / dd / dt
    "block_in_table",       # block tag is td / th
    "block_heading",        # block tag is h1–h6
    "shared_path_main",     # common DOM-path prefix with the main block / main block's depth
    "depth_vs_main",        # block path depth − main block path depth
    "position",             # share of the page's words before the block
    "dist_main",            # |position − position of the main block|
    "anchor_log_words",     # log(1 + words of the anchor text)
    "anchor_share",         # anchor words / block words
    "anchor_index",         # index of the anchor within its block / anchors in the block
    "href_fragment",        # href starts with '#'
    "href_other_host",      # absolute href to another host (www. ignored)
    "href_path_depth",      # path segments of the href
    "href_query",           # href has a query string
    "href_self",            # href path equals the page's path
    "list_siblings",        # log(1 + siblings of the anchor's parent with the parent's tag)
    "parent_children",      # log(1 + children of the anchor's parent's parent)
    "page_log_anchors",     # log(1 + anchors on the page)
    "page_link_density",    # linked words / words of the page
)


def _host(netloc: str) -> str:
    host = netloc.rsplit("@", 1)[-1].split(":", 1)[0].lower()
    return host.removeprefix("www.")


def href_features(href: str, page_host: str, page_path: str) -> tuple[float, float, float, float, float]:
    """(fragment, other host, path depth, query, self) of a raw ``href``."""
    href = href.strip()
    if href.startswith("#"):
        return 1.0, 0.0, 0.0, 0.0, 1.0
    try:
        parts = urlsplit(href)
    except ValueError:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    other = bool(parts.netloc) and _host(parts.netloc) != page_host
    path = parts.path.rstrip("/")
    depth = len([s for s in path.split("/") if s])
    same = not other and bool(path) and path == page_path
    return 0.0, float(other), float(depth), float(bool(parts.query)), float(same)


def list_features(el: Any, cache: dict[Any, dict[Any, int]]) -> tuple[float, float]:
    """(log siblings of the parent sharing its tag, log children of the grandparent).

    ``cache``: tag counts per grandparent element, shared by the anchors of one page.
    """
    parent = el.getparent()
    if parent is None:
        return 0.0, 0.0
    grand = parent.getparent()
    if grand is None:
        return 0.0, 0.0
    counts = cache.get(grand)
    if counts is None:
        counts = cache[grand] = {}
        for c in grand:
            counts[c.tag] = counts.get(c.tag, 0) + 1
    return float(np.log1p(counts[parent.tag])), float(np.log1p(len(grand)))


def link_features(blocks: list[TextBlock], proba: np.ndarray, url: str | None) -> np.ndarray:
    """float64[anchors, len(LINK_FEATURES)] for every anchor of ``blocks`` in order."""
    n = len(blocks)
    n_anchors = sum(len(b.anchors) for b in blocks)
    out = np.zeros((n_anchors, len(LINK_FEATURES)))
    if not n_anchors:
        return out
    words = np.array([b.n_words for b in blocks], dtype=np.float64)
    linked = np.array([b.n_linked_words for b in blocks], dtype=np.float64)
    prev = np.concatenate([[0.0], proba[:-1]])
    nxt = np.concatenate([proba[1:], [0.0]])
    padded = np.concatenate([np.zeros(2), proba, np.zeros(2)])
    window = np.max(np.lib.stride_tricks.sliding_window_view(padded, 5), axis=1)
    main = int(np.argmax(proba * np.log1p(words)))
    main_path = blocks[main].path
    main_pos = blocks[main].position
    parts = urlsplit(url or "")
    page_host, page_path = _host(parts.netloc), parts.path.rstrip("/")
    page_ld = linked.sum() / max(words.sum(), 1.0)
    row = 0
    cache: dict[Any, dict[Any, int]] = {}
    for i, b in enumerate(blocks):
        k = len(b.anchors)
        if not k:
            continue
        shared = _common_prefix(b.path, main_path) / max(len(main_path), 1)
        block_row = (proba[i], prev[i], nxt[i], window[i], np.log1p(words[i]), linked[i] / max(words[i], 1.0),
                     np.log1p(k), b.tag in ("li", "dd", "dt"), b.tag in ("td", "th"),
                     len(b.tag) == 2 and b.tag[0] == "h" and b.tag[1].isdigit(),
                     shared, len(b.path) - len(main_path), b.position, abs(b.position - main_pos))
        for j, el in enumerate(b.anchors):
            anchor_words = len("".join(el.itertext()).split())
            out[row] = (*block_row, np.log1p(anchor_words), anchor_words / max(words[i], 1.0), j / k,
                        *href_features(el.get("href") or "", page_host, page_path), *list_features(el, cache),
                        np.log1p(n_anchors), page_ld)
            row += 1
    return out
