"""The content-link decision: which anchors of a page are content links (a per-link model).

The second stage of the ``trained`` preset (``steps.LINK_MODEL``): a gradient-boosted tree
ensemble (``models/links.json``, trained by ``bench/train_link_classifier.py`` on the WCXB-dev
train split with out-of-fold block probabilities) scores every block anchor from
``link_features``; the anchors at or above its threshold are content links, whether or not
their block is content. So a table of contents, an index or a product grid inside the content
region keeps its links although its blocks are link lists, and a "Read our full review" link
block counts, while long content blocks' affiliate or "Follow" links can be dropped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankcrawl.pipelines.document import TextBlock
from rankcrawl.pipelines.dom_features import PageContext
from rankcrawl.pipelines.link_features import LINK_FEATURES, link_features
from rankcrawl.pipelines.trees import TreeEnsemble, load_model

MODEL = "links"


def link_model() -> TreeEnsemble:
    """The shipped link model (``models/links.json``)."""
    return load_model(MODEL, LINK_FEATURES)


def content_anchors(blocks: list[TextBlock], block_proba: np.ndarray, context: PageContext | None = None,
                    page: np.ndarray | None = None, threshold: float = 0.5) -> dict[Any, bool]:
    """{anchor element: is a content link} for every anchor of ``blocks`` (``block_proba``: P(content))."""
    anchors = [el for b in blocks for el in b.anchors]
    if not anchors:
        return {}
    model = link_model()
    proba = model.proba(link_features(blocks, block_proba, context, page, threshold))
    return dict(zip(anchors, (proba >= model.threshold_proba).tolist()))
