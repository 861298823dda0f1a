"""Block statistics, computed here and nowhere else: text density rho, link density, DOM prefixes.

Text density (Kohlschütter Eq. 4.6): the words of all word-wrapped lines but the last, divided
by the number of those lines; a one-line block's density is its word count. Link density:
linked words / words (0 for a block without words). Both accept Python numbers or numpy arrays
(one value per block). ``common_prefix`` is the shared leading part of two DOM paths
(``common_prefixes``: of many coded paths and one).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from operator import attrgetter
from typing import overload

import numpy as np

COUNTS = attrgetter("n_words", "n_linked_words", "n_lines", "last_line_words")
"""A block's (words, linked words, lines, words on the last line)."""


@overload
def text_density(words: np.ndarray, lines: np.ndarray, last: np.ndarray) -> np.ndarray: ...
@overload
def text_density(words: float, lines: float, last: float) -> float: ...
def text_density(words, lines, last):
    """rho (Eq. 4.6) = (words − words on the last line) / (lines − 1); one line: words."""
    if isinstance(words, np.ndarray):
        words = words.astype(np.float64)
        return np.where(lines > 1, (words - last) / np.maximum(lines - 1, 1), words)
    return (words - last) / (lines - 1) if lines > 1 else float(words)


@overload
def link_density(linked: np.ndarray, words: np.ndarray) -> np.ndarray: ...
@overload
def link_density(linked: float, words: float) -> float: ...
def link_density(linked, words):
    """Linked words / words; 0 where there is no word."""
    if isinstance(words, np.ndarray):
        return np.asarray(linked, dtype=np.float64) / np.maximum(words, 1)
    return linked / words if words else 0.0


def common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    """Number of leading DOM-path labels ``a`` and ``b`` share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def common_prefixes(codes: np.ndarray, path: np.ndarray) -> np.ndarray:
    """int64[n]: ``common_prefix`` of each coded path (rows of ``codes``, -1 past their ends) and the
    coded ``path`` (label numbers ≥ 0, as ``dom_features.PathCodes`` gives them)."""
    k = min(codes.shape[1], path.size)
    return np.logical_and.accumulate(codes[:, :k] == path[:k], axis=1).sum(axis=1)


def first_seen(rows: np.ndarray) -> np.ndarray:
    """int64[n]: a number per distinct row of the int64 matrix ``rows``, 0, 1, … by first occurrence."""
    whole = np.ascontiguousarray(rows).view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(whole, return_index=True, return_inverse=True)
    rank = np.empty_like(first)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[inverse]


def shared_path(paths: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    """The longest DOM path that starts every path of ``paths`` (``()`` for none); it narrows only where
    a path leaves it, checked by one tuple comparison."""
    if not paths:
        return ()
    out = paths[0]
    for p in paths[1:]:
        if p[: len(out)] != out:
            out = out[: common_prefix(out, p)]
    return out


def block_counts(blocks: Sequence[object]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(words, linked words, lines, words on the last line) per block as float64 arrays."""
    a = np.fromiter(chain.from_iterable(map(COUNTS, blocks)), dtype=np.float64, count=4 * len(blocks)).reshape(len(blocks), 4)
    return a[:, 0], a[:, 1], a[:, 2], a[:, 3]
