"""Per-anchor features for the content-link decision (``link_classifier``).

One row per ``<a href>`` of a block, in ``Document.all_links`` order of the blocks' anchors.
Features describe the anchor's block (its content probability from the block model and its
neighbours'), the page's content region (the shortest DOM path holding most content words) and
whether the anchor lies inside it, the roles its own DOM ancestry names, the link list it
belongs to (anchors sharing its index-free DOM path: a table of contents, a product grid, a
menu) with that list's mean content probability, the anchor itself (words, share of its block)
and its target as written in ``href`` (fragment, same host, path depth, repeats on the page,
words such as ``login`` or ``share``), and the page as a whole (``PAGE_FEATURES``). No URL is
normalised here: raw hrefs only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from rankcrawl.pipelines.page.blockstats import block_counts, common_prefixes, first_seen, link_density, shared_path
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dom_features import ROLE_NAMES, PageContext, role_matrix
from rankcrawl.pipelines.page.elements import compiled_walk
from rankcrawl.pipelines.page.extensions import optional
from rankcrawl.pipelines.page.trained_classifier import PAGE_FEATURES
from rankcrawl.settings.urls import URL_CACHE_ENTRIES

_tokens = optional("rankcrawl.pipelines.page._tokens")  # None where not built: the regular expressions alone

BLOCK_LINK_FEATURES: tuple[str, ...] = (
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
)
ANCHOR_FEATURES: tuple[str, ...] = (
    "anchor_log_words",     # log(1 + words of the anchor text)
    "anchor_share",         # anchor words / block words
    "anchor_index",         # index of the anchor within its block / anchors in the block
    "href_fragment",        # href starts with '#'
    "href_other_host",      # absolute href to another host (www. ignored)
    "href_path_depth",      # path segments of the href
    "href_query",           # href has a query string
    "href_self",            # href path equals the page's path
    "href_account",         # href words: login, signup, account, cart, privacy, terms, contact …
    "href_social",          # href words or host: share, facebook, twitter, mailto …
    "href_taxonomy",        # href words: tag, category, author, page, feed …
    "href_log_repeats",     # log(1 + other anchors on the page with the same href)
    "in_region",            # the anchor lies inside the content region
    "region_depth",         # DOM depth of the content region
    "depth_below_region",   # anchor depth − region depth (negative: outside, above)
    "shared_path_region",   # common prefix of the anchor's path with the region / region depth
    "list_log_size",        # log(1 + anchors sharing the anchor's index-free DOM path)
    "list_share",           # those anchors / the page's anchors
    "list_mean_p",          # mean P(content) of their blocks
    "list_in_region",       # share of them inside the content region
    "list_siblings",        # log(1 + siblings of the anchor's parent with the parent's tag)
    "parent_children",      # log(1 + children of the anchor's parent's parent)
) + tuple(f"anchor_role_{name}" for name in ROLE_NAMES)
LINK_FEATURES: tuple[str, ...] = BLOCK_LINK_FEATURES + ANCHOR_FEATURES + PAGE_FEATURES
REGION_SHARE = 0.8
"""The content region holds at least this share of the content blocks' words."""
ACCOUNT_WORDS = ("login", "log-in", "signin", "sign-in", "signup", "sign-up", "register", "account", "cart", "checkout",
                 "privacy", "terms", "cookie", "cookies", "contact", "about", "imprint", "impressum", "legal", "subscribe",
                 "newsletter", "help", "faq", "careers", "advertise")
SOCIAL_WORDS = ("facebook", "twitter", "x.com", "linkedin", "pinterest", "instagram", "whatsapp", "telegram", "reddit",
                "youtube", "tiktok", "mailto:", "share", "sharer", "intent/tweet")
TAXONOMY_WORDS = ("tag", "tags", "category", "categories", "topic", "topics", "author", "authors", "page", "feed", "rss",
                  "archive", "user", "users", "profile", "member", "members")
ACCOUNT = re.compile(r"(?i)\b(" + "|".join(map(re.escape, ACCOUNT_WORDS)) + r")\b")
SOCIAL = re.compile("(?i)(" + "|".join(map(re.escape, SOCIAL_WORDS)) + ")")
TAXONOMY = re.compile(r"(?i)/(" + "|".join(map(re.escape, TAXONOMY_WORDS)) + r")(/|$|\?)")


