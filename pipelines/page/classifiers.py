"""Boilerplate classifiers (Kohlschütter §4.4.3): is-content decisions for a page's blocks.

``RULES`` maps a name to a rule-based ``f(blocks) -> bool[n]``; ``CLASSIFIERS`` is the explicit
table of every block classifier by name (the rules and the ``trained`` model without page
context); ``FILTERS`` maps a name to a post-filter ``g(blocks, is_content, title) -> bool[n]``.
A classifier spec is ``"name"`` or ``"name+filter"`` (e.g. ``"numwords+largest"``). The first
block's previous and the last block's next block count as empty (all features 0). ``analyze``
runs these through the steps of ``steps.PRESETS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from rankcrawl.pipelines.page.blockstats import block_counts, link_density, text_density
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.trained_classifier import trained

Classifier = Callable[[list[TextBlock]], np.ndarray]
Filter = Callable[[list[TextBlock], np.ndarray, str], np.ndarray]


def _pcn(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(previous, current, next) views of a per-block array, zero-padded."""
    prev = np.concatenate([[0.0], values[:-1]])
    nxt = np.concatenate([values[1:], [0.0]])
    return prev, values, nxt


def _arrays(blocks: list[TextBlock]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(words, link density, text density rho) per block."""
    words, linked, lines, last = block_counts(blocks)
    return words, link_density(linked, words), text_density(words, lines, last)


def densitometric(blocks: list[TextBlock]) -> np.ndarray:
    """Algorithm 4.2 (Densitometric Classifier), as printed."""
    _, ld, rho = _arrays(blocks)
    p_ld, c_ld, _ = _pcn(ld)
    p_td, c_td, n_td = _pcn(rho)
    low_prev_links = np.where(
        c_td <= 9,
        np.where(n_td <= 10, p_td > 4, True),
        n_td > 0,
    )
    return (c_ld <= 0.333333) & np.where(p_ld <= 0.555556, low_prev_links, n_td > 11)


def numwords(blocks: list[TextBlock]) -> np.ndarray:
    """Algorithm 4.3 (NumWords Classifier), as printed."""
    words, ld, _ = _arrays(blocks)
    p_ld, c_ld, _ = _pcn(ld)
    p_w, c_w, n_w = _pcn(words)
    low_prev_links = np.where(c_w <= 16, np.where(n_w <= 15, p_w > 4, True), True)
    high_prev_links = np.where(c_w <= 40, n_w > 17, True)
    return (c_ld <= 0.333333) & np.where(p_ld <= 0.555556, low_prev_links, high_prev_links)


def cleaneval(blocks: list[TextBlock]) -> np.ndarray:
    """The rule learnt on CleanEval: text density ≥ 7 and link density ≤ 0.35."""
    _, ld, rho = _arrays(blocks)
    return (rho >= 7) & (ld <= 0.35)


def min_words(blocks: list[TextBlock]) -> np.ndarray:
    """Keep every block with at least 10 words."""
    words, _, _ = _arrays(blocks)
    return words >= 10


def largest_content(blocks: list[TextBlock], is_content: np.ndarray, title: str = "") -> np.ndarray:
    """Largest Content Filter: only the content block with the most words stays content."""
    out = np.zeros(len(blocks), dtype=bool)
    if is_content.any():
        words = np.array([b.n_words for b in blocks])
        out[int(np.argmax(np.where(is_content, words, -1)))] = True
    return out


COMMENT_MARKERS = frozenset((
    "comments", "user comments", "reader comments", "readers' comments", "your comments",
    "add a comment", "add your comment", "post a comment", "leave a comment", "leave a reply",
    "write a comment",
))
TITLE_SEPARATORS = re.compile(r"(?<!\s)\s++[-|–—:»·]++\s+")  # tried once per whitespace run: linear time


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(":").strip()


def main_content(blocks: list[TextBlock], is_content: np.ndarray, title: str = "") -> np.ndarray:
    """Main Content Filter: Largest Content between the title block and a comments marker.

    The title block is the first block whose text equals the page title or a part of it split
    at separators (``-``, ``|``, ``:`` …); it stays content. A block consisting of one of
    ``COMMENT_MARKERS`` ends the main content.
    """
    keep = is_content.copy()
    names = [_norm(b.text) for b in blocks]
    candidates = {_norm(title)} | {_norm(p) for p in TITLE_SEPARATORS.split(title) if len(p.split()) >= 2}
    candidates.discard("")
    start = next((i for i, t in enumerate(names) if t in candidates), None)
    end = next((i for i, t in enumerate(names) if t in COMMENT_MARKERS and (start is None or i > start)), None)
    if start is not None:
        keep[:start] = False
    if end is not None:
        keep[end:] = False
    out = largest_content(blocks, keep)
    if start is not None:
        out[start] = True
    return out


RULES: dict[str, Classifier] = {
    "densitometric": densitometric,
    "numwords": numwords,
    "cleaneval": cleaneval,
    "minwords": min_words,
}
CLASSIFIERS: dict[str, Classifier] = {**RULES, "trained": trained}
FILTERS: dict[str, Filter] = {"largest": largest_content, "main": main_content}


def get_classifier(name: str) -> Classifier:
    """The classifier ``name`` of ``CLASSIFIERS``."""
    try:
        return CLASSIFIERS[name]
    except KeyError:
        raise ValueError(f"unknown classifier {name!r} (one of {', '.join(sorted(CLASSIFIERS))})") from None
