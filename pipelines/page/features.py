"""Block features as a matrix (Kohlschütter §4.4.2) with previous/current/next context (P/C/N).

``feature_matrix(blocks)`` has one row per block and ``3 * len(BLOCK_FEATURES)`` columns: the
previous block's features, then the current block's, then the next block's (in that order,
named ``prev_*``, ``curr_*``, ``next_*`` in ``FEATURE_NAMES``). The first block's previous and
the last block's next are all zeros.
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from rankcrawl.pipelines.page.blockstats import block_counts, link_density, text_density
from rankcrawl.pipelines.page.document import TextBlock

HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
TAG_ROWS: dict[str, int] = {**{h: 1 for h in HEADINGS}, "p": 2, "div": 3, "a": 4, "li": 5, "td": 6}
TAG_ONEHOT = np.vstack([np.zeros(6), np.eye(6)])
"""Row ``TAG_ROWS.get(tag, 0)`` of ``TAG_ONEHOT``: the block's ``tag_*`` features (none for other tags)."""

BLOCK_FEATURES: tuple[str, ...] = (
    "n_words",              # words (tokens with a letter or digit)
    "link_density",         # linked words / words
    "text_density",         # rho, Eq. 4.6
    "avg_word_length",      # characters per word
    "avg_sentence_length",  # words per sentence
    "position",             # share of the page's words before the block
    "capitalised_ratio",    # words starting upper-case / words
    "full_stop_ratio",      # '.' / words
    "n_bars",               # '|' characters
    "tag_heading",          # enclosing element h1–h6
    "tag_p",
    "tag_div",
    "tag_a",
    "tag_li",
    "tag_td",
)
FEATURE_NAMES: tuple[str, ...] = tuple(
    f"{ctx}_{name}" for ctx in ("prev", "curr", "next") for name in BLOCK_FEATURES
)


def block_features(blocks: list[TextBlock]) -> np.ndarray:
    """float64[n, len(BLOCK_FEATURES)]: each block's own features."""
    n = len(blocks)
    words, linked, lines, last = block_counts(blocks)
    raw = np.fromiter(chain.from_iterable((b.position, *b.text_stats) for b in blocks), dtype=np.float64, count=6 * n)
    position, chars, sentences, caps, stops, bars = raw.reshape(n, 6).T
    safe = np.maximum(words, 1.0)
    onehot = TAG_ONEHOT[np.fromiter((TAG_ROWS.get(b.tag, 0) for b in blocks), dtype=np.int64, count=n)]
    own = np.column_stack([
        words, link_density(linked, words), text_density(words, lines, last), chars / safe,
        words / np.maximum(sentences, 1.0), position,
        caps / safe, stops / safe, bars,
    ])
    return np.hstack([own, onehot])


def with_context(own: np.ndarray) -> np.ndarray:
    """[previous | current | next] rows of ``own``, zero-padded at both ends."""
    if not len(own):
        return np.zeros((0, 3 * own.shape[1]))
    pad = np.zeros((1, own.shape[1]))
    return np.hstack([np.vstack([pad, own[:-1]]), own, np.vstack([own[1:], pad])])


def feature_matrix(blocks: list[TextBlock]) -> np.ndarray:
    """float64[n, 3 * len(BLOCK_FEATURES)], columns as in ``FEATURE_NAMES``."""
    return with_context(block_features(blocks))