def _host(netloc: str) -> str:
    host = netloc.rsplit("@", 1)[-1].split(":", 1)[0].lower()
    return host.removeprefix("www.")


@lru_cache(maxsize=URL_CACHE_ENTRIES)
def _href_parts(href: str) -> tuple[bool, str | None, str, float, float] | None:
    """(fragment, host or None, path without trailing ``/``, path depth, query) of a stripped raw
    ``href``; None when it does not parse (cached: a host's pages repeat their navigation)."""
    if href.startswith("#"):
        return True, None, "", 0.0, 0.0
    split = _quick_split(href)
    if split is None:
        try:
            split = urlsplit(href)[1:4]
        except ValueError:
            return None
    netloc, path, query = split
    path = path.rstrip("/")
    segments = path.split("/")
    return False, _host(netloc) if netloc else None, path, float(len(segments) - segments.count("")), float(bool(query))


def _quick_split(href: str) -> tuple[str, str, str] | None:
    """``urlsplit(href)``'s (netloc, path, query) for the common ``/path`` and ``http(s)://host/path``
    forms with an ASCII host and no tab or line break (urlsplit would remove those), else None."""
    if "\t" in href or "\r" in href or "\n" in href:
        return None
    if href.startswith("/") and not href.startswith("//"):
        netloc, rest = "", href
    elif href.startswith(("http://", "https://")):
        rest = href[href.index("//") + 2:]
        cut = min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))
        netloc, rest = rest[:cut], rest[cut:]
        if not netloc.isascii() or "[" in netloc or "]" in netloc:
            return None
    else:
        return None
    path, _, query = rest.partition("#")[0].partition("?")
    return netloc, path, query


def href_features(href: str, page_host: str, page_path: str) -> tuple[float, float, float, float, float]:
    """(fragment, other host, path depth, query, self) of a raw ``href``."""
    parts = _href_parts(href.strip())
    if parts is None:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    fragment, host, path, depth, query = parts
    if fragment:
        return 1.0, 0.0, 0.0, 0.0, 1.0
    other = host is not None and host != page_host
    same = not other and bool(path) and path == page_path
    return 0.0, float(other), depth, query, float(same)


HREF_WORDS = (ACCOUNT, SOCIAL, TAXONOMY)
LOWER_HREF_WORDS = tuple(re.compile(p.pattern.removeprefix("(?i)")) for p in HREF_WORDS)
"""``HREF_WORDS`` without ``(?i)``, for a lower-cased ASCII href: the same matches (lower-casing
ASCII keeps every position, and only non-ASCII characters such as the Kelvin sign fold to ASCII
letters), about three times faster."""
LOWER_ASCII_WORDS: Callable[[str], tuple[float, float, float]] | None = None if _tokens is None else partial(
    _tokens.href_words, *map(_tokens.Words, (ACCOUNT_WORDS, SOCIAL_WORDS, TAXONOMY_WORDS)))
"""``LOWER_HREF_WORDS``' matches, compiled (``_tokens``) where that extension was built."""


@lru_cache(maxsize=URL_CACHE_ENTRIES)
def href_words(href: str) -> tuple[float, float, float]:
    """(account/legal, social/share, taxonomy) words in a raw ``href`` (cached: navigation repeats)."""
    if href.isascii():
        lower = href.lower()
        if LOWER_ASCII_WORDS is not None:
            return LOWER_ASCII_WORDS(lower)
        a, s, t = (p.search(lower) for p in LOWER_HREF_WORDS)
    else:
        a, s, t = (p.search(href) for p in HREF_WORDS)
    return float(bool(a)), float(bool(s)), float(bool(t))


def anchor_word_count(el: Any) -> int:
    """Whitespace-separated words of an element's text (its descendants' included)."""
    return len((el.text or "").split() if not len(el) else "".join(el.itertext()).split())


COMPILED_ANCHORS = 2000
"""Pages with more anchors take ``anchor_facts``' linear Python path (same values)."""
CHILDREN = object()
"""``list_counts``' cache key of a grandparent's number of children."""


