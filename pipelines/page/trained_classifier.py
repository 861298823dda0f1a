"""The ``"trained"`` block classifier: a gradient-boosted tree ensemble over page-aware block features.

Trained by ``bench/train_classifier.py`` on the train split of ../shared/data (WCXB-dev and
L3S-GN1); its parameters ship as ``models/trained.json`` (``trees.TreeEnsemble``). Features:
``feature_matrix`` (Kohlschütter §4.4.2, P/C/N context), where the block stands in its page
(``REGION_FEATURES``), the roles its DOM ancestry names (``dom_features.ROLES``) and what kind
of page it is on (``PAGE_FEATURES``: page-type hints from the markup, the share of the page in
link lists and repeated structures).
"""

from __future__ import annotations

import numpy as np

from rankcrawl.pipelines.page.blockstats import block_counts, common_prefixes, first_seen, link_density
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dom_features import PAGE_TYPE_NAMES, ROLE_NAMES, PageContext, role_matrix
from rankcrawl.pipelines.page.features import FEATURE_NAMES, feature_matrix
from rankcrawl.pipelines.page.trees import TreeEnsemble, load_model

REGION_FEATURES: tuple[str, ...] = (
    "log_words",              # log(1 + words)
    "words_share",            # block words / page words
    "words_vs_largest",       # block words / words of the page's largest block
    "path_depth",             # DOM depth of the block
    "shared_path_largest",    # common DOM-path prefix with the largest block / its depth
    "dist_largest",           # |position − position of the largest block|
    "window_link_density",    # linked words / words over the block and two neighbours each side
    "window_words",           # log(1 + words) over the same window
    "log_same_path",          # log(1 + other blocks with the same index-free DOM path: list items, cards)
    "same_path_words_share",  # words of the blocks sharing that path / page words
    "same_path_link_density", # linked words / words over the blocks sharing that path
    "shared_path_region",     # common prefix with the main region's index-free path / its depth
) + tuple(f"role_{name}" for name in ROLE_NAMES)   # a DOM ancestor below <body> names the role
PAGE_FEATURES: tuple[str, ...] = (
    "page_link_density",      # linked words / words of the whole page
    "page_log_blocks",        # log(1 + number of blocks)
    "page_log_words",         # log(1 + words of the page)
    "page_log_anchors",       # log(1 + anchors in blocks)
    "page_linklist_share",    # share of the page's words in blocks with link density ≥ 0.5
    "page_largest_share",     # words of the largest block / page words
    "page_region_share",      # words of the largest region (index-free path) / page words
    "page_log_regions",       # log(1 + regions of at least 3 blocks)
) + tuple(f"page_type_{name}" for name in PAGE_TYPE_NAMES)   # body class, og:type, schema.org types
ALL_FEATURES: tuple[str, ...] = FEATURE_NAMES + REGION_FEATURES + PAGE_FEATURES
MODEL = "trained"
WINDOW = 2


def _window_sum(values: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over each block and ``WINDOW`` neighbours on each side."""
    c = np.concatenate([[0.0], np.cumsum(values)])
    i = np.arange(values.size)
    return c[np.minimum(i + WINDOW + 1, values.size)] - c[np.maximum(i - WINDOW, 0)]


def block_region_features(blocks: list[TextBlock], context: PageContext) -> tuple[np.ndarray, np.ndarray]:
    """(float64[n, len(REGION_FEATURES)], float64[len(PAGE_FEATURES)]) of a page's blocks.

    A region is the set of blocks sharing one index-free DOM path (the items of a list or a
    grid of cards; the paragraphs of an article body); the main region has the most words.
    """
    n = len(blocks)
    words, linked, _, _ = block_counts(blocks)
    position = np.fromiter((b.position for b in blocks), dtype=np.float64, count=n)
    paths = [b.path for b in blocks]
    codes = context.codes(paths)
    depth = np.fromiter(map(len, paths), dtype=np.float64, count=n)
    big = int(np.argmax(words))
    big_path = paths[big]
    shared = common_prefixes(codes, codes[big, :len(big_path)])
    win_words, win_linked = _window_sum(words), _window_sum(linked)
    total = words.sum()
    keys = context.codes.index_free(codes)
    group = first_seen(keys)
    size = np.bincount(group)
    g_words, g_linked = np.bincount(group, words), np.bincount(group, linked)
    main = int(np.argmax(group == np.argmax(g_words)))    # a block of the main region
    main_depth = len(paths[main])
    shared_main = common_prefixes(keys, keys[main, :main_depth])
    roles = role_matrix(context.codes.roles(codes))
    own = np.column_stack([
        np.log1p(words), words / total, words / words[big], depth,
        shared / max(len(big_path), 1), np.abs(position - position[big]),
        link_density(win_linked, win_words), np.log1p(win_words),
        np.log(size[group]), g_words[group] / total, link_density(g_linked[group], g_words[group]),
        shared_main / max(main_depth, 1), roles,
    ])
    page = np.concatenate([[
        linked.sum() / total, np.log1p(n), np.log1p(total), np.log1p(sum(len(b.anchors) for b in blocks)),
        words[link_density(linked, words) >= 0.5].sum() / total, words[big] / total,
        g_words.max() / total, np.log1p((size >= 3).sum()),
    ], context.page_types])
    return own, page


def features_and_page(blocks: list[TextBlock], context: PageContext | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(float64[n, len(ALL_FEATURES)], the page's ``PAGE_FEATURES``) of non-empty ``blocks``."""
    own, page = block_region_features(blocks, context or PageContext())
    return np.hstack([feature_matrix(blocks), own, np.broadcast_to(page, (len(blocks), page.size))]), page


def trained_features(blocks: list[TextBlock], context: PageContext | None = None) -> np.ndarray:
    """float64[n, len(ALL_FEATURES)]: ``feature_matrix``, region and role features, page features."""
    if not blocks:
        return np.zeros((0, len(ALL_FEATURES)))
    return features_and_page(blocks, context)[0]


def block_model() -> TreeEnsemble:
    """The shipped block model (``models/trained.json``)."""
    return load_model(MODEL, ALL_FEATURES)


def trained_proba(blocks: list[TextBlock], context: PageContext | None = None) -> np.ndarray:
    """float64[n]: P(content) of each block by the shipped block model."""
    if not blocks:
        return np.zeros(0)
    return block_model().proba(trained_features(blocks, context))


def decide(proba: np.ndarray) -> np.ndarray:
    """bool[n]: ``proba`` ≥ the shipped model's threshold, else (none passing) the most probable block.

    Every page has a main content; this covers pages unlike the training data (one huge block).
    """
    keep = proba >= block_model().threshold_proba
    if proba.size and not keep.any():
        keep[int(np.argmax(proba))] = True
    return keep


def trained(blocks: list[TextBlock]) -> np.ndarray:
    """bool[n]: the trained block decision without page context (no markup hints)."""
    return decide(trained_proba(blocks))
