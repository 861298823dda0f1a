"""The content-link decision: which anchors of a page are content links (a per-link model).

Used by ``analyze`` with the ``trained`` block classifier. A small gradient-boosted tree ensemble
(``models/links.json``, trained by ``bench/train_link_classifier.py`` on the WCXB-dev train split)
scores every block anchor from ``link_features``; the anchors at or above its threshold are
content links, whether or not their block is content (link-only content blocks such as
"Read our full review" are often classified as boilerplate, and long content blocks carry
affiliate or "Follow" links the gold omits).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankcrawl.pipelines.document import TextBlock
from rankcrawl.pipelines.link_features import LINK_FEATURES, link_features
from rankcrawl.pipelines.trained_classifier import load_model


def content_anchors(blocks: list[TextBlock], block_proba: np.ndarray, url: str | None) -> dict[Any, bool]:
    """{anchor element: is a content link} for every anchor of ``blocks`` (``block_proba``: P(content))."""
    anchors = [el for b in blocks for el in b.anchors]
    if not anchors:
        return {}
    model = load_model("links", LINK_FEATURES)
    proba = model.proba(link_features(blocks, block_proba, url))
    return dict(zip(anchors, (proba >= model.threshold_proba).tolist()))