def list_counts(el: Any, cache: dict[Any, dict[Any, int]]) -> tuple[int, int]:
    """(siblings of the anchor's parent sharing its tag, children of the grandparent); (0, 0) without
    a grandparent. ``cache``: tag counts per grandparent element, shared by the anchors of one page."""
    parent = el.getparent()
    if parent is None:
        return 0, 0
    grand = parent.getparent()
    if grand is None:
        return 0, 0
    counts = cache.get(grand)
    if counts is None:  # one pass over the grandparent's children (``len`` of an element is one more)
        counts = cache[grand] = {CHILDREN: 0}
        for c in grand:
            counts[c.tag] = counts.get(c.tag, 0) + 1
            counts[CHILDREN] += 1
    return counts[parent.tag], counts[CHILDREN]


def anchor_facts(anchors: list[Any]) -> tuple[list[str | None], np.ndarray, np.ndarray, np.ndarray]:
    """(``get("href")``, float64 ``anchor_word_count``, float64 ``list_counts`` pair) of each anchor (all
    of one tree): one compiled pass (``_blockwalk``) where it serves the tree, Python for what it leaves (-1).
    Past COMPILED_ANCHORS anchors, Python throughout: the compiled pass counts a grandparent's children
    once per anchor (quadratic in a list of thousands of links), ``list_counts`` once per grandparent."""
    walk = compiled_walk(anchors[0]) if 0 < len(anchors) <= COMPILED_ANCHORS else None
    if walk is None:
        cache: dict[Any, dict[Any, int]] = {}
        counts = np.array([list_counts(el, cache) for el in anchors], dtype=np.float64).reshape(-1, 2)
        words = np.fromiter(map(anchor_word_count, anchors), dtype=np.float64, count=len(anchors))
        return [el.get("href") for el in anchors], words, counts[:, 0], counts[:, 1]
    hrefs, words, siblings, children = walk.anchor_facts(anchors)
    for i in np.flatnonzero(words < 0):
        words[i] = anchor_word_count(anchors[i])
    cache = {}
    for i in np.flatnonzero(siblings < 0):
        siblings[i], children[i] = list_counts(anchors[i], cache)
    return hrefs, words.astype(np.float64), siblings.astype(np.float64), children.astype(np.float64)


def content_region(blocks: list[TextBlock], proba: np.ndarray, threshold: float) -> tuple[str, ...]:
    """The longest DOM path shared by the largest content blocks holding ``REGION_SHARE`` of their words."""
    words = np.array([b.n_words for b in blocks], dtype=np.float64)
    content = np.flatnonzero(proba >= threshold)
    if not content.size:
        content = np.array([int(np.argmax(proba))])
    order = content[np.argsort(-words[content], kind="stable")]
    cum = np.cumsum(words[order])
    k = int(np.searchsorted(cum, REGION_SHARE * cum[-1])) + 1
    return shared_path([blocks[i].path for i in order[:k]])


@dataclass
class AnchorRows:
    """The anchors of a page as model rows plus the structure the list rule reads.

    ``group``: index of the anchor's link list (anchors sharing its index-free DOM path);
    ``roles``: the ``ROLES`` mask of its DOM path; ``words``: words of its text;
    ``in_region``: inside the container of the blocks that are likely content (P ≥ half the
    block threshold; the parent element when that is one block's own element), whose DOM
    depth and words are ``region_depth`` and ``region_words``.
    """

    x: np.ndarray
    group: np.ndarray
    roles: np.ndarray
    words: np.ndarray
    in_region: np.ndarray
    region_depth: int
    region_words: float


def link_features(blocks: list[TextBlock], proba: np.ndarray, context: PageContext | None = None,
                  page: np.ndarray | None = None, threshold: float = 0.5) -> np.ndarray:
    """float64[anchors, len(LINK_FEATURES)] for every anchor of ``blocks`` in order.

    ``page``: the page's ``PAGE_FEATURES`` (zeros if None); ``threshold``: the block model's.
    """
    return anchor_rows(blocks, proba, context, page, threshold).x


