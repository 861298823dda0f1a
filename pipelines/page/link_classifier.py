"""The content-link decision: which anchors of a page are content links (a per-link model).

The second stage of the ``trained`` preset (``steps.LINK_MODEL``): a gradient-boosted tree
ensemble (``models/links.json``, trained by ``bench/train_link_classifier.py`` on the WCXB-dev
train split with out-of-fold block probabilities) scores every block anchor from
``link_features``; the anchors at or above its threshold are content links, whether or not
their block is content. So a table of contents, an index or a product grid inside the content
region keeps its links although its blocks are link lists, and a "Read our full review" link
block counts, while long content blocks' affiliate or "Follow" links can be dropped. The per-anchor decisions are
then made per link list (``list_smoothed``): the anchors of one list are nearly always all
content or all template. A page where the model keeps no link at all but whose content region
holds a large link list is a listing: that list's anchors are its content links
(``with_main_list``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dom_features import ROLE_NAMES, PageContext
from rankcrawl.pipelines.page.link_features import LINK_FEATURES, AnchorRows, anchor_rows
from rankcrawl.pipelines.page.trees import TreeEnsemble, load_model

MODEL = "links"
MIN_LIST = 5
"""A content list (and a list ``list_smoothed`` decides as a whole) has at least this many anchors …"""
LIST_SHARE = 0.5
"""… and its anchor words are at least this share of the content region's words."""
LIST_KEEP = 0.6
"""``list_smoothed``: a list with at least this share of its anchors kept keeps them all …"""
LIST_DROP = 0.2
"""… and one with less than this share kept drops them all (train-split host-grouped CV micro link
F1 0.677 → 0.686; host bootstrap 95 % interval of the gain [+0.002, +0.017])."""
MAIN_LIST_SHARE = 0.2
"""``with_main_list``: the region's main list carries at least this share of its words (chosen on
host-grouped train CV, where the rule is neutral: micro link F1 0.686 → 0.685, listing 0.281 → 0.273, collection
0.460 → 0.509)."""
TEMPLATE_ROLES = sum(1 << ROLE_NAMES.index(r) for r in
                     ("nav", "header", "footer", "aside", "social", "comment", "related", "form"))


def link_model() -> TreeEnsemble:
    """The shipped link model (``models/links.json``)."""
    return load_model(MODEL, LINK_FEATURES)


def content_anchors(blocks: list[TextBlock], block_proba: np.ndarray, context: PageContext | None = None,
                    page: np.ndarray | None = None, threshold: float = 0.5) -> tuple[dict[Any, bool], AnchorRows]:
    """({anchor element: is a content link}, the anchors' rows) for every anchor of ``blocks``
    (``block_proba``: P(content) of the blocks; ``threshold``: the block model's)."""
    anchors = [el for b in blocks for el in b.anchors]
    rows = anchor_rows(blocks, block_proba, context, page, threshold)
    if not anchors:
        return {}, rows
    model = link_model()
    return dict(zip(anchors, decided(model.proba(rows.x), rows, model.threshold_proba).tolist())), rows


def decided(proba: np.ndarray, rows: AnchorRows, threshold: float) -> np.ndarray:
    """bool[anchors]: the content links given the link model's ``proba``: per anchor, then per list
    (``list_smoothed``), then the listing fallback (``with_main_list``)."""
    return with_main_list(list_smoothed(proba >= threshold, rows.group), rows)


def list_smoothed(keep: np.ndarray, group: np.ndarray) -> np.ndarray:
    """bool[anchors]: the per-anchor decisions ``keep`` with every link list (``group``) of at least
    ``MIN_LIST`` anchors decided as a whole where it is nearly unanimous: all kept when at least
    ``LIST_KEEP`` of its anchors are, all dropped when fewer than ``LIST_DROP`` are."""
    size = np.bincount(group)
    share = np.bincount(group, keep) / size
    whole = size >= MIN_LIST
    return (keep | (whole & (share >= LIST_KEEP))[group]) & ~(whole & (share < LIST_DROP))[group]


def region_lists(rows: AnchorRows) -> tuple[np.ndarray, np.ndarray]:
    """(bool[lists]: lists of at least ``MIN_LIST`` anchors, all inside the content region, none under
    a template role (nav, header, footer, aside, social, comments, related, form); float[lists]: each
    list's anchor words) over the link lists ``rows.group`` numbers."""
    size = np.bincount(rows.group)
    inside = np.bincount(rows.group, rows.in_region) == size
    template = np.bincount(rows.group, (rows.roles & TEMPLATE_ROLES) != 0) > 0
    return (size >= MIN_LIST) & inside & ~template, np.bincount(rows.group, rows.words)


def with_main_list(keep: np.ndarray, rows: AnchorRows) -> np.ndarray:
    """``keep``, or, where it keeps no anchor, the anchors of the content region's main list: the
    ``region_lists`` list with the most anchor words, if they are at least ``MAIN_LIST_SHARE`` of the
    region's words (a listing, a category page or a product grid the per-anchor model missed whole)."""
    if keep.any():
        return keep
    candidate, words = region_lists(rows)
    if not candidate.any():
        return keep
    main = int(np.argmax(np.where(candidate, words, -1.0)))
    if words[main] < MAIN_LIST_SHARE * rows.region_words:
        return keep
    return rows.group == main


def content_lists(rows: AnchorRows) -> np.ndarray:
    """bool[anchors]: anchors of a link list that is the content region's main content.

    A ``region_lists`` list (a table of contents, an index, a product grid) whose anchor words are
    at least ``LIST_SHARE`` of the region's words, the region being below ``<body>``: the page is that list.
    """
    if rows.region_depth < 3:
        return np.zeros(rows.group.size, dtype=bool)
    candidate, words = region_lists(rows)
    return (candidate & (words >= LIST_SHARE * rows.region_words))[rows.group]