def anchor_rows(blocks: list[TextBlock], proba: np.ndarray, context: PageContext | None = None,
                page: np.ndarray | None = None, threshold: float = 0.5) -> AnchorRows:
    """``link_features`` with the anchors' list, role and region structure."""
    context = context or PageContext()
    anchors = [el for b in blocks for el in b.anchors]
    n_anchors = len(anchors)
    if not n_anchors:
        empty = np.zeros(0)
        return AnchorRows(np.zeros((0, len(LINK_FEATURES))), empty.astype(np.int64), empty.astype(np.int64),
                          empty, empty, 0, 0.0)
    words, linked, _, _ = block_counts(blocks)
    per_block = np.fromiter(map(len, (b.anchors for b in blocks)), dtype=np.int64, count=len(blocks))
    owner = np.repeat(np.arange(len(blocks)), per_block)
    prev = np.concatenate([[0.0], proba[:-1]])
    nxt = np.concatenate([proba[1:], [0.0]])
    padded = np.concatenate([np.zeros(2), proba, np.zeros(2)])
    window = np.max(np.lib.stride_tricks.sliding_window_view(padded, 5), axis=1)
    main = int(np.argmax(proba * np.log1p(words)))
    block_paths = [b.path for b in blocks]
    block_codes = context.codes(block_paths)
    block_depth = np.fromiter(map(len, block_paths), dtype=np.int64, count=len(blocks))
    main_depth = int(block_depth[main])
    positions = np.array([b.position for b in blocks])
    blk = np.column_stack([
        proba, prev, nxt, window, np.log1p(words), link_density(linked, words),
        np.log1p(per_block),
        [b.tag in ("li", "dd", "dt") for b in blocks], [b.tag in ("td", "th") for b in blocks],
        [len(b.tag) == 2 and b.tag[0] == "h" and b.tag[1].isdigit() for b in blocks],
        common_prefixes(block_codes, block_codes[main, :main_depth]) / max(main_depth, 1),
        block_depth - main_depth, positions, np.abs(positions - positions[main]),
    ])[owner]

    region = content_region(blocks, proba, threshold)
    parts = urlsplit(context.url or "")
    page_host, page_path = _host(parts.netloc), parts.path.rstrip("/")
    raw, anchor_words, siblings, children = anchor_facts(anchors)
    hrefs = [(h or "").strip() for h in raw]
    numbers: dict[str, int] = {}
    href_number = np.fromiter((numbers.setdefault(h, len(numbers)) for h in hrefs), dtype=np.int64, count=n_anchors)
    repeats = np.bincount(href_number)
    paths = [context.anchor_paths.get(el) or b.path for b in blocks for el in b.anchors]
    codes = context.codes(paths)
    group = first_seen(context.codes.index_free(codes))
    shared = common_prefixes(codes, context.codes([region])[0, :len(region)])
    in_region = (shared == len(region)).astype(np.float64)
    size = np.bincount(group)
    rows = np.empty((n_anchors, 22))
    rows[:, 0] = np.log1p(anchor_words)
    rows[:, 1] = anchor_words / np.maximum(words[owner], 1.0)
    rows[:, 2] = (np.arange(n_anchors) - (np.cumsum(per_block) - per_block)[owner]) / per_block[owner]
    rows[:, 3:11] = np.array([(*href_features(h, page_host, page_path), *href_words(h)) for h in numbers])[href_number]
    rows[:, 20] = np.log1p(siblings)
    rows[:, 21] = np.log1p(children)
    depth = np.fromiter(map(len, paths), dtype=np.float64, count=n_anchors)
    rows[:, 11] = np.log(repeats[href_number])
    rows[:, 12] = in_region
    rows[:, 13] = len(region)
    rows[:, 14] = depth - len(region)
    rows[:, 15] = shared / max(len(region), 1)
    rows[:, 16] = np.log1p(size[group])
    rows[:, 17] = size[group] / n_anchors
    rows[:, 18] = (np.bincount(group, proba[owner]) / size)[group]
    rows[:, 19] = (np.bincount(group, in_region) / size)[group]
    masks = context.codes.roles(codes)
    page_row = np.zeros(len(PAGE_FEATURES)) if page is None else page
    x = np.hstack([blk, rows, role_matrix(masks), np.broadcast_to(page_row, (n_anchors, page_row.size))])
    region = content_region(blocks, proba, threshold / 2)   # the likely-content blocks' container
    if any(b.path == region for b in blocks):
        region = region[:-1]    # one block's own element: its container is the region
    region_codes = context.codes([region])[0, :len(region)]
    in_container = (common_prefixes(codes, region_codes) == len(region)).astype(np.float64)
    region_words = float(words[common_prefixes(block_codes, region_codes) == len(region)].sum())
    return AnchorRows(x, group, masks, anchor_words, in_container, len(region), region_words)
